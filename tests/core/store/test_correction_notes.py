"""The "why corrected" sidecar: private atomic files per revision, redacted, damage-tolerant."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from core.errors import InvalidDecision
from core.store.correction_notes import NOTE_MAX, CorrectionNotes, check_note

DECISION = "decision-test-0001"


def test_a_note_is_written_privately_beside_the_history(tmp_path: Path) -> None:
    notes = CorrectionNotes(tmp_path)
    saved = notes.write(
        DECISION, 2, "  the selection was recorded for the wrong option  ", author="ana"
    )
    assert saved is not None and saved.note == "the selection was recorded for the wrong option"
    path = tmp_path / "corrections" / DECISION / "revision-000002.json"
    assert path.is_file()
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    read = notes.read(DECISION)
    assert list(read) == [2]
    assert read[2].note == saved.note and read[2].author == "ana"
    assert read[2].created_at == saved.created_at


def test_secrets_in_a_note_are_redacted_at_write_time(tmp_path: Path) -> None:
    notes = CorrectionNotes(tmp_path)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    saved = notes.write(DECISION, 3, f"pasted the token {token} by mistake", author="ana")
    assert saved is not None and saved.redacted
    raw = (tmp_path / "corrections" / DECISION / "revision-000003.json").read_text()
    assert token not in raw and "[REDACTED:" in raw


def test_empty_notes_write_nothing_and_long_ones_name_the_limit(tmp_path: Path) -> None:
    notes = CorrectionNotes(tmp_path)
    assert notes.write(DECISION, 2, "   ") is None
    assert not (tmp_path / "corrections").exists()
    with pytest.raises(InvalidDecision) as caught:
        check_note("가" * (NOTE_MAX // 3 + 1))
    assert caught.value.field == "correction_note" and caught.value.limit == NOTE_MAX
    assert f"the limit is {NOTE_MAX:,} bytes" in str(caught.value)


def test_damaged_notes_are_skipped_and_ids_are_checked(tmp_path: Path) -> None:
    notes = CorrectionNotes(tmp_path)
    notes.write(DECISION, 2, "kept", author="ana")
    folder = tmp_path / "corrections" / DECISION
    (folder / "revision-000003.json").write_text("{not json")
    (folder / "revision-000004.json").write_text('{"note": "x"}')
    (folder / "notes.txt").write_text("ignored")
    assert list(notes.read(DECISION)) == [2]
    assert notes.read("decision-test-9999") == {}
    with pytest.raises(InvalidDecision):
        notes.write("../escape", 2, "no")
