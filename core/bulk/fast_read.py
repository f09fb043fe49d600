"""The strict read of a bulk build, decoded in C by msgspec, with the pydantic path as the judge.

Faster variant of `core.record.codec.decode_stored_record` (and `codec.compact_record` of its
result) for bulk builds. Why: a first index or profile build reads every record, and the
pydantic read (parse, model validation, the Go encoder for the digest) costs several times
reading and parsing the file. msgspec decodes the bytes straight into typed structs that refuse
unknown fields and wrong types, and encodes them back in field order, both in C.

A record is accepted here only when the strict path would accept it unchanged and give the same
compact bytes: the same lifecycle checks, timestamps that format back to their own text, a
record `normalized` leaves as it is, and `validate_record`. Two tiers decide that:

* the checked view (`core.bulk.record_view`), whose types hold the format's sizes, counts, listed
  words and id patterns, so only the rules that relate fields remain to test here
  (`_checked_accepted`);
* for a record outside the checked view's (sufficient, not exact) limits, the plain view, on
  which `check_lifecycle`, `core.bulk.normal_form.is_normal` and `validate_record` itself run.

Anything else (a null, a lone surrogate, an integral or tiny float, a record that is not normal
or not valid) returns None, and the caller reads that file the strict way, which then decides
and words any error. `tests/core/bulk/test_fast_read.py` and `tests/core/bulk/test_record_view.py`
hold the two reads equal.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from operator import attrgetter

import msgspec

from core.bulk.normal_form import all_collapsed, all_trimmed, folds_unchanged, is_normal
from core.bulk.record_view import (
    CheckedOptionView,
    CheckedRecordView,
    RecordView,
    canonical_time,
    plain_view,
)
from core.errors import InvalidDecision, JournalDamaged
from core.gocompat.gojson import go_html_escaped, shortest_float_is_go
from core.gocompat.text import fold_keys, go_trim
from core.record.codec import check_lifecycle
from core.record.fields import rule
from core.record.models import SOURCES, STATUS_DELETED
from core.record.normalize import TRIMMED_SCALARS
from core.record.redaction import none_sensitive
from core.record.shape import OptionShape, RecordShape, StoredRead
from core.record.validation import (
    PROVENANCE_FIELDS,
    fits_bytes,
    looks_sensitive,
    validate_record,
)

_CHECKED_DECODER = msgspec.json.Decoder(CheckedRecordView)
_ENCODER = msgspec.json.Encoder()
_ONE_AS_GO = b'"detector_confidence":1,'


def _times_canonical(view: RecordView) -> bool:
    """Every timestamp present is written as Go writes it (updated_at often repeats created_at:
    the same text is not looked at twice)."""
    created, updated, deleted = view.created_text, view.updated_text, view.deleted_text
    return (
        (created is None or canonical_time(created) is not None)
        and (updated is None or updated == created or canonical_time(updated) is not None)
        and (deleted is None or canonical_time(deleted) is not None)
    )


def _compact(view: RecordView) -> bytes | None:
    """Go's compact JSON of the record (`codec.compact_record`), or None when it may differ.

    msgspec leaves out a default only when it is the very default object, so a decoded zero
    confidence is written and is taken out here, as Go's omit-empty does; 1.0 is written as
    Go's 1. Other values are kept only where both write the same digits.
    """
    value = view.detector_confidence
    data = _ENCODER.encode(view)
    if value == 0:
        data = data.replace(_confidence_text(value), b"", 1)
    elif value == 1.0:
        data = data.replace(_confidence_text(value), _ONE_AS_GO, 1)
    elif not shortest_float_is_go(value):
        return None
    return go_html_escaped(data)


def _confidence_text(value: float) -> bytes:
    return b'"detector_confidence":' + _ENCODER.encode(value) + b","


def _accepted(view: RecordView, expected_id: str) -> bool:
    """The strict read's own checks, for a record the checked view refused."""
    try:
        check_lifecycle(view, expected_id)
    except JournalDamaged:
        return False
    if not (_times_canonical(view) and is_normal(view)):
        return False
    try:
        validate_record(view, legacy_lenient=True)
    except InvalidDecision:
        return False
    return True


# What the checked view leaves to Python: texts that must be trimmed or collapsed, identifiers
# that must not look sensitive, and the rules that relate fields to each other.
_TRIMMED_BY_CHECKS = ("id", "recommended_option_id", "selected_option_id")
"""Trimmed already: the id by its pattern, the other two by being a listed option's id."""
_TRIMMED_SCALARS = attrgetter(*(n for n in TRIMMED_SCALARS if n not in _TRIMMED_BY_CHECKS))
_REPEATING_IDENTIFIERS = attrgetter(
    "session_id", "feature_id", "goal_id", "edit_loop_id", "project_id", "workspace_hash"
)
"""Shared by many records of a session or project: their verdicts are cached."""
_OWN_IDENTIFIERS = attrgetter("id", "task_fingerprint", "evidence_fingerprint")
"""Different in every record: asked in one search (see `_identifiers_plain`)."""


