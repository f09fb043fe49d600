"""Normalization applied to every record on write and on read, as the reference does it."""

from __future__ import annotations

from operator import attrgetter

from pydantic import BaseModel

from core import limits
from core.gocompat.gotime import GoTime
from core.gocompat.text import (
    all_collapsed,
    all_trimmed,
    collapse_spaces,
    fold_keys,
    go_lower,
    go_trim,
)
from core.record.models import (
    SCHEMA_VERSION,
    STATUS_COMPLETED,
    DecisionRecord,
    Option,
)
from core.record.shape import RecordShape
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
"""The top-level texts normalization trims (and the normal-form check requires trimmed)."""
_scalar_values = attrgetter(*TRIMMED_SCALARS)
_option_texts = attrgetter("id", "label", "description", "source")
_rejection_texts = attrgetter("option_id", "reason", "source")
_provenance_texts = attrgetter("options", "selection", "rationale", "summary")
_lowered_values = attrgetter("decision_kind", "risk_level", "status")


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
    update: dict[str, object] = {
        "id": go_trim(option.id),
        "label": go_trim(option.label),
        "description": go_trim(option.description),
        "pros": collapse_list(option.pros, limits.OPTION_DETAIL_ITEMS_MAX),
        "cons": collapse_list(option.cons, limits.OPTION_DETAIL_ITEMS_MAX),
        "order": option.order if option.order > 0 else position,
        "source": go_trim(option.source),
    }
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
    """The record itself when it already is normal, else a normalized copy sharing the rest.

    Why: stored records are written normalized, so reading one back almost never changes a
    field; not copying it makes the strict read of a large journal markedly cheaper. Only for
    records nobody else holds (freshly decoded ones); others go through `normalize_record`.
    """
    if is_normal(record):
        return record
    update: dict[str, object] = {name: go_trim(getattr(record, name)) for name in TRIMMED_SCALARS}
    update["schema_version"] = record.schema_version or SCHEMA_VERSION
    update["revision"] = record.revision if record.revision > 0 else 1
    created = record.created_at or now or GoTime.now()
    update["created_at"] = created
    update["updated_at"] = record.updated_at or created
    update["decision_kind"] = go_lower(go_trim(record.decision_kind))
    update["risk_level"] = go_lower(go_trim(record.risk_level))
    update["status"] = go_lower(go_trim(record.status)) or STATUS_COMPLETED
    update["domains"] = dedupe_fold(record.domains)
    update["languages"] = dedupe_fold(record.languages)
    update["tags"] = dedupe_fold(record.tags)
    update["evidence_refs"] = collapse_list(record.evidence_refs, limits.EVIDENCE_REFS_MAX)
    options = [_normalize_option(o, i + 1) for i, o in enumerate(record.options)]
    update["options"] = sorted(options, key=lambda o: o.order)
    update["rejected_reasons"] = [
        _trimmed(r, ("option_id", "reason", "source")) for r in record.rejected_reasons
    ]
    update["provenance"] = _trimmed(
        record.provenance, ("options", "selection", "rationale", "summary")
    )
    changed = _changed(record, update)
    result = record.model_copy(update=changed) if changed else record
    summary = result.summary_sentence or korean_summary(result)
    if summary != result.summary_sentence:
        result = result.model_copy(update={"summary_sentence": summary})
    return result


def is_normal(record: RecordShape) -> bool:
    """True only when `normalized` would change nothing, decided without building an update.

    Why: this is the common case of every stored read, and gathering the strings first and
    testing each group with one C-level pass costs a fraction of computing every normalized
    value and comparing. A False answer only means the full normalization runs and decides.
    """
    if not (
        record.schema_version != 0
        and record.revision > 0
        and record.created_at is not None
        and record.updated_at is not None
        and record.summary_sentence
        and record.status  # an empty status becomes "completed"
        and len(record.evidence_refs) <= limits.EVIDENCE_REFS_MAX
    ):
        return False
    trimmed = [*_scalar_values(record), *_provenance_texts(record.provenance)]
    collapsed = list(record.evidence_refs)  # each collapse_list item must be collapse-stable
    folded = [record.domains, record.languages, record.tags, record.evidence_refs]
    previous_order = 1  # orders must be positive and never decrease (sorted keeps the list)
    for option in record.options:
        if option.order < previous_order:
            return False
        previous_order = option.order
        pros, cons = option.pros, option.cons
        if len(pros) > limits.OPTION_DETAIL_ITEMS_MAX or len(cons) > limits.OPTION_DETAIL_ITEMS_MAX:
            return False
        trimmed += _option_texts(option)
        collapsed += pros
        collapsed += cons
        folded += (pros, cons)
    for rejection in record.rejected_reasons:
        trimmed += _rejection_texts(rejection)
    lowered = list(_lowered_values(record))
    return (
        all_trimmed(trimmed)
        and all_collapsed(collapsed)
        and fold_keys(lowered) == lowered
        and folds_unchanged(folded)
    )


def folds_unchanged(lists: list[list[str]]) -> bool:
    """dedupe_fold(items) == items for each list: no blank item and no two items of one list
    equal once folded; all lists are folded in one pass."""
    keys = fold_keys([item for items in lists for item in items])
    if "" in keys:
        return False
    start = 0
    for items in lists:
        end = start + len(items)
        if end - start > 1 and len(set(keys[start:end])) != end - start:
            return False
        start = end
    return True
