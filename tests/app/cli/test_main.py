"""Each CLI command loads only the module that registers it; help still lists every command."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import pytest

from app.cli.main import COMMANDS, build_parser
from tests.app.support.cli_imports import modules_loaded_by


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
