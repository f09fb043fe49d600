"""The MCP tools' input schemas and structured results.

Why the input schemas are written by hand: the model reads them as documentation, so every
field says its limit in words, and they must keep to the subset every client accepts
(`app.mcp.schema_rules`). `present_implementation_decision` has two shapes, a new proposal or
a resume with only `decision_id`; a top-level `anyOf` would say so, but Claude Code drops such
a tool and the OpenAI API refuses it, so its schema is one flat object in which nothing is
schema-required, and `app.mcp.arguments` plus `core.capture.proposal` tell the shapes apart.

`maxLength` counts UTF-8 bytes: every text limit in the journal is a byte limit, and each
description says "bytes". `app.mcp.arguments` enforces these same dicts, so what a client is
shown is what the server accepts.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from core import limits
from core.agents.notes import DECISION_MAX, EVIDENCE_MAX, GOAL_MAX, WHY_MAX
from core.messages.wording import span
from core.record.fields import (
    ID_CHARACTERS_WORDS,
    RISK_WORDS,
    id_pattern,
    item_rule,
    number_rule,
    rule,
)

RECENT_LIMIT_MAX = 50
_WORKSPACE = {
    "type": "string",
    "maxLength": rule("workspace").most,
    "description": (
        "Absolute path of the project root. Default: CLAUDE_PROJECT_DIR, else the server's "
        "working directory. Decisions, notes and preferences are grouped by this project. "
        f"At most {rule('workspace').most} UTF-8 bytes."
    ),
}


def _text(description: str, max_bytes: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": "string",
        "maxLength": max_bytes,
        "description": f"{description} At most {max_bytes} UTF-8 bytes.",
        **extra,
    }


def _field(description: str, name: str) -> dict[str, Any]:
    """A text field whose limit is the record's rule `name` (`core.record.fields`)."""
    return _text(description, rule(name).most)


def _string_list(description: str, items: int, item_bytes: int) -> dict[str, Any]:
    return {
        "type": "array",
        "maxItems": items,
        "items": {"type": "string", "maxLength": item_bytes},
        "description": (
            f"{description} At most {items} items of {item_bytes} bytes; blanks and "
            "case-insensitive duplicates are dropped."
        ),
    }


def _field_list(description: str, name: str) -> dict[str, Any]:
    """A list field whose count and item limits are the record's rules for `name`."""
    return _string_list(description, rule(name).most, item_rule(name).most)


def _option_id(description: str) -> dict[str, Any]:
    ids = rule("option.id")
    return {
        "type": "string",
        "pattern": id_pattern("option.id"),
        "description": description.format(ids=f"{ids.span()} of {ID_CHARACTERS_WORDS}"),
    }


def _decision_id(description: str, **extra: Any) -> dict[str, Any]:
    ids = rule("id")
    return {
        "type": "string",
        **extra,
        "pattern": id_pattern("id"),
        "description": description.format(ids=f"{ids.span()} of {ID_CHARACTERS_WORDS}"),
    }


