"""Summaries follow the reader's language: an English reader's CSV and `show` hold the English
summary, a Korean reader's the stored Korean sentence (DECISION_JOURNAL_LANGUAGE, else the
locale); the JSON export keeps KernForge's Korean sentence whatever the language."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from core.record.summary import english_summary
from core.store.decisions import DecisionStore
from tests.factories import two_project_journal
from tests.integration.cli_runner import run_main

ID = "decision-test-1"


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return two_project_journal(tmp_path / "journal")


def _cli(journal: Path, env: dict[str, str], *args: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    base.pop("DECISION_JOURNAL_LANGUAGE", None)
    result = run_main(["--journal", str(journal), *args], env={**base, **env})
    assert result.returncode == 0, result.stderr
    return result.stdout


def _csv_summary(journal: Path, env: dict[str, str]) -> str:
    rows = list(csv.DictReader(io.StringIO(_cli(journal, env, "export", "--format", "csv"))))
    return next(row["summary"] for row in rows if row["id"] == ID)


@pytest.mark.parametrize(
    "env",
    [
        {"LANG": "en_US.UTF-8"},
        {"LANG": "C.UTF-8"},
        {},
        {"LANG": "ko_KR.UTF-8", "DECISION_JOURNAL_LANGUAGE": "en"},
    ],
)
def test_an_english_reader_gets_english_summaries(journal: Path, env: dict[str, str]) -> None:
    record = DecisionStore(journal).get(ID)
    assert _csv_summary(journal, env) == english_summary(record)
    shown = _cli(journal, env, "show", ID).splitlines()
    assert f"Summary:    {english_summary(record)}" in shown
    assert f"In Korean:  {record.summary_sentence}" in shown


@pytest.mark.parametrize(
    "env",
    [
        {"LANG": "ko_KR.UTF-8"},
        {"LC_ALL": "ko_KR.UTF-8", "LANG": "en_US.UTF-8"},
        {"DECISION_JOURNAL_LANGUAGE": "ko"},
    ],
)
def test_a_korean_reader_gets_the_stored_sentence(journal: Path, env: dict[str, str]) -> None:
    record = DecisionStore(journal).get(ID)
    assert record.summary_sentence.endswith("때문에 선택하지 않았다.")
    assert _csv_summary(journal, env) == record.summary_sentence
    shown = _cli(journal, env, "show", ID).splitlines()
    assert f"Summary:    {record.summary_sentence}" in shown
    assert f"In English: {english_summary(record)}" in shown


def test_the_json_export_keeps_kernforges_sentence(journal: Path) -> None:
    exported = json.loads(_cli(journal, {"LANG": "en_US.UTF-8"}, "export"))
    record = DecisionStore(journal).get(ID)
    assert next(r for r in exported if r["id"] == ID)["summary_sentence"] == (
        record.summary_sentence
    )
