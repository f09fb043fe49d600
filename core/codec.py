"""Bytes to records and back, exactly as the files are laid out on disk."""

from __future__ import annotations

import hashlib

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_json

from core.errors import InvalidDecision, JournalDamaged
from core.gojson import dumps_compact, dumps_indented, loads_strict
from core.models import DecisionRecord
from core.normalize import normalized
from core.record_shape import RecordShape
from core.text import go_trim
from core.validation import validate_record


def encode_record(record: DecisionRecord) -> bytes:
    """The file bytes: 2-space indentation, Go escaping, trailing newline."""
    return dumps_indented(record.to_go_dict()).encode("utf-8")


def compact_record(record: DecisionRecord) -> bytes:
    """Go's compact json.Marshal of the record: used for idempotency and the source hash."""
    return dumps_compact(record.to_go_dict()).encode("utf-8")


def record_digest(record: DecisionRecord) -> str:
    return hashlib.sha256(compact_bytes(record)).hexdigest()


_GO_ONLY_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))
_GO_LINE_ESCAPES = (("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))
_LINE_LEAD = "\u2028".encode()[:1]
"""The lead byte of U+2028/U+2029: one memchr rules both out before slower 3-byte searches."""


def shortest_float_is_go(value: float) -> bool:
    """Whether Go writes this nonzero float as the C encoders do (Python's repr digits).

    Both write the shortest digits in fixed notation for non-integral values from 1e-4 to
    1e16; Go writes integral values without ".0" and tiny or huge ones in its own exponent
    form. Zero is not written at all (omit-empty), so it agrees too.
    """
    return value == 0 or (1e-4 <= abs(value) < 1e16 and not value.is_integer())


def go_html_escaped(data: bytes) -> bytes:
    """Go's HTML-safe escapes applied to JSON a C encoder wrote.

    In UTF-8 these bytes never occur inside another character, and in JSON only inside strings,
    so replacing them in the whole text escapes exactly the characters Go escapes.
    """
    for raw, escaped in _GO_ONLY_ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    if _LINE_LEAD in data:
        for raw, escaped in _GO_LINE_ESCAPES:
            if raw in data:
                data = data.replace(raw, escaped)
    return data


def compact_bytes(record: DecisionRecord) -> bytes:
    """`compact_record`, computed by pydantic-core's JSON encoder when that gives equal bytes.

    Why: the source hash needs Go's compact JSON of every record, and the pure-Python Go encoder
    is the largest cost of a rebuild after reading. The Rust encoder writes the same bytes
    (UTF-8 unescaped, control characters as Go writes them, shortest float digits) except for
    Go's HTML-safe escapes (patched), integral or tiny floats and lone surrogates (those fall
    back to the exact encoder). A property test checks the equality.
    """
    if not shortest_float_is_go(record.detector_confidence):
        return compact_record(record)
    try:
        data = to_json(record.to_go_dict())
    except PydanticSerializationError:  # a lone surrogate: Go writes U+FFFD
        return compact_record(record)
    return go_html_escaped(data)


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
