"""The Codex TOML merge keeps everything it does not own, byte for byte, and is idempotent.

Documents are generated: foreign tables and keys with comments and blank lines, our own entry
absent, as a table with the user's keys and a pinned `env` sub-table, under dotted keys, or in
an inline `mcp_servers = { … }` table; a timeout the user raised is never lowered.
"""

from __future__ import annotations

import itertools
import tomllib
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.setup_clients.files import SetupError
from app.setup_clients.toml_table import render_table, upsert_table

PATH = ("mcp_servers", "decision-journal")
OURS = {
    "command": "/opt/dj/bin/decision-journal",
    "args": ["mcp"],
    "env": {"PYTHONPATH": "/opt/dj"},
    "startup_timeout_sec": 30,
    "tool_timeout_sec": 3600,
}
LARGER = ("startup_timeout_sec", "tool_timeout_sec")
transform = upsert_table(PATH, OURS, "config.toml", LARGER)

names = st.sampled_from(["alpha", "beta", "gamma", "profiles.fast", "mcp_servers.memory"])
keys = st.sampled_from(["model", "effort", "enabled", "count", "note"])
values = st.one_of(
    st.integers(-5, 10_000).map(str),
    st.sampled_from(['"gpt-5"', "true", '["a", "b"]', "{ x = 1 }", "'literal'"]),
)
comments = st.one_of(st.just(""), st.sampled_from(["  # keep me", " # ünïcode"]))


@st.composite
def foreign_tables(draw: st.DrawFn) -> list[str]:
    lines: list[str] = []
    for name in draw(st.lists(names, unique=True, max_size=4)):
        if draw(st.booleans()):
            lines.append(f"# about {name}")
        lines.append(f"[{name}]{draw(comments)}")
        for key in draw(st.lists(keys, unique=True, min_size=1, max_size=3)):
            lines.append(f"{key} = {draw(values)}{draw(comments)}")
        lines.extend([""] * draw(st.integers(0, 2)))
    return lines


@st.composite
def our_entries(draw: st.DrawFn) -> tuple[str, list[str], dict[str, Any]]:
    """(form, lines, the user's own values inside our entry)."""
    form = draw(st.sampled_from(["absent", "table", "dotted", "inline"]))
    timeout = draw(st.sampled_from([60, 3600, 7200]))
    if form == "absent":
        return form, [], {}
    if form == "inline":
        ours = f'{{ command = "old", tool_timeout_sec = {timeout} }}'
        line = f'mcp_servers = {{ other = {{ command = "o" }}, decision-journal = {ours} }}'
        return form, [line], {"tool_timeout_sec": timeout}
    if form == "dotted":
        lines = [
            'mcp_servers.decision-journal.command = "old"  # mine',
            f"mcp_servers.decision-journal.tool_timeout_sec = {timeout}",
        ]
        return form, lines, {"tool_timeout_sec": timeout}
    lines = [
        "# our entry, with the user's additions",
        "[mcp_servers.decision-journal]",
        'command = "old"  # an old path',
        f"tool_timeout_sec = {timeout}",
        "autoApprove = true  # theirs",
        "",
        "# pinned by hand, introducing the next table",
        "[mcp_servers.decision-journal.env]",
        'DECISION_JOURNAL_HOME = "/pinned"  # pinned by hand',
        "",
    ]
    return form, lines, {"tool_timeout_sec": timeout, "autoApprove": True}


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    servers = dict(data.get("mcp_servers", {}))
    servers.pop("decision-journal", None)
    rest = {key: value for key, value in data.items() if key != "mcp_servers"}
    return {**rest, "mcp_servers": servers} if servers else rest


def _is_subsequence(needles: list[str], haystack: list[str]) -> bool:
    remaining = iter(haystack)
    return all(any(needle == line for line in remaining) for needle in needles)


