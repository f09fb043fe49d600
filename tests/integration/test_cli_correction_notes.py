"""`edit --note`: the "why corrected" note the journal window also keeps, written and read
back through the real CLI (`history` lists it with its author), and refused over its limit
before any revision is written."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import pytest

from core.store.correction_notes import NOTE_MAX, CorrectionNotes
from tests.factories import two_project_journal
from tests.integration.cli_runner import run_cli

ID = "decision-test-1"


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return two_project_journal(tmp_path / "journal", "Pick a cache invalidation strategy")


def _edit(journal: Path, revision: int, *args: str) -> tuple[int, str, str]:
    result = run_cli(journal, "edit", ID, "--expected-revision", str(revision), *args)
    return result.returncode, result.stdout, result.stderr


def test_a_note_is_kept_with_its_revision_and_listed_by_history(journal: Path) -> None:
    code, out, err = _edit(journal, 1, "--tags", "reviewed", "--note", "tags were missing")
    assert code == 0, err
    assert out == f"Saved {ID} as revision 2 (why corrected: tags were missing).\n"
    notes = CorrectionNotes(journal).read(ID)
    assert list(notes) == [2] and notes[2].note == "tags were missing"
    assert notes[2].author == getpass.getuser()

    history = run_cli(journal, "history", ID)
    assert history.returncode == 0, history.stderr
    header, first, second = history.stdout.splitlines()
    assert header.split() == ["REV", "UPDATED", "STATUS", "SELECTED", "WHY", "CORRECTED"]
    assert first.startswith("1 ") and "tags were missing" not in first
    assert second.startswith("2 ") and second.endswith(
        f"tags were missing (by {getpass.getuser()})"
    )
    assert "T" not in second.split()[1], "a date and minute, as list shows them"
    raw = json.loads(run_cli(journal, "history", ID, "--json").stdout)
    assert [r["revision"] for r in raw] == [1, 2], "--json stays the records, as stored"


def test_a_note_over_its_limit_is_refused_before_the_revision(journal: Path) -> None:
    code, _out, err = _edit(journal, 1, "--tags", "x", "--note", "n" * (NOTE_MAX + 1))
    assert code == 2
    assert f"correction_note is {NOTE_MAX + 1:,} bytes; the limit is {NOTE_MAX:,} bytes" in err
    assert json.loads(run_cli(journal, "show", ID, "--json").stdout)["revision"] == 1


def test_edit_help_says_what_each_option_does() -> None:
    result = run_cli(Path("/nonexistent"), "edit", "--help")
    text = " ".join(result.stdout.split())
    for words in (
        "--expected-revision N the revision you are correcting",
        "--select OPTION_ID choose another of the listed approaches",
        "--note TEXT why corrected",
    ):
        assert words in text, words
