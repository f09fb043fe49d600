"""Each CLI command loads only the module that registers it; help still lists every command."""

from __future__ import annotations

import argparse
import gc
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import COMMANDS, build_parser, main
from tests.app.support.cli_imports import ROOT, modules_loaded_by


@pytest.mark.parametrize("module", list(COMMANDS))
def test_the_command_table_names_what_each_module_registers(module: str) -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    importlib.import_module(f"app.cli.{module}").register(sub)
    assert sorted(sub.choices) == sorted(COMMANDS[module])


def test_help_lists_every_command() -> None:
    text = build_parser().format_help()
    assert all(word in text for words in COMMANDS.values() for word in words)


def test_the_help_from_the_table_is_the_help_the_modules_give() -> None:
    assert build_parser(listing=True).format_help() == build_parser().format_help()


def test_help_loads_no_command_module() -> None:
    code, modules = modules_loaded_by(["--help"])
    assert code == 0
    assert not [m for m in modules if m.removeprefix("app.cli.") in COMMANDS]


def test_a_command_loads_only_its_own_module(tmp_path: Path) -> None:
    code, modules = modules_loaded_by(["--journal", str(tmp_path), "pending"])
    assert code == 0
    assert sorted(m for m in modules if m.endswith("_cmds")) == ["app.cli.capture_cmds"]


def _command_parser(parser: argparse.ArgumentParser, word: str) -> argparse.ArgumentParser:
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[word]


@pytest.mark.parametrize("word", [w for words in COMMANDS.values() for w in words])
def test_a_command_word_builds_its_own_parser_alone_and_the_same(word: str) -> None:
    module = next(m for m, words in COMMANDS.items() if word in words)
    alone = build_parser((module,), word=word)
    commands = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
    assert list(commands.choices) == [word]
    whole = _command_parser(build_parser(), word)
    assert _command_parser(alone, word).format_help() == whole.format_help()


def test_the_help_asked_before_a_command_word_lists_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["-h", "list"])
    assert ended.value.code == 0
    assert capsys.readouterr().out == build_parser(listing=True).format_help()


def test_only_the_program_itself_leaves_its_startup_objects_uncollected(tmp_path: Path) -> None:
    """The program (`main()` reading sys.argv) freezes what its imports made; a test that
    calls `main(argv)` must keep its collector whole, or its own objects would never be freed."""
    journal = str(tmp_path / "journal")
    before = gc.get_freeze_count()
    assert main(["--journal", journal, "pending"]) == 0
    assert gc.get_freeze_count() == before
    script = (
        "import gc, sys\n"
        f"sys.argv = ['decision-journal', '--journal', {journal!r}, 'pending']\n"
        "from app.cli.main import main\n"
        "code = main()\n"
        "print(code, gc.get_freeze_count() > 0)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert run.stdout.splitlines()[-1] == "0 True"
