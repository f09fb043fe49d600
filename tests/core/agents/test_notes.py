"""Agent notes: append-only JSONL per project, private, torn tails tolerated and never rewritten."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from core.agents.notes import DECISION_MAX, NoteStore
from core.errors import NoteInvalid, UnsafePath
from core.record.identity import project_identity

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"


@pytest.fixture
def workspace(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    path.mkdir()
    return str(path)


@pytest.fixture
def notes(tmp_path: Path) -> NoteStore:
    return NoteStore(tmp_path / "journal")


def add(notes: NoteStore, workspace: str, decision: str = "use sqlite", **kw: str) -> str:
    return notes.append(workspace=workspace, decision=decision, why="small data", **kw).id


def test_append_then_read_round_trips_with_model_provenance(
    notes: NoteStore, workspace: str
) -> None:
    note = notes.append(
        workspace=workspace,
        decision="keep the parser hand-written",
        why="the grammar is tiny",
        evidence="core/parse.py:12",
        goal="goal-1",
        session_id="s1",
        agent="claude-code",
    )
    listing = notes.read(project_identity(workspace).project_id)
    assert listing.notes == [note]
    assert note.provenance == "model"
    assert note.project_id == project_identity(workspace).project_id
    assert (note.goal, note.evidence, note.session_id) == ("goal-1", "core/parse.py:12", "s1")


def test_files_are_private(notes: NoteStore, workspace: str) -> None:
    add(notes, workspace)
    path = notes.path(project_identity(workspace).project_id)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


def test_every_violation_is_reported_at_once(notes: NoteStore, workspace: str) -> None:
    with pytest.raises(NoteInvalid) as caught:
        notes.append(workspace=workspace, decision=" ", why="x" * 5000, goal="g" * 300)
    fields = [v.field for v in caught.value.violations]
    assert fields == ["decision", "why", "goal"]
    assert any(v.limit == 4096 for v in caught.value.violations)
    assert not notes.directory.exists()


def test_limit_boundary_is_inclusive(notes: NoteStore, workspace: str) -> None:
    add(notes, workspace, decision="d" * DECISION_MAX)
    with pytest.raises(NoteInvalid):
        add(notes, workspace, decision="d" * (DECISION_MAX + 1))


def test_secrets_are_redacted_before_writing(notes: NoteStore, workspace: str) -> None:
    note = notes.append(workspace=workspace, decision=f"token {SECRET}", why="why")
    raw = notes.path(note.project_id).read_text(encoding="utf-8")
    assert SECRET not in raw
    assert note.redacted


def test_torn_tail_is_skipped_and_kept_and_next_append_starts_a_new_line(
    notes: NoteStore, workspace: str
) -> None:
    first = add(notes, workspace, decision="first")
    path = notes.path(project_identity(workspace).project_id)
    with open(path, "ab") as handle:
        handle.write(b'{"schema_version":1,"id":"note-torn","decis')
    listing = notes.read(project_identity(workspace).project_id)
    assert [n.id for n in listing.notes] == [first]
    assert listing.torn_tail
    before = path.read_bytes()

    second = add(notes, workspace, decision="second")
    after = path.read_bytes()
    assert after.startswith(before)  # never rewritten or truncated
    listing = notes.read(project_identity(workspace).project_id)
    assert [n.id for n in listing.notes] == [first, second]
    assert listing.damaged_lines == 1
    assert not listing.torn_tail


def test_damaged_middle_line_does_not_hide_others(notes: NoteStore, workspace: str) -> None:
    first = add(notes, workspace)
    path = notes.path(project_identity(workspace).project_id)
    with open(path, "ab") as handle:
        handle.write(b'{"not": "a note"}\n[1, 2]\n')
    second = add(notes, workspace)
    listing = notes.read(project_identity(workspace).project_id)
    assert [n.id for n in listing.notes] == [first, second]
    assert listing.damaged_lines == 2


def test_recent_is_newest_first_and_filters_by_goal(notes: NoteStore, workspace: str) -> None:
    a = add(notes, workspace, decision="a", goal="g1")
    b = add(notes, workspace, decision="b", goal="g2")
    c = add(notes, workspace, decision="c", goal="g1")
    newest, _ = notes.recent(workspace)
    assert [n.id for n in newest] == [c, b, a]
    only, _ = notes.recent(workspace, goal="g1", limit=1)
    assert [n.id for n in only] == [c]


def test_tail_window_drops_the_partial_first_line(notes: NoteStore, workspace: str) -> None:
    ids = [add(notes, workspace, decision=f"n{i}") for i in range(20)]
    project = project_identity(workspace).project_id
    size = notes.path(project).stat().st_size
    listing = notes.read(project, tail_bytes=size // 2)
    assert listing.damaged_lines == 0
    assert [n.id for n in listing.notes] == ids[-len(listing.notes) :]
    assert 5 < len(listing.notes) < 20


def test_concurrent_appends_each_land_on_their_own_line(notes: NoteStore, workspace: str) -> None:
    def writer(k: int) -> None:
        for i in range(10):
            add(notes, workspace, decision=f"w{k}-{i}")

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    listing = notes.read(project_identity(workspace).project_id)
    assert len(listing.notes) == 40
    assert listing.damaged_lines == 0


def test_symlinked_notes_file_is_refused(notes: NoteStore, workspace: str, tmp_path: Path) -> None:
    add(notes, workspace)
    path = notes.path(project_identity(workspace).project_id)
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("", encoding="utf-8")
    path.unlink()
    path.symlink_to(target)
    with pytest.raises(UnsafePath):
        add(notes, workspace)
    with pytest.raises(UnsafePath):
        notes.read(project_identity(workspace).project_id)
    assert target.read_text(encoding="utf-8") == ""


def test_lines_are_compact_json_objects(notes: NoteStore, workspace: str) -> None:
    add(notes, workspace)
    path = notes.path(project_identity(workspace).project_id)
    (line,) = path.read_text(encoding="utf-8").splitlines()
    value = json.loads(line)
    assert value["provenance"] == "model"
    assert value["schema_version"] == 1
