"""Stored records for the bulk tests: a valid base, and generated ones with odd, non-normal or
invalid values in a few fields, as the JSON files hold them."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from core.record.models import DecisionRecord

_WORDS = st.sampled_from(
    [
        "",
        " ",
        "\u3000",
        "storage",
        "Storage",
        "STORAGE",
        " storage",
        "storage\t",
        "two  words",
        "two\nwords",
        "İstanbul",
        "ǅ",
        "user",
        "User",
        " model ",
        "runtime",
        "imported",
        "llm",
        "low",
        "Medium",
        " high",
        "critical ",
        "extreme",
        "completed",
        "Completed",
        " deleted",
        "corrected",
        "sk-" + "a" * 24,
        "task-1234abcd",
        "password=hunter22",
        "opt-a",
        "opt-b",
        "opt-c",
        "opt-a\n",
        "__custom__",
        "bad id",
        "x" * 40,
        "é" * 300,
        "한" * 1100,
        "w" * 5000,
        "<>&\u2028",
    ]
)
_TEXT = _WORDS | st.text(max_size=12)
_ID = st.sampled_from(["opt-a", "opt-b", "opt-c", "opt-d", " opt-a", "OPT-A", "", "opt.a.."])


def base_raw() -> dict[str, Any]:
    """A valid stored record, as the JSON file holds it."""
    return {
        "schema_version": 1,
        "id": "decision-abc123",
        "revision": 2,
        "created_at": "2025-10-09T10:28:23.000039921Z",
        "updated_at": "2025-10-10T11:00:00+02:00",
        "session_id": "session-1",
        "project_id": "project-1",
        "project_alias": "alias",
        "workspace": "/home/dev/project",
        "domains": ["http", "storage"],
        "languages": ["python"],
        "decision_kind": "concurrency",
        "risk_level": "low",
        "problem": "Decide how to handle the queue",
        "task_fingerprint": "task-d1a3f900",
        "options": [
            {
                "id": "opt-a",
                "label": "Approach A",
                "description": "one way",
                "pros": ["fast"],
                "cons": ["risky"],
                "recommended": True,
                "order": 1,
                "source": "model",
            },
            {"id": "opt-b", "label": "Approach B", "order": 2, "source": "model"},
        ],
        "recommended_option_id": "opt-a",
        "selected_option_id": "opt-b",
        "selection_reason_raw": "simpler",
        "rejected_reasons": [{"option_id": "opt-a", "reason": "not this one", "source": "user"}],
        "summary_sentence": "A summary.",
        "evidence_refs": ["src/index.py:45"],
        "tags": ["snapshot"],
        "detector_confidence": 0.84,
        "status": "completed",
        "provenance": {"options": "model", "selection": "user", "rationale": "user"},
        "redaction": {},
    }


_STAMP = st.sampled_from(
    [
        "2025-10-09T10:28:23Z",
        "2025-10-09T10:28:23.5-07:30",
        "2024-02-31T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "2025-13-01T00:00:00Z",
        "yesterday",
        None,
    ]
)
_SOURCE = st.sampled_from(["", "model", "user", " user", "USER", "runtime\t", "llm"]) | _TEXT
_ODD_VALUE = st.one_of(st.none(), st.integers(-2, 3), st.booleans(), st.lists(_TEXT))
_TOP_FIELDS = [name for name in base_raw() if name not in ("options", "rejected_reasons")]


@st.composite
def _option(draw: st.DrawFn, option_id: str) -> dict[str, Any]:
    option: dict[str, Any] = {"id": option_id, "label": draw(_TEXT | st.just("Label"))}
    if draw(st.booleans()):
        option["description"] = draw(_TEXT)
    for name in ("pros", "cons"):
        if draw(st.booleans()):
            option[name] = draw(st.lists(_TEXT, max_size=3) | st.just(["p"] * 17))
    option["recommended"] = draw(st.booleans())
    option["order"] = draw(st.integers(-1, 4))
    option["source"] = draw(_SOURCE)
    return option


@st.composite
def raw_records(draw: st.DrawFn) -> dict[str, Any]:
    """The valid base with a few fields replaced by odd, non-normal or invalid values."""
    raw = base_raw()
    for name in draw(st.lists(st.sampled_from(_TOP_FIELDS), max_size=4, unique=True)):
        if name in ("created_at", "updated_at"):
            raw[name] = draw(_STAMP)
        elif name in ("domains", "languages", "tags", "evidence_refs"):
            raw[name] = draw(st.lists(_TEXT, max_size=4) | st.none())
        elif name == "provenance":
            raw[name] = {k: draw(_SOURCE) for k in ("options", "selection", "rationale", "summary")}
        elif name == "redaction":
            raw[name] = {"redacted": draw(st.booleans()), "patterns": draw(st.lists(_TEXT))}
        elif name == "detector_confidence":
            raw[name] = draw(st.floats(allow_nan=False, allow_infinity=False) | st.integers())
        elif name in ("schema_version", "revision"):
            raw[name] = draw(st.integers(-1, 2) | _ODD_VALUE)
        else:
            raw[name] = draw(_TEXT | _ODD_VALUE) if draw(st.booleans()) else draw(_TEXT)
    if draw(st.booleans()):
        ids = draw(st.lists(_ID, min_size=2, max_size=4) | st.lists(_ID, max_size=5))
        raw["options"] = [draw(_option(option_id)) for option_id in ids]
        raw["recommended_option_id"] = draw(st.sampled_from(["", *ids]))
        raw["selected_option_id"] = draw(st.sampled_from(["", *ids]))
    if draw(st.booleans()):
        raw["rejected_reasons"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {"option_id": _ID, "reason": _TEXT | st.just("because"), "source": _SOURCE}
                ),
                max_size=4,
            )
        )
    if draw(st.booleans()):
        raw.pop(draw(st.sampled_from(sorted(raw))))
    return raw


def records_of(raw: dict[str, Any]) -> DecisionRecord | None:
    """The record the model reads from `raw`, or None when the model refuses it."""
    try:
        return DecisionRecord.model_validate(raw)
    except ValueError:
        return None


SWEEP_VALUES = (
    "",
    " padded ",
    "UPPER",
    "sk-" + "a" * 24,
    "password=hunter22",
    "é" * 300,
    "w" * 5000,
    None,
    7,
    [" a", "A", ""],
)
