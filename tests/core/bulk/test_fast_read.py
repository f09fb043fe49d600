"""The C read of bulk builds (`core.bulk.fast_read`) against the strict read it stands in for.

The property: whenever the fast read accepts bytes, the strict read accepts them too and gives
the same record (every field a reader may use), the same compact bytes, and so the same profile
facts and index entry. Whenever the strict read refuses bytes, the fast read refuses them as
well, and `read_for_build` then raises exactly what `read_record_file` raises.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.bulk.fast_read import fast_read
from core.bulk.record_read import read_for_build
from core.bulk.record_view import CheckedRecordView
from core.errors import JournalDamaged
from core.gocompat.gotime import GoTime
from core.record import fields
from core.record.codec import decode_stored_record, encode_record
from core.record.fields import rule
from core.record.normalize import normalize_record
from core.store.decisions import read_record_file
from core.store.safefs import ensure_private_dir
from tests.core.bulk.support.raw_records import SWEEP_VALUES, base_raw, raw_records
from tests.core.bulk.support.reads import assert_fast_agrees
from tests.factories import make_record


def _dumped(raw: dict[str, Any], ascii_only: bool, indent: int | None) -> bytes:
    return json.dumps(raw, ensure_ascii=ascii_only, indent=indent).encode()


_SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(raw=raw_records(), ascii_only=st.booleans(), indent=st.sampled_from([None, 2]))
def test_generated_records_read_alike(
    raw: dict[str, Any], ascii_only: bool, indent: int | None
) -> None:
    assert_fast_agrees(_dumped(raw, ascii_only, indent))


_BYTE_EDITS = st.sampled_from(
    [
        (b'"revision": 2', b'"revision": 2, "revision": 3'),
        (b'"tags": ["snapshot"]', b'"tags": null'),
        (b'"tags": ["snapshot"]', b'"tags": ["snap\\u003cshot>&"]'),
        (b'"tags": ["snapshot"]', b'"tags": ["\\u2028line\\u2029"]'),
        (b'"tags": ["snapshot"]', b'"tags": ["\\ud800"]'),
        (b'"tags": ["snapshot"]', b'"tags": ["\\ud83d\\ude00"]'),
        (b'"tags": ["snapshot"]', b'"tags": ["\\u0000\\u001f\\u007f"]'),
        (b'"session_id": "session-1"', b'"session_id": null'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": 1'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": 1.0'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": -0.0'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": 0'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": 1e-05'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": 8.4E-1'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": NaN'),
        (b'"detector_confidence": 0.84', b'"detector_confidence": "0.84"'),
        (b'"revision": 2', b'"revision": 2.0'),
        (b'"revision": 2', b'"revision": 18446744073709551617'),
        (b"10:28:23.000039921Z", b"10:28:23.000039920Z"),
        (b"10:28:23.000039921Z", b"10:28:23+00:00"),
        (b"10:28:23.000039921Z", b"10:28:23z"),
        (b"11:00:00+02:00", b"11:00:00.000+02:00"),
        (b"11:00:00+02:00", b"11:00:00-00:00"),
        (b'"status": "completed"', b'"status": "deleted"'),
        (
            b'"status": "completed"',
            b'"status": "deleted", "deleted_at": "2025-10-11T00:00:00Z"',
        ),
        (b'"status": "completed"', b'"status": "completed", "deleted_at": null'),
        (b'"redaction": {}', b'"redaction": {"redacted": true, "patterns": ["aws"]}'),
        (b'"redaction": {}', b'"redaction": {"unknown": 1}'),
        (b'"order": 2', b'"order": 2, "extra": true'),
        (b'"id": "decision-abc123"', b'"id": "Decision-ABC123"'),
        (b'"id": "decision-abc123"', b'"id": " decision-abc123"'),
        (b"{", b"\xef\xbb\xbf{"),
        (b'"problem"', b'"problem" '),
    ]
)


@_SETTINGS
@given(
    edits=st.lists(_BYTE_EDITS, min_size=1, max_size=3),
    trailing=st.sampled_from([b"", b"\n", b" x"]),
)
@example(edits=[(b'"detector_confidence": 0.84', b'"detector_confidence": 1')], trailing=b"")
def test_edited_bytes_read_alike(edits: list[tuple[bytes, bytes]], trailing: bytes) -> None:
    data = json.dumps(base_raw(), indent=2).encode()
    for old, new in edits:
        data = data.replace(old, new, 1)
    assert_fast_agrees(data + trailing)


def test_every_field_with_odd_values_reads_alike() -> None:
    accepted = 0
    for name in base_raw():
        for value in SWEEP_VALUES:
            raw = base_raw()
            raw[name] = value
            accepted += assert_fast_agrees(json.dumps(raw).encode())
    assert accepted > 0


def test_records_the_store_writes_take_the_fast_read() -> None:
    """The common case must stay on the C path, or bulk builds silently lose their speed."""
    now = GoTime(1_780_000_000_123_456_789, 3600)
    shapes = [
        {"id": "decision-plain"},
        {"id": "decision-escapes", "tags": ["x<y", "a&b", "line\u2028"]},
        {"id": "decision-sure", "detector_confidence": 1.0},
        {"id": "decision-deleted", "status": "deleted", "deleted_at": now},
    ]
    for overrides in shapes:
        record = normalize_record(make_record(**overrides), now=now)
        data = encode_record(record)
        assert assert_fast_agrees(data, record.id), record.id


@pytest.mark.parametrize(
    "content",
    [b'{"schema_version": 1', b'{"schema_version": 1, "id": null}', b"[]", b"\xff"],
)
def test_refused_files_raise_what_the_strict_read_raises(tmp_path: Path, content: bytes) -> None:
    root = tmp_path / "journal"
    ensure_private_dir(root, root / "records")
    path = root / "records" / "decision-1.json"
    path.write_bytes(content)
    path.chmod(0o600)
    with pytest.raises(JournalDamaged) as strict:
        read_record_file(root, path, "decision-1")
    with pytest.raises(JournalDamaged) as build:
        read_for_build(root, path, "decision-1")
    assert str(build.value) == str(strict.value)
    assert build.value.path == strict.value.path == str(path)


# --- the limits come from the field table ------------------------------------------------------

_ROOT = Path(__file__).resolve().parents[3]
_READS = (
    "core/bulk/record_view.py",
    "core/bulk/fast_read.py",
    "core/bulk/normal_form.py",
    "core/bulk/decision_ids.py",
    "core/record/normalize.py",
)
"""The fast read's modules and the plain normal form beside them: they check record fields."""


