"""`list --query` and `recall` find a decision by its kind's words and by any inflection of a
word it uses ("caching" finds "cache"), as a user searching their journal expects."""

from __future__ import annotations

import json
from pathlib import Path

from core.store.decisions import DecisionStore
from tests.factories import make_record
from tests.integration.cli_runner import run_cli


def _journal(root: Path) -> Path:
    store = DecisionStore(root)
    store.put(make_record(id="decision-kind-1", decision_kind="caching-strategy"))
    store.put(
        make_record(
            id="decision-word-2",
            problem="Where to cache rendered pages",
            decision_kind="storage",
            project_id="project-other",
        )
    )
    store.put(make_record(id="decision-none-3", problem="Pick a queue", decision_kind="queue"))
    return root


def _listed(journal: Path, query: str) -> list[str]:
    result = run_cli(journal, "list", "--json", "--query", query)
    assert result.returncode == 0, result.stderr
    return sorted(r["id"] for r in json.loads(result.stdout))


def test_list_query_finds_kinds_and_inflections(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "journal")
    assert _listed(journal, "caching") == ["decision-kind-1", "decision-word-2"]
    assert _listed(journal, "strategies") == ["decision-kind-1"]
    assert _listed(journal, "cached pages") == ["decision-word-2"]


def test_recall_finds_a_word_by_another_form(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "journal")
    for query in ("caching", "cache", "caches"):
        result = run_cli(journal, "recall", query, "--json")
        assert result.returncode == 0, result.stderr
        found = sorted(e["id"] for e in json.loads(result.stdout))
        assert found == ["decision-kind-1", "decision-word-2"], query
