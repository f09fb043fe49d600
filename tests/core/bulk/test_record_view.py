"""The checked view of bulk reads (`core.bulk.record_view`, `core.bulk.fast_read`) at every rule's
edge.

Why: the checked view decides most reads of a large journal from its types and a few Python
tests. It may refuse a valid record (its limits are sufficient, not exact), but it must never
accept a record the strict read refuses or would normalize. Random records are mostly invalid
in many ways at once, so here a valid record is changed at one rule's boundary (or a few at
once), on both sides of it, and every case must read as the strict read reads it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, get_args

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import limits
from core.bulk.fast_read import fast_read
from core.bulk.record_view import (
    CheckedOptionView,
    CheckedRecordView,
    OptionView,
    RecordView,
    RiskLevel,
    Source,
    Status,
)
from core.gocompat.gotime import GoTime
from core.record.codec import encode_record
from core.record.models import RISK_LEVELS, SOURCES, STATUSES
from core.record.normalize import normalize_record
from tests.core.bulk.support.raw_records import base_raw
from tests.core.bulk.support.reads import assert_fast_agrees
from tests.factories import make_record

Raw = dict[str, Any]
EXPECTED_ID = "decision-abc123"
_SPACES = (" ", "\t", "\n", "\x0b", "\xa0", "\x85", "\u2009", "\u3000", "\u2028", "\x1c")
"""Go's spaces (plain, control, Latin-1 and wide) and U+001C, which Go does not trim."""
_TRIMMED = (
    "session_id",
    "project_id",
    "project_alias",
    "workspace",
    "problem",
    "task_fingerprint",
    "selection_reason_raw",
    "summary_sentence",
)


def _parent(raw: Raw, path: str) -> tuple[Any, str]:
    """The object holding the field `path` names (`options.0.label` reaches into lists), and
    the field's own name; None when an earlier change left the parent out."""
    *parents, last = path.split(".")
    target: Any = raw
    for part in parents:
        if part.isdigit():
            target = (
                target[int(part)] if isinstance(target, list) and len(target) > int(part) else None
            )
        else:
            target = target.get(part) if isinstance(target, dict) else None
    return target, last


def _set(path: str, value: Any) -> Callable[[Raw], None]:
    """A change that sets one field (none when an earlier change dropped its parent)."""

    def change(raw: Raw) -> None:
        target, last = _parent(raw, path)
        if isinstance(target, dict):
            target[last] = value

    change.__name__ = f"{path}={value!r:.40}"
    return change


def _drop(path: str) -> Callable[[Raw], None]:
    """A change that leaves a field out of the file (its default then stands in)."""

    def change(raw: Raw) -> None:
        target, last = _parent(raw, path)
        if isinstance(target, dict):
            target.pop(last, None)

    change.__name__ = f"drop {path}"
    return change


