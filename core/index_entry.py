"""One record as the index stores it: file signature, filter and sort keys, JSON, digest, words.

Keys are computed with the exact expressions `core.filters.matches` applies to a record, so a
SQL equality on a key column decides what `matches` decides.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import dataclass

from core.codec import compact_bytes
from core.filters import _clean_path  # the very cleaning `workspace_matches` applies
from core.fulltext import fts_document
from core.index_filter import updated_ns
from core.models import DecisionRecord
from core.pickling import pickled_by_fields
from core.record_shape import RecordShape, StoredRead
from core.text import go_lower, go_trim

NS = 1_000_000_000
UNTRUSTED = ""
"""The signature of a row whose file must be read again at the next reconcile."""


_ZDICT = (
    b'"schema_version":1,"id":"decision-","revision":1,"created_at":"20","updated_at":"20",'
    b'"session_id":"","feature_id":"","goal_id":"","edit_loop_id":"","project_id":"project-",'
    b'"project_alias":"","workspace":"","workspace_hash":"","domains":[],"languages":[],'
    b'"decision_kind":"","risk_level":"","problem":"","task_fingerprint":"",'
    b'"evidence_fingerprint":"","options":[{"id":"","label":"","description":"","pros":[],'
    b'"cons":[],"recommended":true,"order":1,"source":"model"}],"recommended_option_id":"",'
    b'"selected_option_id":"","custom_selection":"","selection_reason_raw":"",'
    b'"rejected_reasons":[{"option_id":"","reason":"","source":"user"}],"summary_sentence":"",'
    b'"evidence_refs":[],"tags":[],"detector_confidence":0.9,"status":"completed",'
    b'"provenance":{"options":"model","selection":"user","rationale":"user",'
    b'"summary":"runtime"},"redaction":{"redacted":true,"patterns":[]},"deleted_at":""'
)
"""Field names and common values: a preset dictionary lets zlib shrink even one small record."""


def pack_json(data: bytes) -> bytes:
    """About a third of the size: the cache would otherwise be as large as the journal."""
    packer = zlib.compressobj(6, zdict=_ZDICT)
    return packer.compress(data) + packer.flush()


def unpack_json(data: bytes) -> bytes:
    unpacker = zlib.decompressobj(zdict=_ZDICT)
    return unpacker.decompress(data) + unpacker.flush()


def signature(info: os.stat_result) -> str:
    """(size, mtime_ns, inode, ctime_ns) as text: inodes can exceed SQLite's 64-bit integers.

    ctime catches an edit whose mtime was set back (`touch -r`, `cp -p`, `rsync -t`).
    """
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_ctime_ns}"


def key(text: str) -> str:
    return go_lower(go_trim(text))


def workspace_keys(workspace: str) -> tuple[bytes, bytes]:
    """(cleaned path, cleaned path with one trailing separator) for the prefix test in SQL.

    UTF-8 bytes, because SQLite's text functions stop at a NUL character and blob functions do
    not; a UTF-8 byte prefix is a character prefix, so the test keeps its meaning.
    """
    clean = _clean_path(workspace)
    prefix = clean.rstrip(os.sep) + os.sep if clean else ""
    return clean.encode("utf-8", "surrogatepass"), prefix.encode("utf-8", "surrogatepass")


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class IndexEntry:
    """Everything the index stores for one file, computed once from the record.

    Plain values only, so a worker process can build entries and hand them over cheaply.
    """

    file_name: str
    sig: str
    values: tuple[object, ...]
    """The columns between sig and digest, in the order of `index_db.RECORD_COLUMNS`."""
    digest: str
    domains: tuple[tuple[str, str], ...]
    """(key, spelling) per distinct domain key, first spelling kept."""
    document: str
    """The full-text body (`core.fulltext.fts_document`)."""

    @classmethod
    def of(cls, file_name: str, sig: str, record: DecisionRecord) -> IndexEntry:
        return cls.of_read(file_name, sig, StoredRead(record, compact_bytes(record)))

    @classmethod
    def of_read(cls, file_name: str, sig: str, read: StoredRead) -> IndexEntry:
        """The entry of a record whose compact bytes a bulk read already has."""
        record, compact = read.record, read.compact
        return cls(
            file_name,
            sig,
            _values(record, compact),
            hashlib.sha256(compact).hexdigest(),
            _domains(record),
            fts_document(record),
        )

    def columns(self) -> tuple[object, ...]:
        return (self.file_name, self.sig, *self.values, self.digest)


def _values(r: RecordShape, compact: bytes) -> tuple[object, ...]:
    seconds, sub = divmod(updated_ns(r), NS)
    offset = r.updated_at.offset_seconds if r.updated_at else 0
    clean, prefix = workspace_keys(r.workspace)
    return (
        r.id,
        r.id.lower(),
        seconds,
        sub,
        offset,
        int(r.is_deleted),
        r.project_id,
        key(r.project_id),
        r.project_alias,
        clean,
        prefix,
        r.decision_kind,
        key(r.decision_kind),
        r.risk_level,
        key(r.risk_level),
        r.status,
        key(r.status),
        r.problem,
        r.selected_label(),
        r.revision,
        pack_json(compact),
    )


def _domains(record: RecordShape) -> tuple[tuple[str, str], ...]:
    seen: dict[str, str] = {}
    for domain in record.domains:
        seen.setdefault(key(domain), domain)
    return tuple((k, v) for k, v in seen.items() if k)
