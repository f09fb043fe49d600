"""Where `export -o` writes when the path is a folder that does not exist yet, or cannot be
written at all: through the real CLI process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import two_project_journal
from tests.integration.cli_runner import run_cli


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return two_project_journal(tmp_path / "journal", "Pick a cache invalidation strategy")


@pytest.mark.parametrize(("kind", "suffix"), [("csv", ".csv"), ("json", ".json")])
def test_a_trailing_slash_names_a_new_folder_to_write_into(
    journal: Path, tmp_path: Path, kind: str, suffix: str
) -> None:
    folder = tmp_path / "exports" / "today"
    result = run_cli(journal, "export", "--format", kind, "-o", f"{folder}/")
    assert result.returncode == 0, result.stderr
    assert folder.is_dir()
    (written,) = folder.iterdir()
    assert written.name.startswith(f"decision-journal-{kind}-") and written.suffix == suffix
    assert result.stdout == f"Exported 2 decisions to {written}\n"


def test_a_target_that_cannot_be_written_names_it_and_why(journal: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "plain-file"
    blocker.write_text("not a folder")
    target = blocker / "out.json"
    result = run_cli(journal, "export", "-o", str(target))
    assert result.returncode == 1
    assert result.stderr == (
        f"decision-journal: error: cannot write {target}: {blocker} is a file, not a folder\n"
    )
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("kind", ["csv", "madr"])
def test_a_target_in_a_folder_that_does_not_exist_fails_and_creates_nothing(
    journal: Path, tmp_path: Path, kind: str
) -> None:
    missing = tmp_path / "nonexistent" / "dir"
    target = missing / ("file.csv" if kind == "csv" else "adr")
    result = run_cli(journal, "export", "--format", kind, "-o", str(target))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"decision-journal: error: cannot write {target}: the folder {missing} does not exist "
        f"(end the path with / to create a folder and write into it)\n"
    )
    assert not (tmp_path / "nonexistent").exists()


def test_export_takes_the_list_filters_and_limit(journal: Path) -> None:
    result = run_cli(journal, "export", "--format", "csv", "--limit", "1")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 2  # the header and the newest decision
    assert "decision-test-2" in result.stdout