def _checked_accepted(view: CheckedRecordView, expected_id: str) -> bool:
    """Faster variant of `check_lifecycle`, `is_normal` and `validate_record(legacy_lenient=True)`
    for a record the checked view decoded: whether the strict read accepts it, unchanged.

    The checked view's types already hold every size, count, listed word and identifier
    pattern; the listed option, source and decision ids are trimmed by their patterns, and the
    selected, recommended and rejected ids by being option ids. So this tests the rest:
    tests/core/bulk/test_record_view.py holds the verdicts equal at every rule's edge,
    tests/core/bulk/test_fast_read.py on generated, edited and odd records.
    """
    options = view.options
    ids = [option.id for option in options]
    return (
        view.id.lower() == expected_id.lower()
        and _required_present(view)
        and _times_canonical(view)
        and (view.status == STATUS_DELETED) == (view.deleted_text is not None)
        and _kind_plain(view.decision_kind)
        and len(set(ids)) == len(ids)
        and _options_plain(options)
        and _recommendation_consistent(view, options)
        and _selection_consistent(view, ids)
        and _texts_plain(view)
        and _identifiers_plain(view, ids)
    )


_SOURCE_SET = frozenset(SOURCES)
_provenance_values = attrgetter(*PROVENANCE_FIELDS)


def _recommendation_consistent(r: RecordShape, options: Sequence[OptionShape]) -> bool:
    """At most one flagged option, and recommended_option_id names exactly that one."""
    flagged = [option.id for option in options if option.recommended]
    recommended = r.recommended_option_id
    return flagged == ([recommended] if recommended else [])


def _selection_consistent(r: RecordShape, ids: list[str]) -> bool:
    """Exactly one of a listed or custom choice, a reason, and a rejection for every other
    option (its id listed, not the selected one, once, with a reason and a known source)."""
    selected = r.selected_option_id
    custom = go_trim(r.custom_selection)
    if (
        bool(selected) == bool(custom)
        or (selected and selected not in ids)
        or not go_trim(r.selection_reason_raw)
        or not _SOURCE_SET.issuperset(_provenance_values(r.provenance))
    ):
        return False
    rejected: set[str] = set()
    reason_max = rule("rejection_reason").most
    for rejection in r.rejected_reasons:
        option_id, reason = rejection.option_id, rejection.reason
        if (
            option_id not in ids
            or option_id == selected
            or option_id in rejected
            or not go_trim(reason)
            or not fits_bytes(reason, reason_max)
            or rejection.source not in _SOURCE_SET
        ):
            return False
        rejected.add(option_id)
    return len(rejected) + (selected in ids) == len(ids)


def _required_present(view: CheckedRecordView) -> bool:
    """Fields that must not be empty: msgspec checks a type's limits only on values present in
    the file, never on a default it fills in for a missing field."""
    return bool(
        view.schema_version
        and view.revision
        and view.created_text is not None
        and view.updated_text is not None
        and view.status
        and view.problem
        and view.decision_kind
        and view.selection_reason_raw
        and view.summary_sentence
        and len(view.options) >= rule("options").least
        and all(rejection.reason for rejection in view.rejected_reasons)
    )


@functools.lru_cache(maxsize=4096)
def _kind_plain(kind: str) -> bool:
    """Normal (trimmed, lowercase) and valid: not sensitive-looking (kinds repeat: cached)."""
    return fold_keys([kind]) == [kind] and not looks_sensitive(kind)


def _options_plain(options: Sequence[CheckedOptionView]) -> bool:
    """Orders are positive and never decrease (normalization sorts by order), and labels are
    present and fit in bytes."""
    previous = 1
    label_max = rule("option.label").most
    for option in options:
        if option.order < previous:
            return False
        previous = option.order
        label = option.label
        if not (label and fits_bytes(label, label_max)):
            return False
    return True


def _texts_plain(view: CheckedRecordView) -> bool:
    """Free texts trimmed, list items collapsed, and no list holding an item twice (folded)."""
    trimmed = list(_TRIMMED_SCALARS(view))
    collapsed = list(view.evidence_refs)
    folded = [view.domains, view.languages, view.tags, view.evidence_refs]
    for option in view.options:
        trimmed += (option.label, option.description)
        collapsed += option.pros
        collapsed += option.cons
        folded += (option.pros, option.cons)
    trimmed += [rejection.reason for rejection in view.rejected_reasons]
    return all_trimmed(trimmed) and all_collapsed(collapsed) and folds_unchanged(folded)


def _identifiers_plain(view: CheckedRecordView, option_ids: list[str]) -> bool:
    """No identifier, option id or redaction pattern looks like a secret.

    Why two ways: a verdict cache answers repeated values at once, but a record's own ids
    would only fill it; those are joined into one search, which costs about what one
    uncached verdict does.
    """
    own = [*_OWN_IDENTIFIERS(view), *view.redaction.patterns]
    repeating = [*_REPEATING_IDENTIFIERS(view), *option_ids]
    return (none_sensitive(own) or not any(map(looks_sensitive, filter(None, own)))) and not any(
        map(looks_sensitive, filter(None, repeating))
    )


def _decoded(data: bytes, expected_id: str) -> RecordView | None:
    """The checked view when the record meets its rules, else the plain view after the full
    checks, else None."""
    try:
        checked = _CHECKED_DECODER.decode(data)
    except msgspec.DecodeError:
        pass  # malformed, or merely outside the checked limits: the plain view decides
    else:
        if _checked_accepted(checked, expected_id):
            return checked
    try:
        view = plain_view(data)
    except msgspec.DecodeError:
        return None
    return view if _accepted(view, expected_id) else None


def fast_read(data: bytes, expected_id: str) -> StoredRead | None:
    """The record in `data` with its compact bytes, or None: then read it the strict way."""
    view = _decoded(data, expected_id)
    if view is None:
        return None
    compact = _compact(view)
    return None if compact is None else StoredRead(view, compact)
