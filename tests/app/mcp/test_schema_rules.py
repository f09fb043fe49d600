"""Every tool's input schema keeps to what Anthropic, OpenAI (Codex) and Gemini accept.

The checker itself is tested on the constructs each of them refuses, so a pass means something.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.mcp import schemas
from app.mcp.schema_rules import name_refusals, schema_refusals
from core.agents.tools import CLIENTS, TOOL_NAMES, client_tool_name

INPUT_SCHEMAS = {
    "present_implementation_decision": schemas.PRESENT_INPUT_SCHEMA,
    "note_decision": schemas.NOTE_INPUT_SCHEMA,
    "recent_decisions": schemas.RECENT_INPUT_SCHEMA,
    "get_preferences": schemas.PREFERENCES_INPUT_SCHEMA,
    "report_outcome": schemas.OUTCOME_INPUT_SCHEMA,
}


def test_every_tool_has_a_schema_here() -> None:
    assert set(INPUT_SCHEMAS) == set(TOOL_NAMES)


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_every_client_accepts_the_schema(name: str) -> None:
    assert schema_refusals(INPUT_SCHEMAS[name]) == []


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_every_client_accepts_the_name(name: str) -> None:
    qualified = [client_tool_name(client, name) for client in CLIENTS]
    assert name_refusals(name, qualified) == []


def _small(**root: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "description": "How many: 1 to 50.",
            }
        },
    }
    schema.update(root)
    return schema


def test_a_conforming_schema_passes() -> None:
    assert schema_refusals(_small()) == []


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf", "allOf"])
def test_top_level_combinators_are_refused(keyword: str) -> None:
    found = schema_refusals(_small(**{keyword: [{"required": ["limit"]}]}))
    assert f"(root): {keyword} at the top level (refused by Anthropic and OpenAI)" in found


@pytest.mark.parametrize("keyword", ["not", "enum", "const"])
def test_top_level_keywords_openai_refuses(keyword: str) -> None:
    found = schema_refusals(_small(**{keyword: {"required": ["limit"]}}))
    assert f"(root): {keyword} at the top level (refused by OpenAI)" in found


def test_the_old_present_schema_is_refused() -> None:
    old = copy.deepcopy(schemas.PRESENT_INPUT_SCHEMA)
    old["anyOf"] = [
        {"title": "resume", "required": ["decision_id"]},
        {"title": "capture", "required": list(schemas.CAPTURE_REQUIRED)},
    ]
    found = schema_refusals(old)
    assert "(root): anyOf at the top level (refused by Anthropic and OpenAI)" in found


def test_the_root_must_be_an_object_with_properties() -> None:
    found = schema_refusals({"type": "array", "items": {"type": "string"}})
    assert "(root): must be an object schema with properties (all three)" in found


@pytest.mark.parametrize(
    "keyword", ["default", "$schema", "$ref", "format", "const", "title", "anyOf", "examples"]
)
def test_keywords_outside_the_common_subset_are_refused(keyword: str) -> None:
    schema = _small()
    schema["properties"]["limit"][keyword] = 10
    found = schema_refusals(schema)
    assert f"(root).limit: keyword {keyword!r} is outside the subset every client accepts" in found


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ({"type": ["string", "null"], "description": "x"}, "type must be one of"),
        ({"type": "array", "description": "x"}, "array without items (refused by OpenAI)"),
        ({"type": "object", "description": "x"}, "object without properties"),
        (
            {"type": "object", "properties": {}, "additionalProperties": True, "description": "x"},
            "additionalProperties may only be false",
        ),
        ({"type": "integer", "enum": ["1"], "description": "x"}, "enum must be a non-empty"),
        ({"type": "string", "enum": ["", "low"], "description": "x"}, "enum must be a non-empty"),
        ({"type": "string"}, "has no description"),
        (
            {"type": "string", "maxLength": 64, "description": "A name."},
            "maxLength 64 is not stated in the description",
        ),
    ],
)
def test_nested_constructs_a_client_refuses(spec: dict[str, Any], problem: str) -> None:
    schema = _small()
    schema["properties"]["field"] = spec
    found = schema_refusals(schema)
    assert any(line.startswith("(root).field: ") and problem in line for line in found), found


def test_required_must_name_defined_properties() -> None:
    found = schema_refusals(_small(required=["limit", "nope"]))
    assert "(root): required names undefined properties: nope" in found


def test_array_items_take_their_bounds_from_the_list_description() -> None:
    schema = _small()
    schema["properties"]["tags"] = {
        "type": "array",
        "maxItems": 8,
        "items": {"type": "string", "maxLength": 512},
        "description": "Tags: at most 8 items of 512 bytes.",
    }
    assert schema_refusals(schema) == []
    schema["properties"]["tags"]["description"] = "Tags: at most 8."
    assert schema_refusals(schema) == [
        "(root).tags[]: maxLength 512 is not stated in the description"
    ]


def test_names_longer_than_64_once_qualified_are_refused() -> None:
    name = "t" * 50
    assert name_refusals(name, [f"mcp__decision_journal__{name}"]) == [
        f"mcp__decision_journal__{name}: longer than 64 characters"
    ]
    assert name_refusals("bad name", []) == ["bad name: not 1-64 of A-Z a-z 0-9 _ -"]