def _text_edges(path: str, limit: int) -> list[Callable[[Raw], None]]:
    """Just inside and just outside a byte limit, in ASCII and in two-byte characters, and
    at the checked view's own limit (a quarter of it, in characters)."""
    quarter = limit // 4
    return [
        _set(path, "a" * quarter),
        _set(path, "a" * (quarter + 1)),
        _set(path, "a" * limit),
        _set(path, "a" * (limit + 1)),
        _set(path, "é" * (limit // 2)),
        _set(path, "é" * (limit // 2 + 1)),
    ]


def _changes() -> list[Callable[[Raw], None]]:
    changes: list[Callable[[Raw], None]] = [_drop(name) for name in base_raw()]
    changes += [_drop(f"options.1.{name}") for name in base_raw()["options"][0]]
    changes += [_drop(f"rejected_reasons.0.{name}") for name in ("option_id", "reason", "source")]
    changes += [_drop("provenance.selection"), _drop("redaction.patterns")]
    for name in (
        *_TRIMMED,
        "options.0.label",
        "options.0.description",
        "rejected_reasons.0.reason",
    ):
        for space in _SPACES:
            changes += [
                _set(name, space + "x"),
                _set(name, "x" + space),
                _set(name, "a" + space + "b"),
            ]
        changes += [_set(name, "a  b"), _set(name, ""), _set(name, " ")]
    for name in ("options.0.pros", "evidence_refs", "tags", "domains"):
        for space in _SPACES:
            changes += [_set(name, [space + "x"]), _set(name, ["a" + space + "b"])]
        changes += [
            _set(name, ["a  b"]),
            _set(name, ["x", "X"]),
            _set(name, [""]),
            _set(name, ["ǅ", "ǆ"]),
        ]
        changes += [_set(name, ["x"] * 2), _set(name, [str(i) for i in range(65)])]
    changes += _text_edges("problem", limits.PROBLEM_MAX)
    changes += _text_edges("selection_reason_raw", limits.REASON_MAX)
    changes += _text_edges("custom_selection", limits.CUSTOM_SELECTION_MAX)
    changes += _text_edges("options.0.label", limits.OPTION_LABEL_MAX)
    changes += _text_edges("options.1.description", limits.OPTION_DESCRIPTION_MAX)
    changes += _text_edges("rejected_reasons.0.reason", limits.REASON_MAX)
    changes += _text_edges("session_id", limits.IDENTIFIER_MAX)
    changes += _text_edges("decision_kind", limits.KIND_MAX)
    changes += [_set("tags", ["a" * 129]), _set("tags", ["é" * 256]), _set("tags", ["é" * 257])]
    changes += [_set("options.0.pros", ["p"] * 16), _set("options.0.pros", ["p"] * 17)]
    for value in ("Concurrency", " concurrency", "secret", "legacy-unclassified", "İ", "ß"):
        changes.append(_set("decision_kind", value))
    for name in ("status", "risk_level", "options.0.source", "provenance.selection"):
        for value in ("", "USER", "Low", "Completed", "deleted", "user ", "llm"):
            changes.append(_set(name, value))
    changes += [_set("deleted_at", "2025-10-11T00:00:00Z"), _set("deleted_at", None)]
    changes += [_set("created_at", "2025-10-09T10:28:23.500Z"), _set("updated_at", "x")]
    changes += [_set("created_at", "2024-02-30T00:00:00Z"), _set("updated_at", None)]
    for value in ("password=hunter22", "sk-" + "a" * 24, "task-" + "b" * 24, "ghp_x", "akia"):
        for name in ("session_id", "task_fingerprint", "evidence_fingerprint", "workspace_hash"):
            changes.append(_set(name, value))
        changes += [_set("options.1.id", value), _set("redaction", {"patterns": [value]})]
    for value in ("Decision-ABC123", "decision-abc123.", "decision..abc", ".", "decision abc"):
        changes.append(_set("id", value))
    for value in ("__custom__", "a b", "", "opt-a", "x" * 128, "x" * 129, "opt-b\n", "ÿ"):
        changes.append(_set("options.1.id", value))
    changes += [_set("options.1.recommended", True), _set("options.0.recommended", False)]
    changes += [_set("recommended_option_id", value) for value in ("", "opt-b", "opt-c")]
    changes += [_set("selected_option_id", value) for value in ("", "opt-a", "opt-c", " opt-b")]
    changes += [_set("custom_selection", value) for value in ("my own", " ", "")]
    changes += [
        _set("rejected_reasons", []),
        _set("rejected_reasons", [{"option_id": "opt-b", "reason": "no", "source": "user"}]),
        _set("rejected_reasons", [{"option_id": "opt-a", "reason": "no"}] * 2),
        _set("rejected_reasons", [{"option_id": "opt-c", "reason": "no"}]),
    ]
    changes += [_set("options.0.order", value) for value in (0, 2, 3, -1)]
    changes += [_set("options.1.order", value) for value in (0, 1, 2, 5)]
    changes += [_set("detector_confidence", value) for value in (0, 1, 1.0, 0.5, -0.1, 1.1, 1e-7)]
    changes += [_set("revision", value) for value in (0, 1, -1)]
    changes += [_set("schema_version", value) for value in (0, 2)]
    changes += [_set("redaction", {"redacted": True, "patterns": ["aws", "AWS "]})]
    changes += [
        _set("redaction", {"patterns": ["p"] * 65}),
        _set("redaction", {"patterns": ["p" * 129]}),
    ]
    return changes


CHANGES = _changes()


def _changed(*changes: Callable[[Raw], None]) -> bytes:
    raw = copy.deepcopy(base_raw())
    for change in changes:
        change(raw)
    return json.dumps(raw, ensure_ascii=False).encode()


def test_each_change_at_a_rule_edge_reads_as_the_strict_read() -> None:
    checked = plain = 0
    for change in CHANGES:
        data = _changed(change)
        if assert_fast_agrees(data, EXPECTED_ID):
            record = fast_read(data, EXPECTED_ID)
            assert record is not None
            checked += isinstance(record.record, CheckedRecordView)
            plain += not isinstance(record.record, CheckedRecordView)
    # Both tiers must be exercised, or this sweep tests less than it claims.
    assert checked > 50 and plain > 10, (checked, plain)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(CHANGES), min_size=2, max_size=4))
def test_changes_combined_read_as_the_strict_read(changes: list[Callable[[Raw], None]]) -> None:
    assert_fast_agrees(_changed(*changes), EXPECTED_ID)


def test_records_the_store_writes_take_the_checked_view() -> None:
    """The common case must stay on the checked view, or bulk builds lose most of its speed."""
    now = GoTime(1_780_000_000_123_456_789, 3600)
    for overrides in ({}, {"tags": ["x<y", "a&b"]}, {"status": "deleted", "deleted_at": now}):
        record = normalize_record(make_record(**overrides), now=now)
        read = fast_read(encode_record(record), record.id)
        assert read is not None and isinstance(read.record, CheckedRecordView)


def test_the_checked_words_are_the_model_words() -> None:
    assert get_args(Source) == SOURCES
    assert get_args(RiskLevel) == RISK_LEVELS
    assert get_args(Status) == ("", *STATUSES)


def test_checked_and_plain_views_share_field_order_names_and_defaults() -> None:
    """The same order and defaults make both encode a record to the same compact bytes."""
    assert CheckedRecordView.__struct_fields__ == RecordView.__struct_fields__
    assert CheckedRecordView.__struct_encode_fields__ == RecordView.__struct_encode_fields__
    assert _defaults(CheckedRecordView) == _defaults(RecordView)
    assert _defaults(CheckedOptionView) == _defaults(OptionView)


def _defaults(view: type[msgspec.Struct]) -> list[bytes]:
    """Each field's default as JSON (a factory is called: its objects are distinct)."""
    return [
        msgspec.json.encode(getattr(default, "factory", lambda d=default: d)())
        for default in view.__struct_defaults__
    ]