@settings(max_examples=150, deadline=None)
@given(
    head=st.lists(
        st.sampled_from(['model = "gpt-5-codex"  # top', "# a comment", ""]), unique=True
    ),
    entry=our_entries(),
    tables=foreign_tables(),
)
def test_every_foreign_byte_stays_and_a_second_write_is_a_no_op(
    head: list[str], entry: tuple[str, list[str], dict[str, Any]], tables: list[str]
) -> None:
    form, ours, theirs = entry
    top = head + (ours if form in ("inline", "dotted") else [])
    text = "\n".join(top + tables + (ours if form == "table" else [])) + "\n"
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)  # e.g. `[mcp_servers.memory]` beside an inline `mcp_servers = {…}`

    new, changes = transform(text)
    after = tomllib.loads(new)

    assert changes
    assert _without_ours(after) == _without_ours(before)
    entry_after = after["mcp_servers"]["decision-journal"]
    for key, value in OURS.items():
        if key == "env":
            assert entry_after["env"]["PYTHONPATH"] == "/opt/dj"
        elif key in LARGER:
            assert entry_after[key] == max(value, theirs.get(key, 0))
        else:
            assert entry_after[key] == value
    if form == "table":
        assert entry_after["autoApprove"] is True
        assert entry_after["env"]["DECISION_JOURNAL_HOME"] == "/pinned"
    replaced = ("command =", "mcp_servers = ", "mcp_servers.decision-journal.command")
    lowered = ("tool_timeout_sec = 60", "mcp_servers.decision-journal.tool_timeout_sec = 60")
    untouched = [line for line in text.splitlines() if not line.startswith(replaced + lowered)]
    assert _is_subsequence(untouched, new.splitlines())
    lines = text.splitlines()
    for line, after in itertools.pairwise(lines):
        if line.startswith("#") and not after.startswith(replaced + lowered):
            assert f"{line}\n{after}\n" in new, "a comment was parted from what it introduces"
    assert transform(new) == (new, [])


def test_the_issue_file_keeps_the_env_sub_table_and_the_raised_timeout() -> None:
    text = (
        "[mcp_servers.decision-journal]\n"
        'command = "decision-journal"\n'
        'args = ["mcp"]\n'
        "tool_timeout_sec = 7200\n"
        "\n"
        "[mcp_servers.decision-journal.env]\n"
        'DECISION_JOURNAL_HOME = "/home/me/journal"\n'
    )
    new, changes = transform(text)
    entry = tomllib.loads(new)["mcp_servers"]["decision-journal"]
    assert entry["env"] == {"DECISION_JOURNAL_HOME": "/home/me/journal", "PYTHONPATH": "/opt/dj"}
    assert entry["tool_timeout_sec"] == 7200
    assert "kept your tool_timeout_sec = 7200" in changes
    assert new.startswith("[mcp_servers.decision-journal]\n")


def test_a_users_passed_variables_stay_and_ours_are_added_once() -> None:
    with_vars = upsert_table(PATH, {**OURS, "env_vars": ["DISPLAY", "XDG_RUNTIME_DIR"]}, "c")
    text = (
        '[mcp_servers.decision-journal]\ncommand = "x"\nenv_vars = ["MY_TOKEN_NAME", "DISPLAY"]\n'
    )
    new, _ = with_vars(text)
    entry = tomllib.loads(new)["mcp_servers"]["decision-journal"]
    assert entry["env_vars"] == ["MY_TOKEN_NAME", "DISPLAY", "XDG_RUNTIME_DIR"]
    assert with_vars(new) == (new, [])


def test_an_inline_servers_table_is_accepted_and_kept_inline() -> None:
    text = 'mcp_servers = { other = { command = "other-mcp" } }\n'
    new, changes = transform(text)
    data = tomllib.loads(new)
    assert data["mcp_servers"]["other"] == {"command": "other-mcp"}
    assert data["mcp_servers"]["decision-journal"]["tool_timeout_sec"] == 3600
    assert changes[0].startswith("added [mcp_servers.decision-journal]")
    assert len(new.splitlines()) == 1


def test_a_new_entry_goes_to_the_end_after_the_last_table() -> None:
    text = '[mcp_servers.memory]\ncommand = "npx"\n\n# profiles below\n[profiles.fast]\nx = 1\n'
    new, _ = transform(text)
    assert new.startswith(text)
    assert new[len(text) :] == "\n" + render_table(PATH, OURS)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mcp_servers = 3\n", "mcp_servers is not a table"),
        ("[[mcp_servers]]\nx = 1\n", "mcp_servers is not a table"),
        ('mcp_servers.decision-journal = "x"\n', "mcp_servers.decision-journal is not a table"),
        ("[broken\n", "is not valid TOML"),
    ],
)
def test_shapes_we_cannot_merge_are_refused_with_the_key_named(text: str, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        transform(text)
