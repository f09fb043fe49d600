"""Go's compact JSON of a record, written by pydantic-core's encoder in C.

Faster variant of `core.record.codec.compact_record` for code that encodes many records: the
profile's per-record facts, the index entries of records read the strict way, the importers'
source digests and the index scan's digests. The pure-Python Go encoder is the largest cost of
computing facts over a listed journal (bench/profile_bench.py, "facts + derivation"). The Rust
encoder writes the same bytes (UTF-8 unescaped, control characters as Go writes them, shortest
float digits) except for Go's HTML-safe escapes (patched in) and integral or tiny floats and
lone surrogates, which fall back to the exact encoder. `tests/core/bulk/test_compact_json.py`
holds the two equal.
"""

from __future__ import annotations

import hashlib

from pydantic_core import PydanticSerializationError, to_json

from core.gocompat.gojson import go_html_escaped, shortest_float_is_go
from core.record.codec import compact_record
from core.record.models import DecisionRecord


def compact_bytes(record: DecisionRecord) -> bytes:
    """`compact_record(record)`, computed in C when that gives equal bytes."""
    if not shortest_float_is_go(record.detector_confidence):
        return compact_record(record)
    try:
        data = to_json(record.to_go_dict())
    except PydanticSerializationError:  # a lone surrogate: Go writes U+FFFD
        return compact_record(record)
    return go_html_escaped(data)


def record_digest(record: DecisionRecord) -> str:
    """The SHA-256 of the record's compact JSON, as the index's source hash takes it."""
    return hashlib.sha256(compact_bytes(record)).hexdigest()
