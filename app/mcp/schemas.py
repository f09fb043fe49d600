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

RECENT_LIMIT_MAX = 50
_ID_PATTERN = "^[A-Za-z0-9._-]{1,128}$"
_DECISION_ID_PATTERN = f"^[A-Za-z0-9._-]{{1,{limits.DECISION_ID_MAX}}}$"
_WORKSPACE = {
    "type": "string",
    "maxLength": limits.WORKSPACE_MAX,
    "description": (
        "Absolute path of the project root. Default: CLAUDE_PROJECT_DIR, else the server's "
        "working directory. Decisions, notes and preferences are grouped by this project. "
        f"At most {limits.WORKSPACE_MAX} UTF-8 bytes."
    ),
}


def _text(description: str, max_bytes: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": "string",
        "maxLength": max_bytes,
        "description": f"{description} At most {max_bytes} UTF-8 bytes.",
        **extra,
    }


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


OPTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "label", "description"],
    "properties": {
        "id": {
            "type": "string",
            "pattern": _ID_PATTERN,
            "description": "Stable id: 1 to 128 characters of A-Z a-z 0-9 . _ - (not __custom__).",
        },
        "label": _text("Short name of the approach, unique case-insensitively.", 256),
        "description": _text("Objective description of the approach.", 2048),
        "pros": _string_list("Advantages.", limits.OPTION_DETAIL_ITEMS_MAX, 1024),
        "cons": _string_list("Drawbacks.", limits.OPTION_DETAIL_ITEMS_MAX, 1024),
        "recommended": {
            "type": "boolean",
            "description": "Exactly one option must be true: your advisory recommendation.",
        },
    },
}

_CAPTURE_PROPERTIES: dict[str, Any] = {
    "problem": _text("The fork in one or two sentences: what must be decided and why.", 4096),
    "header": _text("Optional window heading.", limits.HEADER_MAX),
    "decision_kind": _text(
        "Category of the fork, lowercased, e.g. 'storage-backend', 'error-handling'. Rules in "
        "the preference profile are grouped by it, so reuse kinds.",
        limits.KIND_MAX,
    ),
    "risk_level": {
        "type": "string",
        "enum": ["low", "medium", "high", "critical"],
        "description": "Risk of getting the choice wrong; omit it when unknown.",
    },
    "options": {
        "type": "array",
        "minItems": limits.OPTIONS_MIN,
        "maxItems": limits.OPTIONS_MAX,
        "items": OPTION_SCHEMA,
        "description": "2 to 4 materially different, viable approaches; exactly one recommended.",
    },
    "recommended_option_id": {
        "type": "string",
        "pattern": _ID_PATTERN,
        "description": (
            "Optional; if given it must be the id of the option flagged recommended "
            "(1 to 128 characters of A-Z a-z 0-9 . _ -)."
        ),
    },
    "detector_confidence": {
        "type": "number",
        "minimum": limits.CAPTURE_CONFIDENCE_MIN,
        "maximum": 1,
        "description": (
            "How sure you are that this is a material fork, 0.65 to 1. Below 0.65 do not ask."
        ),
    },
    "domains": _string_list("Areas, e.g. 'storage', 'ui'.", limits.DOMAINS_MAX, 512),
    "languages": _string_list("Languages involved.", limits.LANGUAGES_MAX, 512),
    "evidence_refs": _string_list(
        "Where you looked, e.g. 'core/store/decisions.py:120'.", limits.EVIDENCE_REFS_MAX, 2048
    ),
    "task_fingerprint": _text("Optional stable id of the task (idempotency).", 1024),
    "evidence_fingerprint": _text("Optional stable id of the evidence (idempotency).", 1024),
}

PRESENT_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "description": (
        "Either a new proposal (problem, decision_kind, options and detector_confidence are "
        'then required) or, to resume a pending decision, only {"decision_id": "..."}.'
    ),
    "properties": {
        "decision_id": {
            "type": "string",
            "maxLength": limits.DECISION_ID_MAX,
            "pattern": _DECISION_ID_PATTERN,
            "description": (
                "Resume: the id of a pending decision, given alone. With a new proposal it may "
                "be omitted; if present it must equal the derived id. 1 to "
                f"{limits.DECISION_ID_MAX} characters of A-Z a-z 0-9 . _ -."
            ),
        },
        **_CAPTURE_PROPERTIES,
        "workspace": _WORKSPACE,
    },
}
"""Flat on purpose: the two shapes are checked by the server, never by a top-level anyOf."""

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
        "decision_id": {
            "type": "string",
            "pattern": _DECISION_ID_PATTERN,
            "description": (
                "The recorded decision the outcome is about: 1 to "
                f"{limits.DECISION_ID_MAX} characters of A-Z a-z 0-9 . _ -."
            ),
        },
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
        "decision_kind": _text("The kind of the fork you face.", limits.KIND_MAX),
        "domains": _string_list("Relevant areas, most relevant first.", limits.DOMAINS_MAX, 512),
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
