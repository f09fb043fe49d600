"""Applies text redaction to every free-text field of a record and merges the audit metadata,
and to every string of a JSON-like value that leaves the process (a reply, a tool result)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from core.record.fields import FREE_TEXT, OPTION_FREE_TEXT
from core.record.models import DecisionRecord, Option, RejectedReason
from core.record.redaction import EMPTY_REPORT, RedactionReport, redact_text


def free_text_updates(value: object, redact: Callable[[str], str]) -> dict[str, Any]:
    """Each free-text field `value` has (`core.record.fields.FREE_TEXT`), redacted by `redact`.

    For a record, a proposal or a draft of one (a pydantic model or a dataclass): the one
    list of what is free text, so no holder of one can forget a field.
    """
    return _updates(value, FREE_TEXT, redact)


def option_text_updates(option: object, redact: Callable[[str], str]) -> dict[str, Any]:
    """Each free-text field of one option (`OPTION_FREE_TEXT`), redacted by `redact`."""
    return _updates(option, OPTION_FREE_TEXT, redact)


def _updates(value: object, names: tuple[str, ...], redact: Callable[[str], str]) -> dict[str, Any]:
    held = _field_names(value)
    out: dict[str, Any] = {}
    for name in names:
        if name not in held:
            continue
        current = getattr(value, name)
        out[name] = (
            redact(current)
            if isinstance(current, str)
            else type(current)(redact(item) for item in current)
        )
    return out


def _field_names(value: object) -> set[str]:
    if dataclasses.is_dataclass(value):
        return {item.name for item in dataclasses.fields(value)}
    return set(getattr(type(value), "model_fields", ()))


class _Collector:
    def __init__(self) -> None:
        self.report = EMPTY_REPORT

    def text(self, value: str) -> str:
        redacted, report = redact_text(value)
        if report.redacted:
            self.report = self.report.merge(report)
        return redacted


def redact_record(record: DecisionRecord) -> DecisionRecord:
    """Returns a copy with secrets replaced; redaction flags only ever accumulate."""
    collect = _Collector()
    update = free_text_updates(record, collect.text)
    update["options"] = [_redact_option(o, collect) for o in record.options]
    update["rejected_reasons"] = [
        RejectedReason(option_id=r.option_id, reason=collect.text(r.reason), source=r.source)
        for r in record.rejected_reasons
    ]
    redacted = record.model_copy(update=update, deep=True)
    previous = RedactionReport(
        redacted=record.redaction.redacted, patterns=tuple(record.redaction.patterns)
    )
    merged = previous.merge(collect.report)
    redacted.redaction = redacted.redaction.model_copy(
        update={"redacted": merged.redacted, "patterns": list(merged.patterns)}
    )
    return redacted


def _redact_option(option: Option, collect: _Collector) -> Option:
    return option.model_copy(update=option_text_updates(option, collect.text))


def redact_json(value: Any) -> Any:
    """``value`` with every string in it redacted, keys included (as the reference's session
    sanitizer does); dicts, lists and tuples are copied, other values returned as they are."""
    if isinstance(value, str):
        return redact_text(value)[0]
    if isinstance(value, dict):
        return {redact_json(k): redact_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_json(item) for item in value)
    return value
