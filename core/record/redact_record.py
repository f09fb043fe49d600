"""Applies text redaction to every free-text field of a record and merges the audit metadata,
and to every string of a JSON-like value that leaves the process (a reply, a tool result)."""

from __future__ import annotations

from typing import Any

from core.record.models import DecisionRecord, Option, RejectedReason
from core.record.redaction import EMPTY_REPORT, RedactionReport, redact_text

_TEXT_FIELDS = (
    "problem",
    "project_alias",
    "workspace",
    "custom_selection",
    "selection_reason_raw",
    "summary_sentence",
)
_LIST_FIELDS = ("domains", "languages", "tags", "evidence_refs")


class _Collector:
    def __init__(self) -> None:
        self.report = EMPTY_REPORT

    def text(self, value: str) -> str:
        redacted, report = redact_text(value)
        if report.redacted:
            self.report = self.report.merge(report)
        return redacted

    def texts(self, values: list[str]) -> list[str]:
        return [self.text(v) for v in values]


def redact_record(record: DecisionRecord) -> DecisionRecord:
    """Returns a copy with secrets replaced; redaction flags only ever accumulate."""
    collect = _Collector()
    update: dict[str, object] = {name: collect.text(getattr(record, name)) for name in _TEXT_FIELDS}
    for name in _LIST_FIELDS:
        update[name] = collect.texts(getattr(record, name))
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
    return option.model_copy(
        update={
            "label": collect.text(option.label),
            "description": collect.text(option.description),
            "pros": collect.texts(option.pros),
            "cons": collect.texts(option.cons),
        }
    )


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