def option_schema() -> dict[str, Any]:
    """One option of a proposal, its limits as the record's rules stand now."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "label", "description"],
        "properties": {
            "id": _option_id("Stable id: {ids} (not __custom__)."),
            "label": _field(
                "Short name of the approach, unique case-insensitively.", "option.label"
            ),
            "description": _field("Objective description of the approach.", "option.description"),
            "pros": _field_list("Advantages.", "option.details"),
            "cons": _field_list("Drawbacks.", "option.details"),
            "recommended": {
                "type": "boolean",
                "description": "Exactly one option must be true: your advisory recommendation.",
            },
        },
    }


def _capture_properties() -> dict[str, Any]:
    options, confidence = rule("options"), number_rule("detector_confidence")
    return {
        "problem": _field(
            "The fork in one or two sentences: what must be decided and why.", "problem"
        ),
        "header": _field("Optional window heading.", "header"),
        "decision_kind": _field(
            "Category of the fork, lowercased, e.g. 'storage-backend', 'error-handling'. Rules "
            "in the preference profile are grouped by it, so reuse kinds.",
            "decision_kind",
        ),
        "risk_level": {
            "type": "string",
            "enum": list(RISK_WORDS),
            "description": "Risk of getting the choice wrong; omit it when unknown.",
        },
        "options": {
            "type": "array",
            "minItems": options.least,
            "maxItems": options.most,
            "items": option_schema(),
            "description": (
                f"{span(options.least, options.most)} materially different, viable approaches; "
                "exactly one recommended."
            ),
        },
        "recommended_option_id": _option_id(
            "Optional; if given it must be the id of the option flagged recommended ({ids})."
        ),
        "detector_confidence": {
            "type": "number",
            "minimum": confidence.least,
            "maximum": confidence.most,
            "description": (
                f"How sure you are that this is a material fork, {confidence.span()}. Below "
                f"{confidence.least} do not ask."
            ),
        },
        "domains": _field_list("Areas, e.g. 'storage', 'ui'.", "domains"),
        "languages": _field_list("Languages involved.", "languages"),
        "evidence_refs": _field_list(
            "Where you looked, e.g. 'core/store/decisions.py:120'.", "evidence_refs"
        ),
        "task_fingerprint": _field("Optional stable id of the task (idempotency).", "identifier"),
        "evidence_fingerprint": _field(
            "Optional stable id of the evidence (idempotency).", "identifier"
        ),
    }


def present_input_schema() -> dict[str, Any]:
    """`present_implementation_decision`'s arguments, flat on purpose: the two shapes are
    checked by the server, never by a top-level anyOf."""
    return {
        "type": "object",
        "additionalProperties": False,
        "description": (
            "Either a new proposal (problem, decision_kind, options and detector_confidence are "
            'then required) or, to resume a pending decision, only {"decision_id": "..."}.'
        ),
        "properties": {
            "decision_id": _decision_id(
                "Resume: the id of a pending decision, given alone. With a new proposal it may "
                "be omitted; if present it must equal the derived id. {ids}.",
                maxLength=rule("id").most,
            ),
            **_capture_properties(),
            "workspace": _WORKSPACE,
        },
    }


OPTION_SCHEMA = option_schema()
PRESENT_INPUT_SCHEMA = present_input_schema()
"""The schemas as advertised; built from the field rules when this module loads."""

CAPTURE_REQUIRED = ("problem", "decision_kind", "options", "detector_confidence")

NOTE_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["decision", "why"],
    "properties": {
        "decision": _text(
            "What you decided (a small choice not worth asking about).", DECISION_MAX
        ),
        "why": _text("Why, in a sentence or two.", WHY_MAX),
        "evidence": _text("Optional pointer: file:line, command, URL.", EVIDENCE_MAX),
        "goal": _text("Optional goal or task id, to group notes of one goal.", GOAL_MAX),
        "workspace": _WORKSPACE,
    },
}

RECENT_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "workspace": _WORKSPACE,
        "goal": _text("Optional goal id: only notes of this goal.", GOAL_MAX),
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": RECENT_LIMIT_MAX,
            "description": (
                f"Decisions and notes to return, each: 1 to {RECENT_LIMIT_MAX}; default 10."
            ),
        },
        "query": _text(
            "Optional words to recall: decisions and notes ranked by relevance and recency "
            "instead of newest first.",
            1024,
        ),
    },
}

OUTCOME_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["decision_id"],
    "properties": {
        "decision_id": _decision_id("The recorded decision the outcome is about: {ids}."),
        "ci": {
            "type": "string",
            "enum": ["pass", "fail"],
            "description": "Did CI pass with the chosen approach: pass or fail.",
        },
        "accepted": {
            "type": "boolean",
            "description": "Was the change built on it accepted (merged, kept)?",
        },
        "eval_score": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "description": "An evaluation score from 0 to 1, if you measured one.",
        },
        "note": _text("What happened, in a sentence.", limits.REASON_MAX),
    },
}
OUTCOME_SIGNALS = ("ci", "accepted", "eval_score", "note")
"""`report_outcome` needs at least one of these."""

PREFERENCES_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["decision_kind"],
    "properties": {
        "decision_kind": _field("The kind of the fork you face.", "decision_kind"),
        "domains": _field_list("Relevant areas, most relevant first.", "domains"),
        "workspace": _WORKSPACE,
    },
}


class SelectionOut(BaseModel):
    """What the human chose: a listed option, or their own approach (`custom`)."""

    option_id: str = ""
    label: str = ""
    custom: str = ""


class RejectionOut(BaseModel):
    option_id: str
    label: str = ""
    reason: str


class RationalesOut(BaseModel):
    """The human's reasons: why the selection, and why not each other option."""

    selected: str = ""
    rejected: list[RejectionOut] = Field(default_factory=list)


class DecisionOutcome(BaseModel):
    """The structured result of `present_implementation_decision`."""

    status: Literal["recorded", "pending"]
    decision_id: str
    selection: SelectionOut | None = None
    rationales: RationalesOut | None = None
    summary: str = Field(
        default="",
        description="The decision in one English sentence: the choice, its reason, the rest.",
    )
    summary_ko: str = Field(
        default="",
        description="The same sentence in Korean, as the journal record stores it.",
    )
    stage: str = ""
    instruction: str = Field(
        description="What to do next; for pending, how to resume. Follow it.",
    )
    profile_warning: str = ""
    decided_by: Literal["person", "profile"] = Field(
        default="person",
        description=(
            "'profile' when the user's preference profile answered without asking (this kind "
            "is set to auto; the user sees it and may overrule it), else 'person'."
        ),
    )
    rule_id: str = Field(default="", description="The preference rule that answered, if any.")


class NoteOutcome(BaseModel):
    """The stored note: provenance `model`; it is context, never preference evidence."""

    note_id: str
    created_at: str
    project_id: str
    provenance: str
    redacted: bool
