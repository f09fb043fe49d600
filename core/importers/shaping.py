"""Turns a decision as a source states it into a valid record, honestly.

Why one place for this: every source is thinner than our record (no rejection reasons, one
named approach, no reason at all, more than four options), and the store insists on 2-4
options, a selection, a reason and a rejection reason per other option. What is missing is
filled with text that says it is missing and marked `imported`; nothing here ever claims the
user's own provenance, so an imported record is never preference evidence until confirmed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from core.gocompat.gotime import GoTime
from core.gocompat.text import go_lower, go_trim
from core.importers.base import RecordItem, Skip
from core.importers.notes_sink import clip_bytes
from core.messages.wording import count
from core.record.fields import rule
from core.record.identity import ProjectIdentity, redacted_stable_id, short_stable_id
from core.record.models import SCHEMA_VERSION, DecisionRecord, Option, Provenance, RejectedReason
from core.record.redaction import redact_text
from core.record.summary import ALTERNATIVE_LABEL
from core.record.validation import is_valid_option_id, looks_sensitive
from core.store.decisions import derive_record_id

IMPORTED = "imported"
NOT_RECORDED = "(not recorded in the source)"
REASON_NOT_RECORDED = "(reason not recorded in the source)"
ALTERNATIVE_DESCRIPTION = (
    "The source names only the chosen approach; whatever else was weighed is not recorded."
)
MERGED_LABEL = "Other considered options"
ALSO_CHOSEN = "(chosen together with other options in a multi-select answer)"
AMENDED = "(not rejected: the free-text answer builds on this option)"
_SLUG = re.compile(r"[^a-z0-9]+")
_KIND = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class SourceOption:
    label: str
    description: str = ""
    recommended: bool = False
    rejection: str = ""
    pros: tuple[str, ...] = ()
    cons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceDecision:
    """A decision as read from a source.

    Args:
        importer: the source kind, for tags.
        key: the stable source key; the record's fingerprints (and so its ID) derive from it.
        chosen: index of the chosen option, or None when `custom` holds the answer.
        also_chosen: options that are part of a multi-select `custom` answer.
        only_chosen_named: the source names the chosen approach only; an explicit
            "alternatives not recorded" option is added so the record can exist.
    """

    importer: str
    key: str
    problem: str
    decision_kind: str
    options: tuple[SourceOption, ...]
    identity: ProjectIdentity
    chosen: int | None = None
    custom: str = ""
    reason: str = ""
    when: GoTime | None = None
    session_id: str = ""
    tags: tuple[str, ...] = ()
    evidence_refs: tuple[str, ...] = ()
    also_chosen: tuple[int, ...] = ()
    amended: tuple[int, ...] = ()
    only_chosen_named: bool = False


def kind_slug(text: str, default: str) -> str:
    """A decision kind from a header or category: lowercase words joined by '_'.

    Made from the redacted text: a secret lowercased into an identifier is no longer one the
    redaction rules recognise, and identifiers are never redacted afterwards.
    """
    slug = _KIND.sub("_", go_lower(go_trim(redact_text(text)[0]))).strip("_")[:64]
    return slug or default


def source_fingerprints(key: str) -> tuple[str, str]:
    """(task, evidence) fingerprints from the stable key: the same item always gets one ID."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return "task-" + short_stable_id(key), "evidence-" + digest[:32]


def _option_ids(labels: list[str]) -> list[str]:
    ids: list[str] = []
    for position, label in enumerate(labels, start=1):
        shown = redact_text(label)[0]  # as kind_slug: from the redacted label
        slug = _SLUG.sub("-", go_lower(shown)).strip("-")[:48].strip("-")
        if not slug or not is_valid_option_id(slug) or looks_sensitive(slug):
            slug = f"option-{position}"
        candidate, n = slug, 2
        while candidate in ids:
            candidate, n = f"{slug}-{n}", n + 1
        ids.append(candidate)
    return ids


