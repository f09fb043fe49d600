"""The store behaviours of the reference checklist, as our own tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from core.errors import (
    HistoryBroken,
    InvalidDecision,
    JournalDamaged,
    NotFound,
    RevisionConflict,
    UnsafePath,
)
from core.exporters.json_export import export_journal
from core.record.filters import ListFilter
from core.record.models import RejectedReason
from core.record.validation import is_valid_decision_id, is_valid_option_id
from core.store.decisions import DecisionStore
from tests.factories import make_record

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
GH_SECRET = "ghp_q7Lm2Xp9Rt4Vw8Zs1Kd5Fg3Jb6Nc0Hy2Ae8Tu"


@pytest.fixture
def store(tmp_path: Path) -> DecisionStore:
    return DecisionStore(tmp_path / "journal")


def test_put_get_list_export(store: DecisionStore) -> None:
    stored = store.put(make_record())
    assert (stored.revision, stored.schema_version, stored.status) == (1, 1, "completed")
    assert "Per-record JSON" in stored.summary_sentence
    assert (store.records_dir / "decision-test-1.json").is_file()
    assert store.get("decision-test-1") == stored
    assert [r.id for r in store.list(ListFilter(project_id="PROJECT-KERNFORGE"))] == [stored.id]
    assert store.list(ListFilter(project_id="other")) == []
    assert b"decision-test-1" in export_journal(store)


def test_files_and_directories_are_private(store: DecisionStore) -> None:
    store.put(make_record())
    assert oct(os.stat(store.root).st_mode & 0o777) == "0o700"
    assert oct(os.stat(store.records_dir).st_mode & 0o777) == "0o700"
    assert oct(os.stat(store.records_dir / "decision-test-1.json").st_mode & 0o777) == "0o600"
    assert oct(os.stat(store.records_dir / "decision-test-1.json.lock").st_mode & 0o777) == "0o600"


def test_put_is_idempotent_and_rejects_overwrite(store: DecisionStore) -> None:
    first = store.put(make_record())
    again = store.put(make_record())
    assert again.revision == first.revision == 1
    assert again.updated_at == first.updated_at
    with pytest.raises(RevisionConflict):
        store.put(make_record(selection_reason_raw="a different reason"))


def test_derives_stable_id_from_fingerprints(store: DecisionStore) -> None:
    record = make_record(id="", task_fingerprint="task-1", evidence_fingerprint="evidence-1")
    first = store.put(record)
    assert first.id.startswith("decision-") and len(first.id) == len("decision-") + 32
    assert store.put(record).id == first.id
    assert len(store.list()) == 1


def test_revision_and_soft_delete(store: DecisionStore) -> None:
    store.put(make_record())

    def new_reason(r):  # type: ignore[no-untyped-def]
        r.selection_reason_raw = "a better reason"

    revised = store.revise("decision-test-1", 1, new_reason)
    assert (revised.revision, revised.status) == (2, "corrected")
    with pytest.raises(RevisionConflict):
        store.revise("decision-test-1", 1, new_reason)
    deleted = store.soft_delete("decision-test-1", 2)
    assert deleted.status == "deleted" and deleted.deleted_at is not None
    assert store.list() == []
    assert [r.id for r in store.list(ListFilter(include_deleted=True))] == ["decision-test-1"]
    assert [r.revision for r in store.history("decision-test-1")] == [1, 2, 3]
    restored = store.restore("decision-test-1", 3)
    assert (restored.status, restored.deleted_at, restored.revision) == ("corrected", None, 4)


def test_restore_rejects_active_record(store: DecisionStore) -> None:
    store.put(make_record())
    with pytest.raises(RevisionConflict, match="not deleted"):
        store.restore("decision-test-1", 1)


def test_custom_choice_is_redacted_and_flag_survives_revise(store: DecisionStore) -> None:
    record = make_record(
        selected_option_id="",
        custom_selection="Hybrid index",
        selection_reason_raw=f"api_key={SECRET} made it easy",
        rejected_reasons=[
            RejectedReason(option_id="per-record-json", reason="too many files", source="user"),
            RejectedReason(option_id="single-json", reason="bottleneck", source="user"),
        ],
    )
    stored = store.put(record)
    assert stored.redaction.redacted
    raw = (store.records_dir / f"{stored.id}.json").read_text()
    assert SECRET not in raw and "[REDACTED:" in raw

    def retag(r):  # type: ignore[no-untyped-def]
        r.tags = ["x"]

    assert store.revise(stored.id, 1, retag).redaction.redacted


def test_requires_selection_and_rejection_rationales(store: DecisionStore) -> None:
    with pytest.raises(InvalidDecision, match="selection rationale"):
        store.put(make_record(selection_reason_raw=" "))
    with pytest.raises(InvalidDecision, match="rejection rationale"):
        store.put(
            make_record(rejected_reasons=[RejectedReason(option_id="single-json", reason="")])
        )
    with pytest.raises(InvalidDecision, match="rejection entry"):
        store.put(make_record(rejected_reasons=[]))


def test_revise_wraps_only_mutation_validation(store: DecisionStore) -> None:
    store.put(make_record())

    def break_it(r):  # type: ignore[no-untyped-def]
        r.selected_option_id = "missing"

    with pytest.raises(InvalidDecision):
        store.revise("decision-test-1", 1, break_it)
    path = store.records_dir / "decision-test-1.json"
    path.write_bytes(path.read_bytes() + b"{}")
    with pytest.raises(JournalDamaged) as info:
        store.revise("decision-test-1", 1, lambda r: None)
    assert not isinstance(info.value, InvalidDecision)
    assert "trailing data" in str(info.value)


def test_injected_redaction_metadata_is_discarded(store: DecisionStore) -> None:
    record = make_record(tags=[f"tag {SECRET}"], domains=["storage"])
    record.redaction.redacted = True
    record.redaction.patterns = ["injected_pattern"]
    stored = store.put(record)
    assert "injected_pattern" not in stored.redaction.patterns
    assert stored.redaction.patterns
    assert SECRET not in json.dumps(stored.to_go_dict())


@pytest.mark.parametrize(
    "overrides",
    [
        {"id": GH_SECRET},
        {"decision_kind": GH_SECRET},
        {"task_fingerprint": GH_SECRET},
        {"evidence_fingerprint": GH_SECRET},
    ],
)
def test_secret_identifiers_are_rejected(store: DecisionStore, overrides: dict[str, str]) -> None:
    with pytest.raises(InvalidDecision, match="sensitive"):
        store.put(make_record(**overrides))
    assert not any(GH_SECRET in p.name for p in store.root.rglob("*"))


def test_secret_option_id_is_rejected(store: DecisionStore) -> None:
    record = make_record()
    record.options[1].id = GH_SECRET
    record.rejected_reasons[0].option_id = GH_SECRET
    with pytest.raises(InvalidDecision, match="sensitive"):
        store.put(record)


def test_revision_overflow_leaves_file_unchanged(store: DecisionStore) -> None:
    store.put(make_record())
    path = store.records_dir / "decision-test-1.json"
    data = json.loads(path.read_text())
    data["revision"] = sys.maxsize
    path.write_text(json.dumps(data, indent=2) + "\n")
    before = path.read_bytes()
    with pytest.raises(InvalidDecision, match="revision"):
        store.revise("decision-test-1", sys.maxsize, lambda r: None)
    assert path.read_bytes() == before


@pytest.mark.parametrize("record_id", ["revision-custom-decision", "revision-000001"])
def test_history_prefixed_ids_work(store: DecisionStore, record_id: str) -> None:
    store.put(make_record(id=record_id))
    assert store.get(record_id).id == record_id

    def retag(r):  # type: ignore[no-untyped-def]
        r.tags = ["t"]

    assert store.revise(record_id, 1, retag).revision == 2


def test_history_rejects_current_style_filename(store: DecisionStore) -> None:
    store.put(make_record())
    directory = store.history_dir / "decision-test-1"
    directory.mkdir(parents=True)
    (directory / "decision-test-1.json").write_bytes(
        (store.records_dir / "decision-test-1.json").read_bytes()
    )
    with pytest.raises(HistoryBroken, match="history filename"):
        store.history("decision-test-1")


def test_put_does_not_mutate_caller(store: DecisionStore) -> None:
    record = make_record(id="", task_fingerprint="task-x", evidence_fingerprint="evidence-x")
    record.options[0].label = f"Label {SECRET}"
    snapshot = record.model_dump()
    first = store.put(record)
    assert record.model_dump() == snapshot
    assert store.put(record).id == first.id
    assert len(store.record_files()) == 1


def test_stable_id_avoids_delimiter_collisions(store: DecisionStore) -> None:
    from core.record.identity import decision_id
    from core.record.models import Option

    left = [Option(id="a", label="x"), Option(id="b", label="y|c=z")]
    right = [Option(id="a", label="x|b=y"), Option(id="c", label="z")]
    common = {"project_id": "p", "task_fp": "t", "evidence_fp": "e", "problem": "q"}
    assert decision_id(options=left, **common) != decision_id(options=right, **common)


def test_oversized_file_rejected_before_decode(store: DecisionStore) -> None:
    store.put(make_record())
    path = store.records_dir / "decision-test-1.json"
    path.write_bytes(b" " * (1024 * 1024 + 10))
    with pytest.raises(JournalDamaged, match="storage limit"):
        store.get("decision-test-1")


def test_oversized_workspace_rejected(store: DecisionStore) -> None:
    with pytest.raises(InvalidDecision, match="storage limit") as info:
        store.put(make_record(workspace="w" * (2 * 1024 * 1024)))
    assert info.value.field == "workspace"


def test_reads_seven_digit_history_revision(store: DecisionStore) -> None:
    store.put(make_record())
    path = store.records_dir / "decision-test-1.json"
    history = store.history_dir / "decision-test-1"
    history.mkdir(parents=True)
    base = json.loads(path.read_text())
    # A million-revision chain is too slow to write; the name is accepted and its gap reported.
    (history / "revision-1000000.json").write_text(json.dumps({**base, "revision": 1000000}))
    with pytest.raises(HistoryBroken, match="missing revision 2"):
        store.history("decision-test-1")


def test_symlinked_record_is_rejected(store: DecisionStore, tmp_path: Path) -> None:
    store.put(make_record())
    path = store.records_dir / "decision-test-1.json"
    target = tmp_path / "elsewhere.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    with pytest.raises(UnsafePath):
        store.get("decision-test-1")


def test_symlinked_store_and_lock_are_rejected(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "journal").mkdir()
    (tmp_path / "journal" / "records").symlink_to(real)
    with pytest.raises(UnsafePath):
        DecisionStore(tmp_path / "journal").put(make_record())

    other = DecisionStore(tmp_path / "j2")
    other.records_dir.mkdir(parents=True)
    (tmp_path / "victim").write_text("")
    (other.records_dir / "decision-test-1.json.lock").symlink_to(tmp_path / "victim")
    with pytest.raises(UnsafePath):
        other.put(make_record())


def test_tampered_history_makes_revise_fail(store: DecisionStore) -> None:
    store.put(make_record())
    history = store.history_dir / "decision-test-1"
    history.mkdir(parents=True)
    (history / "revision-000001.json").write_text("{}\n")
    with pytest.raises(HistoryBroken):
        store.revise("decision-test-1", 1, lambda r: setattr(r, "tags", ["x"]))
    assert store.get("decision-test-1").revision == 1


def test_export_is_privacy_reduced_by_default(store: DecisionStore) -> None:
    store.put(make_record())
    public = json.loads(export_journal(store))
    assert "session_id" not in public[0] and "workspace" not in public[0]
    assert "evidence_refs" not in public[0] and "project_alias" not in public[0]
    private = json.loads(export_journal(store, include_private=True))
    assert private[0]["session_id"] == "session-1"


def test_corrupt_record_reported_without_hiding_healthy(store: DecisionStore) -> None:
    store.put(make_record())
    (store.records_dir / "decision-broken.json").write_text("{broken")
    result = store.list_with_issues()
    assert [r.id for r in result.records] == ["decision-test-1"]
    assert len(result.issues) == 1 and "decision-broken.json" in result.issues[0].path
    with pytest.raises(JournalDamaged, match="1 unreadable record"):
        store.list()
    with pytest.raises(JournalDamaged):
        export_journal(store)


@pytest.mark.parametrize("record_id", ["../escape", "a..b", ".", "x" * 161, "with space"])
def test_invalid_ids_rejected(store: DecisionStore, record_id: str) -> None:
    with pytest.raises(InvalidDecision):
        store.put(make_record(id=record_id))


@pytest.mark.parametrize("record_id", ["decision-test-1\n", "decision-test-1\r\n"])
def test_an_id_with_a_line_break_is_invalid_not_missing(
    store: DecisionStore, record_id: str
) -> None:
    """Go's `$` ends the text, Python's `$` also matches before a final newline: an ID with a
    trailing line break must be refused as invalid (its file name would hold the break), as
    the reference refuses it."""
    store.put(make_record())
    with pytest.raises(InvalidDecision, match="invalid implementation decision id"):
        store.get(record_id)
    with pytest.raises(InvalidDecision, match="invalid implementation decision id"):
        store.record_path(record_id)


def test_identifier_patterns_match_the_whole_text() -> None:
    assert is_valid_decision_id("decision-1") and is_valid_option_id("option-a")
    assert not is_valid_decision_id("decision-1\n")
    assert not is_valid_option_id("option-a\n")


def test_invalid_options_rejected(store: DecisionStore) -> None:
    record = make_record()
    record.options = record.options[:1]
    with pytest.raises(InvalidDecision, match="2 to 4 options"):
        store.put(record)
    with pytest.raises(InvalidDecision, match="not present"):
        store.put(make_record(selected_option_id="nope"))


@pytest.mark.parametrize(
    "overrides", [{"decision_kind": ""}, {"decision_kind": "k" * 129}, {"risk_level": "urgent"}]
)
def test_requires_bounded_kind_and_known_risk(
    store: DecisionStore, overrides: dict[str, str]
) -> None:
    with pytest.raises(InvalidDecision):
        store.put(make_record(**overrides))


def test_revise_cannot_clear_kind(store: DecisionStore) -> None:
    store.put(make_record())
    with pytest.raises(InvalidDecision):
        store.revise("decision-test-1", 1, lambda r: setattr(r, "decision_kind", ""))
    assert store.get("decision-test-1").revision == 1


def test_legacy_metadata_readable_then_repairable(store: DecisionStore) -> None:
    store.put(make_record())
    path = store.records_dir / "decision-test-1.json"
    data = json.loads(path.read_text())
    data["decision_kind"] = "k" * 129
    data["risk_level"] = "urgent"
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert store.get("decision-test-1").decision_kind == "k" * 129
    with pytest.raises(InvalidDecision):
        store.revise("decision-test-1", 1, lambda r: setattr(r, "tags", ["x"]))

    def repair(r):  # type: ignore[no-untyped-def]
        r.decision_kind = "storage_backend"
        r.risk_level = "high"

    assert store.revise("decision-test-1", 1, repair).revision == 2


def test_unknown_field_and_wrong_type_are_unreadable(store: DecisionStore) -> None:
    store.put(make_record())
    path = store.records_dir / "decision-test-1.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "surprise": 1}))
    with pytest.raises(JournalDamaged, match="surprise"):
        store.get("decision-test-1")
    path.write_text(json.dumps({**data, "revision": "1"}))
    with pytest.raises(JournalDamaged, match="revision"):
        store.get("decision-test-1")


def test_history_is_consistent_under_concurrent_revise(store: DecisionStore) -> None:
    import threading

    store.put(make_record())
    errors: list[BaseException] = []

    def revise() -> None:
        try:
            store.revise("decision-test-1", 1, lambda r: setattr(r, "tags", ["t"]))
        except RevisionConflict:
            pass
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=revise) for _ in range(4)]
    for thread in threads:
        thread.start()
    history = store.history("decision-test-1")
    for thread in threads:
        thread.join()
    assert not errors
    assert [r.revision for r in history] in ([1], [1, 2])
    assert [r.revision for r in store.history("decision-test-1")] == [1, 2]


def test_missing_record_history_is_empty_and_get_is_not_found(store: DecisionStore) -> None:
    assert store.history("decision-none") == []
    with pytest.raises(NotFound, match=r"^decision decision-none does not exist$"):
        store.get("decision-none")
