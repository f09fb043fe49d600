"""profiles/profile.json on disk: strict load, CAS, overrides across rebuilds, staleness."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from core.errors import (
    JournalDamaged,
    NotFound,
    ProfileConflict,
    ProfileDamaged,
    ProfileInvalid,
    UnsafePath,
)
from core.gocompat.gotime import GoTime
from core.profile.model import PreferenceProfile, ProfileOverride, ProfileRule
from core.profile.store import ProfileStore
from core.record.models import RejectedReason
from core.store.decisions import DecisionStore
from tests.factories import count_record_reads, decision

ROOT = Path(__file__).resolve().parents[3]
SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"


@pytest.fixture
def store(tmp_path: Path) -> DecisionStore:
    return DecisionStore(tmp_path / "journal")


@pytest.fixture
def profiles(store: DecisionStore) -> ProfileStore:
    return ProfileStore(store.root, store)


def put_promoting(store: DecisionStore) -> None:
    """Two decisions in project a: exactly one project rule plus nothing wider."""
    store.put(decision(1, domains=()))
    store.put(decision(2, domains=()))


def only_rule(profiles: ProfileStore) -> ProfileRule:
    profile = profiles.load()
    assert len(profile.rules) == 1
    return profile.rules[0]


# loading ---------------------------------------------------------------------------------------


def test_missing_profile_is_revision_zero_and_stale(profiles: ProfileStore) -> None:
    profile = profiles.load()
    assert (profile.revision, profile.rules, profile.schema_version) == (0, [], 1)
    assert profiles.status().state == "stale"


def test_rebuild_writes_a_private_profile_that_loads_back(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    result = profiles.rebuild()
    assert result.profile.revision == 1
    assert profiles.load() == result.profile
    assert oct(os.stat(profiles.path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(profiles.directory).st_mode & 0o777) == "0o700"
    assert profiles.status().state == "current"


def test_load_rejects_symlink(store: DecisionStore, profiles: ProfileStore, tmp_path: Path) -> None:
    put_promoting(store)
    profiles.rebuild()
    target = tmp_path / "elsewhere.json"
    target.write_bytes(profiles.path.read_bytes())
    profiles.path.unlink()
    profiles.path.symlink_to(target)
    with pytest.raises(UnsafePath):
        profiles.load()
    before = target.read_bytes()
    with pytest.raises(JournalDamaged):
        profiles.rebuild()
    assert target.read_bytes() == before and profiles.path.is_symlink()


@pytest.mark.parametrize(
    "content",
    [b"{broken", b'{"schema_version": 0, "revision": 1, "generated_at": "2026-01-01T00:00:00Z"}'],
)
def test_rebuild_refuses_corrupt_prior_profile(
    store: DecisionStore, profiles: ProfileStore, content: bytes
) -> None:
    put_promoting(store)
    profiles.directory.mkdir(mode=0o700)
    profiles.path.write_bytes(content)
    with pytest.raises(ProfileDamaged) as caught:
        profiles.rebuild()
    assert caught.value.runbook_anchor == "profile-corrupt"
    assert profiles.path.read_bytes() == content
    assert profiles.status().state == "error"


def test_load_rejects_override_without_timestamp(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    profiles.rebuild()
    data = json.loads(profiles.path.read_bytes())
    data["overrides"] = {data["rules"][0]["id"]: {"enabled": False}}
    profiles.path.write_text(json.dumps(data))
    with pytest.raises(ProfileDamaged, match="updated_at"):
        profiles.load()


def test_unreadable_record_fails_rebuild_and_names_the_runbook(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    first = profiles.rebuild().profile
    before = profiles.path.read_bytes()
    (store.records_dir / "decision-1.json").write_bytes(b'{"id": "decision-1"} trailing')
    with pytest.raises(JournalDamaged) as caught:
        profiles.rebuild()
    assert caught.value.runbook_anchor == "unreadable-record"
    assert "decision-1.json" in str(caught.value)
    assert profiles.path.read_bytes() == before
    with pytest.raises(JournalDamaged):
        ProfileStore(store.root, store).rebuild()  # the cold path fails the same way
    assert profiles.load() == first
    assert profiles.status().state == "error"


def test_record_files_with_an_upper_case_extension_are_read_too(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    path = store.records_dir / "decision-2.json"
    path.rename(path.with_name("decision-2.JSON"))
    profile = profiles.rebuild().profile
    assert profile.record_count == 2 and len(profile.rules) == 1


# staleness -------------------------------------------------------------------------------------


def test_any_edit_makes_the_profile_stale(store: DecisionStore, profiles: ProfileStore) -> None:
    put_promoting(store)
    profiles.rebuild()
    store.revise("decision-1", 1, lambda r: setattr(r, "tags", ["metadata-only"]))
    assert profiles.status().state == "stale"
    profiles.rebuild()
    assert profiles.status().state == "current"
    store.soft_delete("decision-2", 1)
    assert profiles.status().state == "stale"


def test_unchanged_files_are_not_read_again(
    store: DecisionStore, profiles: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("core.bulk.file_identity.RACY_NS", -(10**18))  # trust fresh files
    for number in range(1, 5):
        store.put(decision(number))
    profiles.rebuild()
    reads = count_record_reads(monkeypatch)
    store.revise("decision-2", 1, lambda r: setattr(r, "tags", ["x"]))
    assert profiles.status().state == "stale"
    assert reads == ["decision-2.json"]


def test_in_place_tampering_with_restored_mtime_is_detected(
    store: DecisionStore, profiles: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("core.bulk.file_identity.RACY_NS", -(10**18))  # trust fresh files
    put_promoting(store)
    profiles.rebuild()
    path = store.records_dir / "decision-1.json"
    info = os.stat(path)
    data = path.read_bytes().replace(b"lost updates", b"LOST updates")
    with open(path, "r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert os.stat(path).st_size == info.st_size
    assert profiles.status().state == "stale"


def test_warm_rebuild_equals_a_cold_rebuild(store: DecisionStore, profiles: ProfileStore) -> None:
    for number in range(1, 7):
        store.put(decision(number, "ab"[number % 2]))
    profiles.rebuild()
    store.revise("decision-3", 1, lambda r: setattr(r, "tags", ["edited"]))
    store.soft_delete("decision-4", 1)
    warm = profiles.rebuild().profile
    cold = ProfileStore(store.root, store).rebuild().profile
    assert (warm.source_hash, warm.record_count) == (cold.source_hash, cold.record_count)
    assert [r.derived_fields() for r in warm.rules] == [r.derived_fields() for r in cold.rules]


# overrides -------------------------------------------------------------------------------------


def test_update_rule_rejects_derived_mutation(store: DecisionStore, profiles: ProfileStore) -> None:
    put_promoting(store)
    profiles.rebuild()
    before = profiles.path.read_bytes()
    rule = only_rule(profiles)
    with pytest.raises(ProfileInvalid, match="source-derived"):
        profiles.update_rule(rule.id, 1, lambda r: setattr(r, "preference", "other@1"))
    with pytest.raises(ProfileInvalid, match="source-derived"):
        profiles.update_rule(rule.id, 1, lambda r: setattr(r, "confidence", 0.2))
    assert profiles.path.read_bytes() == before


def test_update_rule_checks_its_arguments_revision_and_rule(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    profiles.rebuild()
    rule = only_rule(profiles)
    with pytest.raises(ProfileInvalid, match="required"):
        profiles.update_rule(rule.id, 0, lambda r: None)
    with pytest.raises(ProfileInvalid, match="required"):
        profiles.update_rule(" ", 1, lambda r: None)
    with pytest.raises(ProfileInvalid, match="required"):
        profiles.update_rule(rule.id, 1, None)
    with pytest.raises(ProfileConflict, match="revision 1, expected 2"):
        profiles.set_rule(rule.id, 2, pinned=True)
    with pytest.raises(NotFound):
        profiles.set_rule("preference-missing", 1, pinned=True)
    with pytest.raises(ProfileInvalid, match="nothing to change"):
        profiles.set_rule(rule.id, 1)


def test_update_rule_changes_only_overrides_and_bumps_the_revision(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    built = profiles.rebuild().profile
    rule = built.rules[0]
    updated = profiles.set_rule(rule.id, 1, enabled=False, pinned=True, note="prefer this")
    changed = updated.rules[0]
    assert (updated.revision, changed.enabled, changed.pinned, changed.user_note) == (
        2,
        False,
        True,
        "prefer this",
    )
    assert changed.derived_fields() == rule.derived_fields()
    assert updated.overrides[rule.id].pinned
    assert (updated.source_hash, updated.record_count) == (built.source_hash, built.record_count)
    restored = profiles.set_rule(rule.id, 2, enabled=True, pinned=False, note="")
    assert restored.overrides == {}, "an override without effect is removed"


def test_save_rejects_source_hash_and_rule_mutation(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    profiles.rebuild()
    before = profiles.path.read_bytes()
    tampered = profiles.load()
    tampered.source_hash = "journal-" + "f" * 32
    with pytest.raises(ProfileInvalid, match="source-derived"):
        profiles.save(tampered)
    tampered = profiles.load()
    tampered.rules[0].support_decision_ids = ["decision-1"]
    with pytest.raises(ProfileInvalid, match="source-derived"):
        profiles.save(tampered)
    tampered = profiles.load()
    tampered.record_count += 1
    with pytest.raises(ProfileInvalid, match="source-derived"):
        profiles.save(tampered)
    assert profiles.path.read_bytes() == before


def test_rejects_stale_save(store: DecisionStore, profiles: ProfileStore) -> None:
    put_promoting(store)
    profiles.rebuild()
    first, second = profiles.load(), profiles.load()
    first.rules[0].pinned = True
    saved = profiles.save(first)
    assert saved.revision == 2 and saved.overrides[saved.rules[0].id].pinned
    second.rules[0].enabled = False
    with pytest.raises(ProfileConflict):
        profiles.save(second)
    kept = only_rule(profiles)
    assert (kept.pinned, kept.enabled) == (True, True)


def test_save_without_a_file_starts_at_revision_one(profiles: ProfileStore) -> None:
    profile = PreferenceProfile(schema_version=1, revision=7, generated_at=GoTime.now())
    assert profiles.save(profile).revision == 1


def test_rebuild_preserves_user_overrides(store: DecisionStore, profiles: ProfileStore) -> None:
    for number, project in enumerate("aabbcc", start=1):
        store.put(decision(number, project, domains=()))
    profile = profiles.rebuild().profile
    a, b, c = (rule.id for rule in profile.rules if rule.scope == "project")
    profiles.set_rule(a, 1, enabled=False)
    profiles.set_rule(b, 2, pinned=True)
    profiles.set_rule(c, 3, note="keep this in mind")
    rebuilt = profiles.rebuild().profile
    assert rebuilt.revision == 5
    by_id = {rule.id: rule for rule in rebuilt.rules}
    assert not by_id[a].enabled and by_id[b].pinned and by_id[c].user_note == "keep this in mind"
    assert set(rebuilt.overrides) == {a, b, c}


def test_overrides_survive_demotion_and_return_on_repromotion(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    rule = profiles.rebuild().profile.rules[0]
    profiles.set_rule(rule.id, 1, pinned=True, note="sticky")
    store.soft_delete("decision-2", 1)
    demoted = profiles.rebuild().profile
    assert demoted.rules == [], "pinning never forces promotion"
    assert demoted.overrides[rule.id].pinned and demoted.overrides[rule.id].user_note == "sticky"
    store.restore("decision-2", 2)
    restored = profiles.rebuild().profile
    assert [r.id for r in restored.rules] == [rule.id]
    assert restored.rules[0].pinned and restored.rules[0].user_note == "sticky"


def test_overrides_are_bounded_with_active_and_recent_priority(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    rule = profiles.rebuild().profile.rules[0]
    profile = profiles.load()
    profile.rules[0].pinned = True
    for number in range(1, 5):
        profile.overrides[f"preference-dormant-{number}"] = ProfileOverride(
            enabled=False, updated_at=GoTime(1_000 * number)
        )
    profile.overrides["preference-no-effect"] = ProfileOverride(
        enabled=True, updated_at=GoTime(10**9)
    )
    profiles.save(profile)
    bounded = ProfileStore(store.root, store, override_limit=2).rebuild().profile
    assert set(bounded.overrides) == {rule.id, "preference-dormant-4"}


def test_note_redaction_sets_the_flag_and_survives_rebuild(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    rule = profiles.rebuild().profile.rules[0]
    updated = profiles.set_rule(rule.id, 1, note=f"api key {SECRET}")
    assert SECRET not in updated.rules[0].user_note and updated.rules[0].user_note_redacted
    assert SECRET.encode() not in profiles.path.read_bytes()
    rebuilt = profiles.rebuild().profile
    assert rebuilt.rules[0].user_note_redacted and "REDACTED" in rebuilt.rules[0].user_note
    cleared = profiles.set_rule(rule.id, rebuilt.revision, note="")
    assert cleared.rules[0].user_note == "" and cleared.rules[0].user_note_redacted


# serialization ---------------------------------------------------------------------------------


def test_concurrent_rebuilds_serialize(store: DecisionStore, profiles: ProfileStore) -> None:
    put_promoting(store)
    initial = profiles.rebuild().profile
    errors: list[BaseException] = []

    def rebuild() -> None:
        try:
            ProfileStore(store.root, store).rebuild()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=rebuild) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    final = profiles.load()
    assert final.revision == initial.revision + 4
    assert final.source_hash == initial.source_hash


_REBUILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from core.profile.store import ProfileStore
    from core.store.decisions import DecisionStore
    store = DecisionStore(Path(sys.argv[1]))
    start = float(sys.argv[2])
    while time.time() < start:
        time.sleep(0.001)
    print(ProfileStore(store.root, store).rebuild().profile.revision)
    """
)


def test_rebuilds_serialize_across_processes(store: DecisionStore, profiles: ProfileStore) -> None:
    put_promoting(store)
    initial = profiles.rebuild().profile
    start = str(__import__("time").time() + 1.0)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _REBUILD, str(store.root), start],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    revisions = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        revisions.append(int(out))
    assert sorted(revisions) == [initial.revision + n for n in (1, 2, 3)]
    assert profiles.load().source_hash == initial.source_hash


def test_contradicting_edit_through_the_store_updates_rules(
    store: DecisionStore, profiles: ProfileStore
) -> None:
    put_promoting(store)
    store.put(decision(3, domains=()))
    assert len(profiles.rebuild().profile.rules[0].support_decision_ids) == 3

    def switch(record: object) -> None:
        setattr(record, "selected_option_id", "single-json")  # noqa: B010 - keeps mypy quiet
        setattr(  # noqa: B010
            record,
            "rejected_reasons",
            [RejectedReason(option_id="per-record-json", reason="changed", source="user")],
        )

    store.revise("decision-3", 1, switch)
    rule = profiles.rebuild().profile.rules[0]
    assert rule.contradiction_decision_ids == ["decision-3"]
