"""The README and the CLI agree: the command list under "The command line" names every command of
the argparse tree with exactly the options its `--help` shows, and every `decision-journal …`
example elsewhere in the README uses only options its command has."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from app.cli.main import build_parser

README = Path(__file__).resolve().parents[3] / "README.md"
FLAG = re.compile(r"(?<![\w-])(--?[a-z][a-z-]*)")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _options(parser: argparse.ArgumentParser) -> list[tuple[str, ...]]:
    """The option strings of each optional argument but --help."""
    return [
        tuple(a.option_strings)
        for a in parser._actions
        if a.option_strings and not isinstance(a, argparse._HelpAction)
    ]


def _commands() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command path (`("list",)`, `("sync", "init")`) and its parser."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or (path and _options(parser)):  # `modes [--json]` runs without an action
            found[path] = parser
        if not subs:
            return
        for name, child in subs[0].choices.items():
            walk(child, (*path, name))

    walk(build_parser(), ())
    return found


COMMANDS = _commands()


def _path_of(words: list[str]) -> tuple[str, ...]:
    """The longest command path the words start with."""
    for size in (2, 1):
        if tuple(words[:size]) in COMMANDS:
            return tuple(words[:size])
    return ()


def _reference() -> dict[tuple[str, ...], set[str]]:
    """The command list: each command's path and the flags its line (and continuations) name."""
    section = README.read_text(encoding="utf-8").split("## The command line", 1)[1]
    block = FENCE.search(section)
    assert block is not None, "no command list under 'The command line'"
    listed: dict[tuple[str, ...], set[str]] = {}
    current: tuple[str, ...] = ()
    for raw in block.group(1).splitlines()[1:]:  # the first line is the synopsis
        line = raw.split("  #", 1)[0]
        if line.startswith("  ") and not line.startswith("   "):
            current = _path_of(line.split())
            assert current, f"README lists no command the CLI has: {line.strip()!r}"
            assert current not in listed, f"README lists {' '.join(current)} twice"
            listed[current] = set()
        listed[current].update(FLAG.findall(line))
    return listed


def test_every_command_is_listed_once() -> None:
    listed = _reference()
    missing = sorted(" ".join(path) for path in COMMANDS if path not in listed)
    assert missing == [], (
        "commands missing from README.md: add a line for each, indented two spaces, to the "
        "command list under '## The command line', with its options as its --help shows them "
        "and what it does after '  # ':\n  " + "\n  ".join(missing)
    )


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_each_listed_command_shows_the_options_of_its_help(path: tuple[str, ...]) -> None:
    flags = _reference().get(path, set())
    options = _options(COMMANDS[path])
    unknown = sorted(f for f in flags if not any(f in names for names in options))
    assert unknown == [], f"README's `{' '.join(path)}` names options --help does not have"
    absent = sorted(names[-1] for names in options if not flags & set(names))
    assert absent == [], f"README's `{' '.join(path)}` leaves out options of its --help"


def test_examples_use_only_options_their_command_has() -> None:
    text = README.read_text(encoding="utf-8")
    checked = 0
    for block in FENCE.findall(text):
        for raw in block.splitlines():
            line = raw.split("  #", 1)[0].strip().removeprefix("$ ")
            if not line.startswith("decision-journal "):
                continue
            words = [w for w in line.split()[1:] if w != "[--journal"]
            words = [w for w in words if not w.startswith(("DIR]", "--journal"))]
            path = _path_of(words)
            if not path:
                continue
            options = _options(COMMANDS[path])
            unknown = [f for f in FLAG.findall(line) if not any(f in n for n in options)]
            unknown = [f for f in unknown if f != "--journal"]
            assert unknown == [], f"{line!r}: {unknown} are no options of {' '.join(path)}"
            checked += 1
    assert checked >= 10  # the setup, sync and capture examples


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_no_usage_offers_an_empty_choice(path: tuple[str, ...]) -> None:
    usage = COMMANDS[path].format_usage()
    assert "{," not in usage and ",}" not in usage and ",," not in usage, usage
