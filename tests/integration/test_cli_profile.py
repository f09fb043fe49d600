"""`decision-journal profile …`: output, JSON and exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from core.record.identity import project_identity
from core.record.models import DecisionRecord, RejectedReason
from core.store.decisions import DecisionStore
from tests.factories import make_record
from tests.integration.cli_runner import run_cli

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"


def cli(journal: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(journal, *args)


def cli_json(journal: Path, *args: str) -> Any:
    run = cli(journal, *args, "--json")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def record(number: int, project_id: str, choice: str = "per-record-json") -> DecisionRecord:
    other = "single-json" if choice == "per-record-json" else "per-record-json"
    return make_record(
        id=f"decision-{number}",
        project_id=project_id,
        selected_option_id=choice,
        rejected_reasons=[RejectedReason(option_id=other, reason="not this", source="user")],
    )


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """Five user decisions over projects a, a, b, b, c: two project rules, domain and global."""
    root = tmp_path / "journal"
    store = DecisionStore(root)
    for number, project in enumerate("aabbc", start=1):
        store.put(record(number, f"project-{project}"))
    return root


def rebuilt(journal: Path) -> dict[str, Any]:
    run = cli(journal, "profile", "rebuild")
    assert run.returncode == 0, run.stderr
    data: dict[str, Any] = cli_json(journal, "profile", "show")
    return data


def test_rebuild_reports_rules_and_time(journal: Path) -> None:
    run = cli(journal, "profile", "rebuild")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Rebuilt profile revision 1: 4 rules from 5 records in ")
    assert run.stdout.rstrip().endswith(" s.")


def test_show_lists_rules_with_state(journal: Path) -> None:
    before = cli_json(journal, "profile", "show")
    assert (before["state"], before["profile"]["revision"]) == ("stale", 0)
    shown = rebuilt(journal)
    assert shown["state"] == "current" and shown["error"] == ""
    profile = shown["profile"]
    assert [r["scope"] for r in profile["rules"]] == ["project", "project", "domain", "global"]
    assert profile["record_count"] == 5 and profile["source_hash"] == shown["journal_hash"]
    text = cli(journal, "profile", "show")
    assert text.returncode == 0
    assert "state: current" in text.stdout and "Per-record JSON" in text.stdout
    for header in ("SCOPE", "KEY", "CRITERION", "SUPPORT", "CONTRA", "CONF", "PINNED", "NOTE"):
        assert header in text.stdout


def test_edit_makes_the_profile_stale(journal: Path) -> None:
    rebuilt(journal)
    edit = cli(journal, "edit", "decision-1", "--expected-revision", "1", "--tags", "later")
    assert edit.returncode == 0, edit.stderr
    assert cli_json(journal, "profile", "show")["state"] == "stale"


def test_match_returns_evidence_in_resolution_order(journal: Path) -> None:
    rebuilt(journal)
    result = cli_json(
        journal,
        "profile",
        "match",
        "--project",
        "project-a",
        "--domain",
        "storage",
        "--kind",
        "STORAGE_BACKEND",
    )
    assert next(iter(result)) == "notice" and "not an instruction" in result["notice"]
    assert [m["scope"] for m in result["matches"]] == ["project", "domain", "global"]
    first = result["matches"][0]
    assert first["support_decision_ids"] == ["decision-1", "decision-2"]
    assert first["contradiction_decision_ids"] == []
    assert 0 < first["wilson_lower_95"] < first["confidence"]
    assert result["profile_state"] == "current"
    text = cli(journal, "profile", "match", "--domain", "storage", "--kind", "storage_backend")
    assert text.returncode == 0
    assert text.stdout.startswith("Evidence, not an instruction")
    assert "wilson_lower_95" in text.stdout and "domain storage" in text.stdout


def test_match_by_workspace_uses_the_project_identity(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    project_id = project_identity(str(workspace)).project_id
    root = tmp_path / "journal"
    store = DecisionStore(root)
    store.put(record(1, project_id))
    store.put(record(2, project_id))
    rebuilt(root)
    result = cli_json(
        root, "profile", "match", "--workspace", str(workspace), "--kind", "storage_backend"
    )
    assert [(m["scope"], m["scope_key"]) for m in result["matches"]] == [("project", project_id)]


def test_set_changes_overrides_under_revision_cas(journal: Path) -> None:
    rule_id = rebuilt(journal)["profile"]["rules"][0]["id"]
    ok = cli(journal, "profile", "set", rule_id, "--expected-revision", "1", "--pinned", "true")
    assert ok.returncode == 0, ok.stderr
    assert "profile revision 2" in ok.stdout
    stale = cli(
        journal, "profile", "set", rule_id, "--expected-revision", "1", "--enabled", "false"
    )
    assert stale.returncode == 4
    assert "revision 2, expected 1" in stale.stderr and "revision-conflict" in stale.stderr
    noted = cli(
        journal, "profile", "set", rule_id, "--expected-revision", "2", "--note", f"key {SECRET}"
    )
    assert noted.returncode == 0, noted.stderr
    assert "redacted" in noted.stderr
    rule = cli_json(journal, "profile", "show")["profile"]["rules"][0]
    assert rule["pinned"] and rule["user_note_redacted"] and SECRET not in rule["user_note"]
    assert rule["enabled"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("set", "preference-missing", "--expected-revision", "1", "--pinned", "true"), 5),
        (("set", "RULE", "--expected-revision", "1"), 2),
        (("set", "RULE", "--expected-revision", "1", "--pinned", "maybe"), 2),
        (("set", "RULE", "--expected-revision", "0", "--pinned", "true"), 2),
        (("match", "--project", "p", "--workspace", "w", "--kind", "k"), 2),
        (("match",), 2),
        ((), 2),
    ],
)
def test_exit_codes_for_bad_requests(journal: Path, args: tuple[str, ...], code: int) -> None:
    rule_id = rebuilt(journal)["profile"]["rules"][0]["id"]
    run = cli(journal, "profile", *(rule_id if a == "RULE" else a for a in args))
    assert run.returncode == code, run.stdout + run.stderr


def test_corrupt_profile_is_never_overwritten(journal: Path) -> None:
    rebuilt(journal)
    path = journal / "profiles" / "profile.json"
    path.write_bytes(b"{broken")
    for action in (("rebuild",), ("show",), ("match", "--kind", "storage_backend")):
        run = cli(journal, "profile", *action)
        assert run.returncode == 6, run.stderr
        assert "profile-corrupt" in run.stderr
    assert path.read_bytes() == b"{broken"


def test_unreadable_record_fails_the_rebuild(journal: Path) -> None:
    before = rebuilt(journal)["profile"]
    (journal / "records" / "decision-3.json").write_text("{}")
    run = cli(journal, "profile", "rebuild")
    assert run.returncode == 6
    assert "unreadable-record" in run.stderr and "decision-3.json" in run.stderr
    shown = cli_json(journal, "profile", "show")
    assert shown["state"] == "error" and shown["profile"] == before
