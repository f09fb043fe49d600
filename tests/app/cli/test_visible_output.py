"""What the CLI prints shows a stored control character as its escape, never obeys it."""

from __future__ import annotations

import io
import json
from pathlib import Path

from app.cli.visible_output import VisibleStream
from core.record.controls import control_problem
from core.store.decisions import DecisionStore
from tests.factories import make_record, two_project_journal
from tests.integration.cli_runner import run_cli

OSC_52 = "\x1b]52;c;cm0gLXJmIH4K\x07"
"""Writes the user's clipboard in terminals that honour OSC 52."""
HOSTILE = f"Pick {OSC_52}\x1b]0;PWNED\x07 \u202eevil\u202c \x1b[31mred"
SHOWN = (
    "Pick \\u001b]52;c;cm0gLXJmIH4K\\u0007\\u001b]0;PWNED\\u0007 \\u202eevil\\u202c \\u001b[31mred"
)


def _journal(tmp_path: Path) -> Path:
    """A record written before the proposal rule refused such text (or synced, or imported)."""
    root = two_project_journal(tmp_path / "journal", second_problem=HOSTILE)
    record = make_record(id="decision-test-3", problem="Label test")
    record.options[1].label = "\u202eetadpu ton od"
    DecisionStore(root).put(record)
    return root


def _obeyable(text: str) -> bool:
    """Whether a terminal would act on something in text (a control but line feed and tab)."""
    return control_problem(text, multiline=True) is not None


def test_list_and_show_print_a_stored_escape_as_its_code(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    listed = run_cli(journal, "list", "--limit", "50")
    assert listed.returncode == 0, listed.stderr
    assert not _obeyable(listed.stdout) and "\\u001b]52;c;" in listed.stdout
    shown = run_cli(journal, "show", "decision-test-2")
    assert shown.returncode == 0, shown.stderr
    assert not _obeyable(shown.stdout) and SHOWN in shown.stdout
    label = run_cli(journal, "show", "decision-test-3")
    assert not _obeyable(label.stdout) and "\\u202eetadpu ton od" in label.stdout


def test_json_printed_as_text_stays_the_same_json(tmp_path: Path) -> None:
    out = io.StringIO()
    VisibleStream(out).write(json.dumps({"problem": HOSTILE}, ensure_ascii=False))
    assert not _obeyable(out.getvalue())
    assert json.loads(out.getvalue()) == {"problem": HOSTILE}


def test_line_breaks_tabs_and_bytes_pass_unchanged() -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stream = VisibleStream(out)
    assert stream.write("a\n\tb é\n") == len("a\n\tb é\n")
    stream.flush()  # as a command does before it writes bytes
    stream.buffer.write(b"\x1b raw bytes are data\n")
    stream.flush()
    assert out.buffer.getvalue() == "a\n\tb é\n".encode() + b"\x1b raw bytes are data\n"  # type: ignore[attr-defined]
