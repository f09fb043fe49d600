"""User corrections to a recorded decision: only what the spec allows, with change detection.

Selection or rationale changes set user provenance and let the store regenerate the summary;
metadata-only changes keep a curated summary; a correction that changes nothing is refused so
no empty revision is ever written.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import InvalidDecision, NoChanges
from core.gocompat.text import go_lower, go_trim, utf8_len
from core.record.fields import risk_problem, rule
from core.record.models import RISK_LEVELS, DecisionRecord, RejectedReason
from core.record.normalize import dedupe_fold


@dataclass(frozen=True, slots=True)
class Correction:
    """Fields left as None are not touched."""

    selected_option_id: str | None = None
    custom_selection: str | None = None
    selection_reason: str | None = None
    rejected_reasons: dict[str, str] | None = None
    tags: list[str] | None = None
    domains: list[str] | None = None
    decision_kind: str | None = None
    risk_level: str | None = None
    project_alias: str | None = None
    provenance_source: str = "user"

    def is_empty(self) -> bool:
        return all(
            getattr(self, name) is None
            for name in (
                "selected_option_id",
                "custom_selection",
                "selection_reason",
                "rejected_reasons",
                "tags",
                "domains",
                "decision_kind",
                "risk_level",
                "project_alias",
            )
        )


def precheck(correction: Correction) -> None:
    """Request-level checks before any lock is taken."""
    if correction.is_empty():
        raise NoChanges("decision correction requires at least one changed field")
    if go_trim(correction.selected_option_id or "") and go_trim(correction.custom_selection or ""):
        raise InvalidDecision(
            "decision correction cannot select a listed and custom option together",
            field="custom_selection",
        )
    if correction.decision_kind is not None:
        kind, limit = go_trim(correction.decision_kind), rule("decision_kind")
        if not kind or not limit.fits(utf8_len(kind)):
            raise InvalidDecision(
                f"decision_kind must be {limit.span()}",
                field="decision_kind",
                limit=limit.most,
            )
    risk = correction.risk_level
    if risk is not None and go_lower(go_trim(risk)) not in RISK_LEVELS:
        raise InvalidDecision(f"risk_level {risk_problem(risk)}", field="risk_level")


def _clean_list(values: list[str]) -> list[str]:
    return dedupe_fold([go_trim(v) for v in values if go_trim(v)])


def apply_correction(record: DecisionRecord, correction: Correction) -> None:
    """Mutates `record` in place (the store hands a private copy); raises NoChanges."""
    selection_changed = _apply_selection(record, correction)
    changed_judgment = _apply_rationales(record, correction, selection_changed)
    changed_judgment |= selection_changed
    changed_meta = _apply_metadata(record, correction)
    if not changed_judgment and not changed_meta:
        raise NoChanges("decision correction does not change the record")
    if changed_judgment:
        record.summary_sentence = ""
        record.provenance.summary = "runtime"


def _apply_selection(record: DecisionRecord, correction: Correction) -> bool:
    changed = False
    selected = go_trim(correction.selected_option_id or "")
    custom = go_trim(correction.custom_selection or "")
    if selected and selected != record.selected_option_id:
        record.selected_option_id, record.custom_selection = selected, ""
        changed = True
    if custom and custom != record.custom_selection:
        record.custom_selection, record.selected_option_id = custom, ""
        changed = True
    if changed:
        record.provenance.selection = correction.provenance_source
    return changed


def _apply_rationales(
    record: DecisionRecord, correction: Correction, selection_changed: bool
) -> bool:
    changed = False
    if correction.selection_reason is not None:
        reason = go_trim(correction.selection_reason)
        if reason != record.selection_reason_raw:
            record.selection_reason_raw = reason
            changed = True
    if correction.rejected_reasons is not None or selection_changed:
        given = correction.rejected_reasons or {}
        wanted = _rejections_for(record, given, correction.provenance_source)
        current = [(r.option_id, r.reason) for r in record.rejected_reasons]
        if [(r.option_id, r.reason) for r in wanted] != current:
            record.rejected_reasons = wanted
            changed = True
    if changed:
        record.provenance.rationale = correction.provenance_source
    return changed


def _rejections_for(
    record: DecisionRecord, reasons: dict[str, str], source: str
) -> list[RejectedReason]:
    """Keeps the option order; reasons not given stay as they were for still-rejected options."""
    previous = {r.option_id: r.reason for r in record.rejected_reasons}
    out = []
    for option in record.options:
        if option.id == record.selected_option_id:
            continue
        reason = go_trim(reasons.get(option.id, previous.get(option.id, "")))
        out.append(RejectedReason(option_id=option.id, reason=reason, source=source))
    unknown = sorted(set(reasons) - {o.id for o in record.options})
    if unknown:
        raise InvalidDecision(f"rejected option {unknown[0]!r} is not present", field="reject")
    return out


def _apply_metadata(record: DecisionRecord, correction: Correction) -> bool:
    changed = False
    if correction.tags is not None and _clean_list(correction.tags) != record.tags:
        record.tags = _clean_list(correction.tags)
        changed = True
    if correction.domains is not None and _clean_list(correction.domains) != record.domains:
        record.domains = _clean_list(correction.domains)
        changed = True
    for name in ("decision_kind", "risk_level"):
        value = getattr(correction, name)
        if value is not None and go_lower(go_trim(value)) != getattr(record, name):
            setattr(record, name, go_lower(go_trim(value)))
            changed = True
    if correction.project_alias is not None:
        alias = go_trim(correction.project_alias)
        if alias != record.project_alias:
            record.project_alias = alias
            changed = True
    return changed