def _imports_limits(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        named = {alias.name for alias in node.names}
        return node.module == "core.limits" or (node.module == "core" and "limits" in named)
    return isinstance(node, ast.Import) and any(a.name == "core.limits" for a in node.names)


def test_the_bulk_read_takes_every_field_limit_from_the_table() -> None:
    """No module of the fast read names a limit of `core.limits` itself: it asks the table."""
    for name in _READS:
        tree = ast.parse((_ROOT / name).read_text(encoding="utf-8"))
        assert not any(_imports_limits(node) for node in ast.walk(tree)), name


def test_the_checked_view_carries_the_tables_limits() -> None:
    view = msgspec.inspect.type_info(CheckedRecordView)
    assert isinstance(view, msgspec.inspect.StructType)
    types = {f.name: f.type for f in view.fields}
    problem, options, tags = types["problem"], types["options"], types["tags"]
    assert isinstance(problem, msgspec.inspect.StrType)
    assert problem.max_length == rule("problem").most // 4  # characters, never over the bytes
    assert isinstance(options, msgspec.inspect.ListType | msgspec.inspect.VarTupleType)
    assert (options.min_length, options.max_length) == (rule("options").least, rule("options").most)
    assert isinstance(tags, msgspec.inspect.ListType)
    assert tags.max_length == rule("tags").most


@pytest.mark.parametrize("name", ["option.label", "rejection_reason"])
def test_a_limit_lowered_in_the_table_is_refused_by_both_reads(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The label and reason limits the fast read checks in Python follow the table as it is
    when it runs, as the strict read's do ("Approach A" and "not this one" exceed 5 bytes)."""
    data = _dumped(base_raw(), ascii_only=True, indent=None)
    assert fast_read(data, "decision-abc123") is not None
    monkeypatch.setitem(fields.FIELDS, name, dataclasses.replace(fields.FIELDS[name], most=5))
    assert fast_read(data, "decision-abc123") is None
    with pytest.raises(JournalDamaged):
        decode_stored_record(data, what="x", expected_id="decision-abc123")
