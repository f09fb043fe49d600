"""Normalization applied to every record on write and on read, as the reference does it."""

from __future__ import annotations

from pydantic import BaseModel

from core.gocompat.gotime import GoTime
from core.gocompat.text import collapse_spaces, go_lower, go_trim
from core.record.fields import rule
from core.record.models import (
    SCHEMA_VERSION,
    STATUS_COMPLETED,
    DecisionRecord,
    Option,
)
from core.record.summary import korean_summary

TRIMMED_SCALARS = (
    "id",
    "session_id",
    "feature_id",
    "goal_id",
    "edit_loop_id",
    "project_id",
    "project_alias",
    "workspace",
    "workspace_hash",
    "problem",
    "task_fingerprint",
    "evidence_fingerprint",
    "recommended_option_id",
    "selected_option_id",
    "custom_selection",
    "selection_reason_raw",
    "summary_sentence",
)
"""The top-level texts normalization trims."""
OPTION_TRIMMED = ("id", "label", "description", "source")
"""An option's texts normalization trims (its pros and cons are collapsed)."""
REJECTION_TRIMMED = ("option_id", "reason", "source")
PROVENANCE_TRIMMED = ("options", "selection", "rationale", "summary")
LOWERED = ("decision_kind", "risk_level", "status")
"""The words normalization trims and lowercases."""


def dedupe_fold(items: list[str]) -> list[str]:
    """Drops blanks and case-insensitive duplicates, keeping the first spelling."""
    seen: set[str] = set()
    out = []
    for item in items:
        key = go_lower(go_trim(item))
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out


def collapse_list(items: list[str], limit: int) -> list[str]:
    """Collapses whitespace, drops blanks and duplicates; over the limit the last items win."""
    deduped = dedupe_fold([collapse_spaces(item) for item in items])
    return deduped[-limit:] if len(deduped) > limit else deduped


def _normalize_option(option: Option, position: int) -> Option:
    """The option itself when it is already normal, else a normalized copy."""
    update: dict[str, object] = {name: go_trim(getattr(option, name)) for name in OPTION_TRIMMED}
    details_max = rule("option.details").most
    update["pros"] = collapse_list(option.pros, details_max)
    update["cons"] = collapse_list(option.cons, details_max)
    update["order"] = option.order if option.order > 0 else position
    changed = _changed(option, update)
    return option.model_copy(update=changed) if changed else option


def _changed(model: BaseModel, update: dict[str, object]) -> dict[str, object]:
    return {name: value for name, value in update.items() if value != getattr(model, name)}


def _trimmed(model: BaseModel, names: tuple[str, ...]) -> BaseModel:
    changed = _changed(model, {name: go_trim(getattr(model, name)) for name in names})
    return model.model_copy(update=changed) if changed else model


def normalize_record(record: DecisionRecord, *, now: GoTime | None = None) -> DecisionRecord:
    """Returns a normalized copy; the caller's object is never changed."""
    return normalized(record.model_copy(deep=True), now=now)


def normalized(record: DecisionRecord, *, now: GoTime | None = None) -> DecisionRecord:
    """The record itself when normalizing changes nothing, else a normalized copy sharing the rest.

    Why: stored records are written normalized, so reading one back almost never changes a
    field, and an unchanged record is not copied. Only for records nobody else holds (freshly
    decoded ones); others go through `normalize_record`.
    """
    update: dict[str, object] = {name: go_trim(getattr(record, name)) for name in TRIMMED_SCALARS}
    update["schema_version"] = record.schema_version or SCHEMA_VERSION
    update["revision"] = record.revision if record.revision > 0 else 1
    created = record.created_at or now or GoTime.now()
    update["created_at"] = created
    update["updated_at"] = record.updated_at or created
    update.update({name: go_lower(go_trim(getattr(record, name))) for name in LOWERED})
    update["status"] = update["status"] or STATUS_COMPLETED
    update["domains"] = dedupe_fold(record.domains)
    update["languages"] = dedupe_fold(record.languages)
    update["tags"] = dedupe_fold(record.tags)
    update["evidence_refs"] = collapse_list(record.evidence_refs, rule("evidence_refs").most)
    options = [_normalize_option(o, i + 1) for i, o in enumerate(record.options)]
    update["options"] = sorted(options, key=lambda o: o.order)
    update["rejected_reasons"] = [_trimmed(r, REJECTION_TRIMMED) for r in record.rejected_reasons]
    update["provenance"] = _trimmed(record.provenance, PROVENANCE_TRIMMED)
    changed = _changed(record, update)
    result = record.model_copy(update=changed) if changed else record
    summary = result.summary_sentence or korean_summary(result)
    if summary != result.summary_sentence:
        result = result.model_copy(update={"summary_sentence": summary})
    return result
