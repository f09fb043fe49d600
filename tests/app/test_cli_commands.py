"""Each CLI command loads only the module that registers it; help still lists every command."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", list(COMMANDS))
def test_the_command_table_names_what_each_module_registers(module: str) -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    importlib.import_module(f"app.cli.{module}").register(sub)
    assert sorted(sub.choices) == sorted(COMMANDS[module])


def test_help_lists_every_command() -> None:
    text = build_parser().format_help()
    assert all(word in text for words in COMMANDS.values() for word in words)


def test_a_command_loads_only_its_own_module(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from app.cli.main import main\n"
        f"code = main(['--journal', {str(tmp_path)!r}, 'pending'])\n"
        "loaded = sorted(m for m in sys.modules if m.endswith('_cmds'))\n"
        "print(code, loaded)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip().splitlines()[-1] == "0 ['app.cli.capture_cmds']"
