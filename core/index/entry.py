"""One record as the index stores it: file signature, filter and sort keys, JSON, digest, words.

Keys (`core.index.columns.RecordKeys`) are computed with the exact expressions
`core.record.filters.matches` applies to a record, so a SQL equality on a key column decides
what `matches` decides.
"""

from __future__ import annotations

import functools
import os
import zlib
from typing import TYPE_CHECKING

import msgspec

from core.gocompat.text import go_lower, go_trim
from core.index.columns import RecordKeys
from core.index.fulltext import fts_document
from core.record.filters import _clean_path  # the very cleaning `workspace_matches` applies
from core.record.shape import RecordShape, StoredRead

if TYPE_CHECKING:  # annotations only: a read of the index builds no model
    from core.record.models import DecisionRecord

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
"""Field names and common values: with a preset dictionary, zlib shrinks a lone record well."""


PACK_OVER = 4096
"""Compact JSON longer than this many bytes is compressed; shorter JSON is stored as it is."""


def pack_json(data: bytes) -> bytes:
    """The compact JSON as it is, or compressed when it is long; `unpack_json` tells which.

    Why most records stay plain: zlib takes longer for a typical record than reading and parsing its
    file, and a cold build packs every record. Plain, such a record costs about twice the space
    (with the 16 KiB pages of `index_db`; figures in bench/CHANGES.md), still about the size of the
    journal's own files. Long records (pasted or imported texts) are rare, compress best and would
    make the cache grow with the journal's longest texts, so they are compressed, at the fastest
    level.
    """
    if len(data) <= PACK_OVER:
        return data
    packer = zlib.compressobj(1, zdict=_ZDICT)
    return packer.compress(data) + packer.flush()


def unpack_json(data: bytes) -> bytes:
    """A record's JSON starts with `{`; a zlib stream never does (its first byte is 0x78)."""
    if data[:1] == b"{":
        return data
    unpacker = zlib.decompressobj(zdict=_ZDICT)
    return unpacker.decompress(data) + unpacker.flush()


@functools.lru_cache(maxsize=4096)
def key(text: str) -> str:
    """Cached: projects, kinds, risks, statuses and domains take few values in a journal."""
    return go_lower(go_trim(text))


@functools.lru_cache(maxsize=1024)
def workspace_keys(workspace: str) -> tuple[bytes, bytes]:
    """(cleaned path, cleaned path with one trailing separator) for the prefix test in SQL.

    UTF-8 bytes, because SQLite's text functions stop at a NUL character and blob functions do
    not; a UTF-8 byte prefix is a character prefix, so the test keeps its meaning. Cached: a
    journal's records come from a few workspaces.
    """
    clean = _clean_path(workspace)
    prefix = clean.rstrip(os.sep) + os.sep if clean else ""
    return clean.encode("utf-8", "surrogatepass"), prefix.encode("utf-8", "surrogatepass")


class IndexEntry(msgspec.Struct, frozen=True, gc=False):
    """Everything the index stores for one file, computed once from the record.

    Plain values only, so a worker process can build entries and hand them over cheaply: a
    msgspec Struct is built, pickled and unpickled in C, and holds no cycle to collect.
    """

    file_name: str
    sig: str
    keys: RecordKeys
    """The columns between sig and digest."""
    digest: str
    json: bytes
    """The compact record as `pack_json` stores it."""
    domains: tuple[tuple[str, str], ...]
    """(key, spelling) per distinct domain key, first spelling kept."""
    document: str
    """The full-text body (`core.index.fulltext.fts_document`)."""

    @classmethod
    def of(cls, file_name: str, sig: str, record: DecisionRecord) -> IndexEntry:
        from core.bulk.compact_json import compact_bytes  # noqa: PLC0415  # with the models

        return cls.of_read(file_name, sig, StoredRead(record, compact_bytes(record)))

    @classmethod
    def of_read(cls, file_name: str, sig: str, read: StoredRead) -> IndexEntry:
        """The entry of a record whose compact bytes a bulk read already has."""
        import hashlib  # noqa: PLC0415  # here: a read of a current index makes no entry, nor digest

        record, compact = read.record, read.compact
        return cls(
            file_name,
            sig,
            _keys(record),
            hashlib.sha256(compact).hexdigest(),
            pack_json(compact),
            _domains(record),
            fts_document(record),
        )

    def columns(self) -> tuple[object, ...]:
        """The values of `core.index.index_file.RECORD_COLUMNS`, in order."""
        return (self.file_name, self.sig, *msgspec.structs.astuple(self.keys), self.digest)


def _keys(r: RecordShape) -> RecordKeys:
    updated = r.updated_at  # `core.index.query.updated_ns`, without asking the record thrice
    seconds, sub = divmod(updated.unix_ns, NS) if updated else (0, 0)
    clean, prefix = workspace_keys(r.workspace)
    return RecordKeys(
        id=r.id,
        id_key=r.id.lower(),
        upd_s=seconds,
        upd_sub=sub,
        upd_offset=updated.offset_seconds if updated else 0,
        deleted=int(r.is_deleted),
        project_id=r.project_id,
        project_key=key(r.project_id),
        project_alias=r.project_alias,
        workspace_clean=clean,
        workspace_prefix=prefix,
        decision_kind=r.decision_kind,
        kind_key=key(r.decision_kind),
        risk_level=r.risk_level,
        risk_key=key(r.risk_level),
        status=r.status,
        status_key=key(r.status),
        problem=r.problem,
        selected_label=r.selected_label(),
        revision=r.revision,
    )


def _domains(record: RecordShape) -> tuple[tuple[str, str], ...]:
    seen: dict[str, str] = {}
    for domain in record.domains:
        seen.setdefault(key(domain), domain)
    return tuple((k, v) for k, v in seen.items() if k)
