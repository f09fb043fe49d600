"""`validate_record` runs every checker on every record, a plainly valid one included.

Why: the old shortcut (`_plainly_valid`) decided most records before any checker ran, so a rule
added to a checker but not to the shortcut was skipped on almost every read. Here each checker
is replaced by a spy and a valid record must reach all of them, in both modes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from core.record import validation
from core.record.normalize import normalize_record
from core.record.validation import validate_record
from tests.factories import make_record

_CHECKERS = (
    "check_decision_id",
    "check_bytes",
    "check_list",
    "check_identifier",
    "_validate_classification",
    "_validate_redaction",
    "_validate_options",
    "_check_option",
    "_validate_recommendation",
    "_validate_selection",
    "_check_source",
    "_validate_rejections",
    "_validate_lifecycle",
)


def _spy(calls: Counter[str], name: str, checker: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return checker(*args, **kwargs)

    return counted


@pytest.mark.parametrize("lenient", [False, True])
def test_a_valid_record_reaches_every_checker(
    monkeypatch: pytest.MonkeyPatch, lenient: bool
) -> None:
    calls: Counter[str] = Counter()
    for name in _CHECKERS:
        monkeypatch.setattr(validation, name, _spy(calls, name, getattr(validation, name)))
    record = normalize_record(make_record())
    validate_record(record, legacy_lenient=lenient)
    assert [name for name in _CHECKERS if not calls[name]] == []
    assert calls["_check_option"] == len(record.options)
    assert calls["check_identifier"] >= len(validation._IDENTIFIER_FIELDS)
