"""An imported file is hostile until checked: its kind and size before a byte is read, and a
log's lines never held past their limit."""

from __future__ import annotations

import io
import os
import re
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import limits
from core.importers import make_importer
from core.importers.engine import run_import
from core.importers.ndjson_source import OVER_LONG, read_lines
from core.importers.source_file import SourceRefused, bounded_lines, read_source, read_source_text
from core.importers.sources.claude_code import transcript_files
from core.journal import Journal


def test_a_file_within_its_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "log.md"
    path.write_bytes(b"x" * 100)
    assert read_source(path, limit=100) == b"x" * 100


def test_a_file_over_its_limit_is_refused_naming_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "log.md"
    path.write_bytes(b"x" * 101)
    with pytest.raises(SourceRefused, match=r"is 101 bytes; the limit is 100 bytes"):
        read_source(path, limit=100)


def test_a_fifo_is_refused_at_once_instead_of_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "decisions.md"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_source(fifo)
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "reading a FIFO waited for a writer"
    assert isinstance(outcome[0], SourceRefused)
    assert "not a regular file" in str(outcome[0])


def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceRefused, match="not a regular file"):
        read_source(Path("/dev/zero"))


def test_text_reads_with_universal_newlines_as_read_text_does(tmp_path: Path) -> None:
    path = tmp_path / "log.md"
    path.write_bytes("\ufeffa\r\nb\rc\n".encode())
    assert read_source_text(path) == path.read_text(encoding="utf-8")


@given(st.lists(st.binary(max_size=40), max_size=12), st.integers(min_value=1, max_value=24))
def test_bounded_lines_are_the_lines_with_the_long_ones_left_out(
    pieces: list[bytes], limit: int
) -> None:
    data = b"\n".join(p.replace(b"\n", b"") for p in pieces)
    got = list(bounded_lines(io.BytesIO(data), limit))
    expected = [line for line in re.split(rb"(?<=\n)", data) if line]
    assert [length for _, length, _ in got] == [len(line) for line in expected]
    assert [ended for _, _, ended in got] == [line.endswith(b"\n") for line in expected]
    for (raw, _, _), line in zip(got, expected, strict=True):
        within = len(line) - line.endswith(b"\n") <= limit
        assert raw == (line if within else None)


def test_a_decision_log_over_the_limit_is_an_error_naming_it_and_the_rest_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "IMPORT_TEXT_FILE_MAX", 4096)
    source = tmp_path / "docs"
    source.mkdir()
    row = "| 2026-11-02 | Use SQLite | Files, Postgres | One process writes |\n"
    head = "| Date | Decision | Alternatives | Why |\n| --- | --- | --- | --- |\n"
    (source / "a.md").write_text(head + row, encoding="utf-8")
    (source / "b.md").write_text(head + row * 200, encoding="utf-8")
    report = run_import(Journal(tmp_path / "journal"), make_importer("decisions-md"), source)
    [error] = report.errors
    assert error.where.endswith("b.md")
    assert "the limit is 4,096 bytes for one imported file" in error.message
    assert report.imported == 1


def test_a_jsonl_line_over_the_limit_is_skipped_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "IMPORT_LINE_MAX", 64)
    path = tmp_path / "goals.jsonl"
    path.write_bytes(b'{"decision": "a"}\n' + b'{"x": "' + b"y" * 500 + b'"}\n{"decision": "b"}\n')
    lines = list(read_lines(path))
    assert [line.number for line in lines] == [1, 2, 3]
    assert lines[1].value is None and lines[1].problem == OVER_LONG
    assert lines[2].value == {"decision": "b"}


def test_a_transcript_linked_to_a_device_or_a_fifo_is_never_opened(tmp_path: Path) -> None:
    """Anything that can write into ~/.claude/projects must not fill the tray's memory."""
    project = tmp_path / "projects" / "-tmp-p"
    project.mkdir(parents=True)
    (project / "zero.jsonl").symlink_to("/dev/zero")
    os.mkfifo(project / "fifo.jsonl")
    (project / "real.jsonl").write_text("{}\n", encoding="utf-8")
    assert transcript_files(tmp_path / "projects") == [project / "real.jsonl"]
    report = run_import(Journal(tmp_path / "journal"), make_importer("claude-code"), tmp_path)
    assert report.errors == []


def test_a_fifo_named_as_the_transcript_is_skipped_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    done: list[object] = []
    worker = threading.Thread(
        target=lambda: done.append(
            run_import(Journal(tmp_path / "journal"), make_importer("claude-code"), fifo)
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=20)
    assert done, "importing a FIFO waited for a writer"


def test_kernforge_records_linked_from_elsewhere_are_not_read(tmp_path: Path) -> None:
    records = tmp_path / "other" / "records"
    records.mkdir(parents=True)
    (records / "decision-x.json").symlink_to("/etc/passwd")
    report = run_import(Journal(tmp_path / "journal"), make_importer("kernforge"), records.parent)
    assert report.read == 0
