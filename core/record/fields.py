"""The record's fields as checks and messages name them: each field's limit, unit and words.

Why one table: record validation, proposal validation, corrections, normalization, the bulk
fast read, the MCP tool schemas and the edit dialog check the same fields, and when each wrote
its own "1 to 160" or "128" a changed limit left the others' messages wrong. Every check reads
its number here when it runs (`rule(name)`; the fast read's compiled types when it loads, the
limits it checks in Python at run time), and every message that states a limit words it
through the rule (`span`, `over`), so a limit changed in `core.limits` (or in this table)
changes every surface at once. The one list of free-text fields a redaction rewrites is here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from core import limits
from core.messages.wording import join_words, span, too_large, too_many

ID_CHARACTERS = "A-Za-z0-9._-"
"""The characters of decision and option ids, as a regex character class body."""
ID_CHARACTERS_WORDS = "A-Z a-z 0-9 . _ -"
"""The same characters as a person reads them."""
RISK_WORDS = ("low", "medium", "high", "critical")
"""The risk levels a person may pick; empty means unknown (`core.record.shape.RISK_LEVELS`)."""

FREE_TEXT = (
    "problem",
    "header",
    "project_alias",
    "workspace",
    "custom_selection",
    "selection_reason_raw",
    "summary_sentence",
    "domains",
    "languages",
    "tags",
    "evidence_refs",
)
"""Every free-text field of a record or proposal (a string, or a list of strings) that secret
redaction rewrites; identifiers are refused when secret-looking, never rewritten."""
OPTION_FREE_TEXT = ("label", "description", "pros", "cons")
"""The free-text fields of one option."""


@dataclass(frozen=True, slots=True)
class FieldRule:
    """One field's limit: at most `most` of `unit` (bytes unless it says), at least `least`.

    `item` names the rule of each entry when the field is a list.
    """

    name: str
    wording: str
    """The field as a sentence names it: "The decision kind"."""
    most: int
    unit: str = "byte"
    least: int = 0
    item: str = ""

    def span(self) -> str:
        """ "1 to 128 bytes", "2 to 4 options"."""
        return span(self.least, self.most, self.unit)

    def fits(self, size: int) -> bool:
        return size <= self.most

    def over(self, size: int) -> str:
        """What is wrong with a value of `size` over the limit: "is 300 bytes; the limit is
        256 bytes", or for a list "has 70 tags; the limit is 64 tags"."""
        if self.unit in ("byte", "character"):
            return too_large(size, self.most, self.unit)
        return too_many(size, self.most, self.unit)


@dataclass(frozen=True, slots=True)
class NumberRule:
    """A number field's range, both ends included."""

    name: str
    wording: str
    least: float
    most: float

    def span(self) -> str:
        """ "0.65 to 1"."""
        return f"{_plain(self.least)} to {_plain(self.most)}"

    def fits(self, value: float) -> bool:
        return self.least <= value <= self.most


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


FIELDS: dict[str, FieldRule] = {
    rule.name: rule
    for rule in (
        FieldRule("id", "The decision id", limits.DECISION_ID_MAX, "character", 1),
        FieldRule("problem", "The problem", limits.PROBLEM_MAX, least=1),
        FieldRule("header", "The heading", limits.HEADER_MAX),
        FieldRule("decision_kind", "The decision kind", limits.KIND_MAX, least=1),
        FieldRule(
            "selection_reason_raw", "Why this approach was selected", limits.REASON_MAX, least=1
        ),
        FieldRule("rejection_reason", "Why it was not selected", limits.REASON_MAX, least=1),
        FieldRule("custom_selection", "The custom approach", limits.CUSTOM_SELECTION_MAX, least=1),
        FieldRule("summary_sentence", "The summary", limits.SUMMARY_MAX),
        FieldRule("workspace", "The workspace", limits.WORKSPACE_MAX),
        FieldRule("project_alias", "The project alias", limits.IDENTIFIER_MAX),
        FieldRule("identifier", "An identifier", limits.IDENTIFIER_MAX),
        FieldRule("options", "The options", limits.OPTIONS_MAX, "option", limits.OPTIONS_MIN),
        FieldRule("option.id", "An option id", limits.OPTION_ID_MAX, "character", 1),
        FieldRule("option.label", "An option's label", limits.OPTION_LABEL_MAX, least=1),
        FieldRule(
            "option.description",
            "An option's description",
            limits.OPTION_DESCRIPTION_MAX,
            least=1,
        ),
        FieldRule(
            "option.details",
            "An option's pros or cons",
            limits.OPTION_DETAIL_ITEMS_MAX,
            "item",
            item="option.detail",
        ),
        FieldRule("option.detail", "A pro or con", limits.OPTION_DETAIL_MAX),
        FieldRule("domains", "The domain list", limits.DOMAINS_MAX, "domain", item="list_item"),
        FieldRule(
            "languages", "The language list", limits.LANGUAGES_MAX, "language", item="list_item"
        ),
        FieldRule("tags", "The tag list", limits.TAGS_MAX, "tag", item="list_item"),
        FieldRule(
            "evidence_refs",
            "The evidence list",
            limits.EVIDENCE_REFS_MAX,
            "reference",
            item="evidence_ref",
        ),
        FieldRule("list_item", "A list item", limits.LIST_ITEM_MAX),
        FieldRule("evidence_ref", "An evidence reference", limits.EVIDENCE_REF_MAX),
        FieldRule(
            "redaction.patterns",
            "The redaction pattern list",
            limits.REDACTION_PATTERNS_MAX,
            "pattern",
            item="redaction.pattern",
        ),
        FieldRule("redaction.pattern", "A redaction pattern", limits.REDACTION_PATTERN_MAX),
        FieldRule("correction_note", "Why corrected", limits.REASON_MAX),
    )
}
"""Every length and count limit of a record and a proposal, by the name checks use."""

NUMBERS: dict[str, NumberRule] = {
    "detector_confidence": NumberRule(
        "detector_confidence", "The detector confidence", limits.CAPTURE_CONFIDENCE_MIN, 1
    ),
}
"""Every number range an agent's proposal must keep to."""


def rule(name: str) -> FieldRule:
    """The rule of the field `name` (a key of `FIELDS`), as it stands when the check runs."""
    return FIELDS[name]


def item_rule(name: str) -> FieldRule:
    """The rule of each entry of the list field `name`."""
    return FIELDS[FIELDS[name].item]


def number_rule(name: str) -> NumberRule:
    return NUMBERS[name]


def id_rule(name: str) -> str:
    """How an id field must be written: "use 1 to 160 characters from A-Z a-z 0-9 . _ -"."""
    return f"use {rule(name).span()} from {ID_CHARACTERS_WORDS}"


def id_pattern(name: str) -> str:
    """The JSON Schema pattern of an id field, from the same rule."""
    found = rule(name)
    return f"^[{ID_CHARACTERS}]{{{found.least},{found.most}}}$"


def risk_choices() -> str:
    """ "low, medium, high or critical, or empty": the one way a message lists the risks."""
    return f"{join_words(list(RISK_WORDS), 'or')}, or empty"


def risk_problem(value: str) -> str:
    """What is wrong with a risk level no rule accepts, naming it."""
    return f"must be {risk_choices()} (got {value[:40]!r})"
