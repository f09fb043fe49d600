"""The tool-schema constructs that some agent client or model API refuses, as one checker.

Why a checker: a schema that one client refuses costs that client the tool silently (Claude
Code 2.x skips it and logs "its input schema uses top-level anyOf, which the Anthropic API does
not accept") or the whole request (the APIs answer 400 for every call that lists the tool). The
unit test walks every tool's input schema through `schema_refusals`, so no change can bring one
back. What each side is documented or reported to refuse:

- Anthropic Messages API: `input_schema` must be an object schema, and "input_schema does not
  support oneOf, allOf, or anyOf at the top level" (the API's 400 text, quoted in
  anthropics/claude-code#5319 and anthropics/claude-code#5973 and in many MCP servers' fixes, e.g.
  marianfoo/mcp-sap-docs#51; the restriction is not in the tool-use docs).
- OpenAI function calling (Chat Completions and Responses, which Codex uses): "schema must have
  type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level" (newer
  text adds 'const'; reported from Codex CLI in imagekit-developer/imagekit-nodejs#150 and
  BerriAI/litellm#38839), and "array schema missing items" for an array without `items`
  (PrefectHQ/fastmcp#2464). Strict mode (every property required, no bounds) is not used for
  MCP tools by Codex, so its rules are not ours.
- Codex CLI rewrites an MCP tool's schema into its own small JSON Schema model before sending
  it; a nested `anyOf` becomes a plain string (openai/codex#13768), so we use no combinators
  anywhere. Codex 0.171.0, recorded by a fake Responses API, sends our tools with `strict:
  false` and keeps `type`, `description`, `properties`, `required`, `additionalProperties`,
  `items` and `enum`, but drops `maxLength`, `pattern`, `minimum`, `maximum`, `minItems` and
  `maxItems`: every bound is therefore stated in the property's description too.
- Gemini: the `functionDeclarations[].parameters` field takes only an OpenAPI 3.0 subset
  (no `$schema`, `$ref`, combinators, type lists or `const`; enums of strings). Gemini CLI
  0.61.0 does not sanitize MCP schemas: `mcpToGeminiTool` passes `inputSchema` unchanged as
  `parametersJsonSchema` (full JSON Schema, "must describe an object where the properties are
  the parameters"), and `DiscoveredMCPTool` validates every call's arguments with Ajv against
  the same schema before it reaches us. Keeping to the subset works with both fields.

The result is a small allowed vocabulary: `type` (one name), `description`, `properties`,
`required`, `additionalProperties: false`, `items`, string `enum`, `pattern`, `maxLength`,
`minimum`/`maximum`, `minItems`/`maxItems`. `app.mcp.arguments` enforces exactly these.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

ALLOWED_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "pattern",
        "maxLength",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
    }
)
"""Every keyword all three accept and `app.mcp.arguments` enforces."""
TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean"})
TOP_LEVEL_REFUSED = {
    "anyOf": "Anthropic and OpenAI",
    "oneOf": "Anthropic and OpenAI",
    "allOf": "Anthropic and OpenAI",
    "not": "OpenAI",
    "enum": "OpenAI",
    "const": "OpenAI",
}
BOUND_KEYWORDS = ("maxLength", "minimum", "maximum", "minItems", "maxItems")
"""Bounds a rewriting client (Codex) may drop: each must also be stated in words."""
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Anthropic's and OpenAI's function-name rule; Gemini also allows `.` and `:`."""
QUALIFIED_NAME_MAX = 64
"""The same limit applies to the name a client sends, prefix included."""


def schema_refusals(schema: dict[str, Any]) -> list[str]:
    """Every construct of a tool's input schema that one of the clients refuses.

    Args:
        schema: the tool's input schema, as `tools/list` advertises it.

    Returns:
        One line per problem, naming its place (`properties.options.items`) and who refuses
        it; empty when every client accepts the schema.
    """
    found = [
        f"(root): {keyword} at the top level (refused by {who})"
        for keyword, who in TOP_LEVEL_REFUSED.items()
        if keyword in schema
    ]
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        found.append("(root): must be an object schema with properties (all three)")
    for path, node, parent in _walk(schema, "(root)", None):
        found.extend(f"{path}: {problem}" for problem in _node_refusals(node, parent))
    return found


def name_refusals(name: str, qualified: list[str]) -> list[str]:
    """Problems with a tool's name, bare and as each client prefixes it."""
    found = [] if TOOL_NAME_PATTERN.match(name) else [f"{name}: not 1-64 of A-Z a-z 0-9 _ -"]
    found.extend(
        f"{full}: longer than {QUALIFIED_NAME_MAX} characters"
        for full in qualified
        if len(full) > QUALIFIED_NAME_MAX
    )
    return found


def _walk(
    node: dict[str, Any], path: str, parent: dict[str, Any] | None
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    yield path, node, parent
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, child in properties.items():
            if isinstance(child, dict):
                yield from _walk(child, f"{path}.{name}", node)
    items = node.get("items")
    if isinstance(items, dict):
        yield from _walk(items, f"{path}[]", node)


def _node_refusals(node: dict[str, Any], parent: dict[str, Any] | None) -> Iterator[str]:
    for keyword in sorted(set(node) - ALLOWED_KEYWORDS):
        yield f"keyword {keyword!r} is outside the subset every client accepts"
    kind = node.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        yield f"type must be one of {', '.join(sorted(TYPES))} (got {kind!r})"
    yield from _shape_refusals(node, kind)
    if parent is not None and parent.get("type") != "array" and not node.get("description"):
        yield "has no description (the model reads it as the documentation)"
    yield from _unstated_bounds(node, parent)


def _shape_refusals(node: dict[str, Any], kind: object) -> Iterator[str]:
    if kind == "array" and not isinstance(node.get("items"), dict):
        yield "array without items (refused by OpenAI)"
    if kind == "object":
        if not isinstance(node.get("properties"), dict):
            yield "object without properties (Codex and Gemini need them)"
        if node.get("additionalProperties", False) is not False:
            yield "additionalProperties may only be false"
        missing = set(node.get("required", [])) - set(node.get("properties", {}))
        if missing:
            yield f"required names undefined properties: {', '.join(sorted(missing))}"
    enum = node.get("enum")
    if enum is not None and (
        kind != "string"
        or not isinstance(enum, list)
        or not enum
        or not all(isinstance(value, str) and value for value in enum)
    ):
        yield "enum must be a non-empty list of non-empty strings on a string (Gemini)"


def _unstated_bounds(node: dict[str, Any], parent: dict[str, Any] | None) -> Iterator[str]:
    """A bound the description does not state is lost where a client drops the keyword."""
    words = str(node.get("description", ""))
    if parent is not None and parent.get("type") == "array":
        words += " " + str(parent.get("description", ""))
    for keyword in BOUND_KEYWORDS:
        if keyword in node and _number_text(node[keyword]) not in words:
            yield f"{keyword} {node[keyword]} is not stated in the description"


def _number_text(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
