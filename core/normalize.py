"""Normalization applied to every record on write and on read, as the reference does it."""

from __future__ import annotations

from core import limits
from core.gotime import GoTime
from core.models import (
    SCHEMA_VERSION,
    STATUS_COMPLETED,
    DecisionRecord,
    Option,
    Provenance,
    RejectedReason,
)
from core.summary import korean_summary
from core.text import collapse_spaces, go_lower, go_trim

_SCALARS = (
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
    return option.model_copy(
        update={
            "id": go_trim(option.id),
            "label": go_trim(option.label),
            "description": go_trim(option.description),
            "pros": collapse_list(option.pros, limits.OPTION_DETAIL_ITEMS_MAX),
            "cons": collapse_list(option.cons, limits.OPTION_DETAIL_ITEMS_MAX),
            "order": option.order if option.order > 0 else position,
            "source": go_trim(option.source),
        }
    )


def normalize_record(record: DecisionRecord, *, now: GoTime | None = None) -> DecisionRecord:
    """Returns a normalized copy; the caller's object is never changed."""
    update: dict[str, object] = {name: go_trim(getattr(record, name)) for name in _SCALARS}
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
        RejectedReason(
            option_id=go_trim(r.option_id), reason=go_trim(r.reason), source=go_trim(r.source)
        )
        for r in record.rejected_reasons
    ]
    p = record.provenance
    update["provenance"] = Provenance(
        options=go_trim(p.options),
        selection=go_trim(p.selection),
        rationale=go_trim(p.rationale),
        summary=go_trim(p.summary),
    )
    update["redaction"] = record.redaction.model_copy(deep=True)
    normalized = record.model_copy(update=update)
    if not normalized.summary_sentence:
        normalized.summary_sentence = korean_summary(normalized)
    return normalized
