"""Bytes to records and back, exactly as the files are laid out on disk."""

from __future__ import annotations

from pydantic import ValidationError

from core.errors import InvalidDecision, JournalDamaged
from core.gocompat.gojson import dumps_compact, dumps_indented_bytes, loads_strict
from core.gocompat.text import go_trim
from core.record.models import DecisionRecord
from core.record.normalize import normalized
from core.record.shape import RecordShape
from core.record.validation import validate_record


def encode_record(record: DecisionRecord) -> bytes:
    """The file bytes: 2-space indentation, Go escaping, trailing newline."""
    return dumps_indented_bytes(record.to_go_dict())


def compact_record(record: DecisionRecord) -> bytes:
    """Go's compact json.Marshal of the record: used for idempotency and the source hash.

    The one compact encoder of record bytes; `core.bulk.compact_json.compact_bytes` is its
    faster variant for code encoding many records.
    """
    return dumps_compact(record.to_go_dict()).encode("utf-8")


def pydantic_problem(error: ValidationError) -> str:
    """One readable line naming the first offending field."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "record"
    return f"{where}: {first['msg']}"


def parse_record(data: bytes, *, what: str) -> DecisionRecord:
    """Strict structural parse: unknown fields, wrong types and trailing data are errors."""
    raw = loads_strict(data, what=what)
    if not isinstance(raw, dict):
        raise JournalDamaged(f"parse {what}: a record must be a JSON object")
    try:
        return DecisionRecord.model_validate(raw)
    except ValidationError as exc:
        raise JournalDamaged(f"parse {what}: {pydantic_problem(exc)}") from exc


def check_lifecycle(record: RecordShape, expected_id: str | None) -> None:
    """The read contract's first checks, on the record as parsed (before normalization)."""
    if expected_id is not None and go_trim(record.id).lower() != expected_id.lower():
        raise JournalDamaged(
            f"implementation decision file id {record.id!r} does not match expected id "
            f"{expected_id!r}"
        )
    if (
        record.schema_version != 1
        or record.revision <= 0
        or record.created_at is None
        or record.updated_at is None
        or not go_trim(record.status)
    ):
        raise JournalDamaged(
            "stored implementation decision is missing required lifecycle metadata"
        )


def decode_stored_record(data: bytes, *, what: str, expected_id: str | None) -> DecisionRecord:
    """Reads a stored record with the read contract: id match, lifecycle and lenient validation.

    Stored-data problems surface as JournalDamaged (never InvalidDecision), so callers can tell
    a bad request from bad storage.
    """
    record = parse_record(data, what=what)
    check_lifecycle(record, expected_id)
    result = normalized(record)
    try:
        validate_record(result, legacy_lenient=True)
    except InvalidDecision as exc:
        raise JournalDamaged(f"stored implementation decision {what} is invalid: {exc}") from exc
    return result