def _fit_options(decision: SourceDecision) -> tuple[list[SourceOption], int | None, set[int]]:
    """At most four options: extras beyond the chosen and recommended ones are merged into one."""
    options = list(decision.options)
    chosen, also = decision.chosen, set(decision.also_chosen)
    if decision.only_chosen_named and len(options) == 1 and chosen == 0:
        options.append(SourceOption(ALTERNATIVE_LABEL, ALTERNATIVE_DESCRIPTION))
    most = rule("options").most
    if len(options) <= most:
        return options, chosen, also
    keep = [i for i, o in enumerate(options) if i == chosen or i in also or o.recommended]
    keep += [i for i in range(len(options)) if i not in keep]
    kept, merged = sorted(keep[: most - 1]), keep[most - 1 :]
    rest = [options[i] for i in merged]
    extra = SourceOption(
        MERGED_LABEL,
        "; ".join(o.label for o in rest),
        rejection="; ".join(f"{o.label}: {o.rejection or NOT_RECORDED}" for o in rest),
    )
    remap = {old: new for new, old in enumerate(kept)}
    return (
        [options[i] for i in kept] + [extra],
        remap.get(chosen) if chosen is not None else None,
        {remap[i] for i in also if i in remap},
    )


def record_from_source(decision: SourceDecision) -> RecordItem | Skip:
    """The record for a source decision, or a Skip naming why it cannot be one."""
    custom = go_trim(decision.custom)
    if decision.chosen is None and not custom:
        return Skip(decision.key, "no answer recorded in the source")
    options, chosen, also = _fit_options(decision)
    amended = set(decision.amended) if len(options) == len(decision.options) else set()
    if len(options) < rule("options").least:
        return Skip(
            decision.key,
            f"names {count(len(options), 'option')}; a decision record needs "
            f"{rule('options').span()}",
        )
    labels = [_clip(o.label, "option.label") for o in options]
    if not all(labels):
        return Skip(decision.key, "an option has no label in the source")
    ids = _option_ids(labels)
    selected = ids[chosen] if chosen is not None else ""
    recommended = next((ids[i] for i, o in enumerate(options) if o.recommended), "")
    record = DecisionRecord(
        schema_version=SCHEMA_VERSION,
        created_at=decision.when,
        session_id=_identifier("session", decision.session_id),
        project_id=decision.identity.project_id,
        project_alias=decision.identity.alias,
        workspace=decision.identity.workspace,
        workspace_hash=decision.identity.workspace_hash,
        decision_kind=decision.decision_kind,
        problem=_clip(decision.problem, "problem"),
        options=[
            Option(
                id=ids[i],
                label=labels[i],
                description=_clip(o.description or o.label, "option.description"),
                pros=_details(o.pros),
                cons=_details(o.cons),
                recommended=ids[i] == recommended,
                order=i + 1,
                source=IMPORTED,
            )
            for i, o in enumerate(options)
        ],
        recommended_option_id=recommended,
        selected_option_id=selected,
        custom_selection="" if selected else _clip(custom, "custom_selection"),
        selection_reason_raw=_clip(decision.reason, "selection_reason_raw") or REASON_NOT_RECORDED,
        rejected_reasons=[
            RejectedReason(
                option_id=ids[i],
                reason=_clip(o.rejection, "rejection_reason") or _placeholder(i, also, amended),
                source=IMPORTED,
            )
            for i, o in enumerate(options)
            if ids[i] != selected
        ],
        tags=[IMPORTED, f"import:{decision.importer}", *decision.tags],
        evidence_refs=list(decision.evidence_refs),
        provenance=Provenance(
            options=IMPORTED, selection=IMPORTED, rationale=IMPORTED, summary="runtime"
        ),
    )
    record.task_fingerprint, record.evidence_fingerprint = source_fingerprints(decision.key)
    record.id = derive_record_id(record)
    return RecordItem(decision.key, record, decision.when)


def _placeholder(index: int, also: set[int], amended: set[int]) -> str:
    if index in also:
        return ALSO_CHOSEN
    return AMENDED if index in amended else NOT_RECORDED


def _clip(text: str, name: str) -> str:
    """text cut to the byte limit of the field `name` in the field table."""
    return clip_bytes(text, rule(name).most)


def _identifier(prefix: str, value: str) -> str:
    """Identifiers that look like secrets become stable non-secret ids (the store refuses them)."""
    text = go_trim(value)[: rule("identifier").most]
    return redacted_stable_id(prefix, text) if text and looks_sensitive(text) else text


def _details(items: tuple[str, ...]) -> list[str]:
    """Pros or cons within the record's limits: at most so many, each clipped, none empty."""
    kept = [_clip(go_trim(item), "option.detail") for item in items]
    return [item for item in kept if item][: rule("option.details").most]
