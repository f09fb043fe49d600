"""What a history diff says to a reader: field labels in words and the words that changed.

Why apart from the dialog: the labels and the word-level comparison are plain functions of two
revisions, tested without widgets, and the dialog only paints what they return. A field path
such as `rejected_reasons[sqlite].reason` becomes "Why not “SQLite database”"; an option id in
`selected_option_id` is shown as the option's label; times are local. Inside a text the
changed words are marked (difflib over words and the spaces between them), so a one-word
correction in a long rationale is found at a glance.
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass

from app.gui.journal.formatting import NO_VALUE, display_time_precise
from core.gocompat.gotime import GoTime
from core.record.models import DecisionRecord

FIELD_LABELS = {
    "schema_version": "Schema version",
    "id": "Decision ID",
    "revision": "Revision",
    "created_at": "Created",
    "updated_at": "Updated",
    "deleted_at": "Deleted at",
    "session_id": "Session",
    "project_id": "Project ID",
    "project_alias": "Project alias",
    "workspace": "Workspace",
    "domains": "Domains",
    "languages": "Languages",
    "decision_kind": "Decision kind",
    "risk_level": "Risk",
    "problem": "Problem",
    "recommended_option_id": "Recommended approach",
    "selected_option_id": "Selected approach",
    "custom_selection": "Custom approach",
    "selection_reason_raw": "Why it was selected",
    "summary_sentence": "Summary (stored Korean sentence)",
    "evidence_refs": "Evidence",
    "tags": "Tags",
    "detector_confidence": "Detector confidence",
    "status": "Status",
    "task_fingerprint": "Task fingerprint",
    "evidence_fingerprint": "Evidence fingerprint",
    "provenance.options": "Who wrote the options",
    "provenance.selection": "Who made the selection",
    "provenance.rationale": "Who wrote the rationale",
    "provenance.summary": "Who wrote the summary",
    "redaction.redacted": "Redacted",
    "redaction.patterns": "Redaction patterns",
}
OPTION_PARTS = {
    "id": "id",
    "label": "name",
    "description": "description",
    "recommended": "recommended",
    "pros": "pros",
    "cons": "cons",
}
REJECTION_PARTS = {"reason": "", "source": "written by", "option_id": "option id"}
_ITEM = re.compile(r"^(?P<list>options|rejected_reasons)\[(?P<key>[^\]]+)\]\.(?P<part>.+)$")
_TIME_FIELDS = ("created_at", "updated_at", "deleted_at")
_OPTION_FIELDS = ("selected_option_id", "recommended_option_id")
_WORDS = re.compile(r"\s+|\w+(?:['’-]\w+)*|[^\w\s]")
"""Runs of space, words (with inner apostrophes and hyphens) and single punctuation marks."""


def option_name(option_id: str, *records: DecisionRecord) -> str:
    """An option's label from the first revision that lists it, else its id."""
    for record in records:
        label = record.option_label(option_id)
        if label:
            return label
    return option_id


def field_label(path: str, *records: DecisionRecord) -> str:
    """A flattened field path in words; an unknown path is shown as it is."""
    if path in FIELD_LABELS:
        return FIELD_LABELS[path]
    match = _ITEM.match(path)
    if match is None:
        return path.replace("_", " ").capitalize()
    name = option_name(match.group("key"), *records)
    part = match.group("part")
    if match.group("list") == "options":
        return f"Approach “{name}”: {OPTION_PARTS.get(part, part)}"
    detail = REJECTION_PARTS.get(part, part)
    return f"Why not “{name}”" + (f": {detail}" if detail else "")


def field_value(path: str, value: str, *records: DecisionRecord) -> str:
    """A stored value as the reader knows it: option labels, local times, "—" for nothing."""
    if not value:
        return NO_VALUE
    if path in _OPTION_FIELDS:
        return option_name(value, *records)
    if path in _TIME_FIELDS:
        try:
            return display_time_precise(GoTime.parse(value))
        except ValueError:
            return value
    return value


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of a text; `changed` runs are the words removed (before) or added (after)."""

    text: str
    changed: bool = False


def word_diff(before: str, after: str) -> tuple[list[Segment], list[Segment]]:
    """Both texts as runs, marking the words that differ; whitespace changes are not marked."""
    left, right = _WORDS.findall(before), _WORDS.findall(after)
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    old: list[Segment] = []
    new: list[Segment] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        same = tag == "equal"
        _append(old, left[i1:i2], changed=not same)
        _append(new, right[j1:j2], changed=not same)
    return old, new


def _append(segments: list[Segment], words: list[str], *, changed: bool) -> None:
    """Adds words as runs; a run of only spaces is never marked, so marks hug the words."""
    for word in words:
        mark = changed and not word.isspace()
        if segments and segments[-1].changed == mark:
            segments[-1] = Segment(segments[-1].text + word, mark)
        else:
            segments.append(Segment(word, mark))


def segments_html(
    segments: list[Segment], colour: str, *, struck: bool, underlined: bool = False
) -> str:
    """Runs as escaped HTML; changed runs tinted, and struck through when removed or
    underlined when they only differ (a sync conflict's two versions)."""
    parts = []
    for segment in segments:
        text = html.escape(segment.text).replace("\n", "<br>")
        if segment.changed:
            style = f"background-color:{colour};"
            if struck:
                style += "text-decoration:line-through;"
            elif underlined:
                style += "text-decoration:underline;"
            parts.append(f'<span style="{style}">{text}</span>')
        else:
            parts.append(text)
    return "".join(parts)


def changed_words(segments: list[Segment]) -> list[str]:
    """The marked runs' text (tests and the accessible description use it)."""
    return [segment.text for segment in segments if segment.changed]
