"""Builders of realistic records and proposals shared by the test suites."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import core.bulk.parallel_read
from core.gocompat.gotime import GoTime
from core.record.models import DecisionRecord, Option, Provenance, RejectedReason
from core.record.normalize import normalize_record
from core.record.shape import StoredRead
from core.store.decisions import DecisionStore


def make_record(**overrides: Any) -> DecisionRecord:
    """The reference store fixture: two options, per-record-json selected, confidence 0.91."""
    record = DecisionRecord(
        id="decision-test-1",
        session_id="session-1",
        project_id="project-kernforge",
        project_alias="kernforge",
        workspace="F:\\kernullist\\kernforge",
        domains=["storage"],
        decision_kind="storage_backend",
        risk_level="medium",
        problem="Choose the canonical cross-project decision storage layout",
        options=[
            Option(
                id="per-record-json",
                label="Per-record JSON",
                description="One JSON file per decision avoids lost updates",
                recommended=True,
                source="model",
            ),
            Option(
                id="single-json",
                label="Single JSON document",
                description="One document for everything",
                source="model",
            ),
        ],
        recommended_option_id="per-record-json",
        selected_option_id="per-record-json",
        selection_reason_raw="independent files avoid lost updates between processes",
        rejected_reasons=[
            RejectedReason(
                option_id="single-json", reason="global rewrite bottleneck", source="user"
            )
        ],
        evidence_refs=["core/store.py:10"],
        detector_confidence=0.91,
        provenance=Provenance(
            options="model", selection="user", rationale="user", summary="runtime"
        ),
    )
    return record.model_copy(update=overrides)


def proposal_dict(**overrides: Any) -> dict[str, Any]:
    """The reference tool fixture as an agent would send it."""
    proposal: dict[str, Any] = {
        "problem": "Choose the canonical cross-project decision storage layout",
        "decision_kind": "storage_backend",
        "risk_level": "medium",
        "detector_confidence": 0.92,
        "domains": ["storage"],
        "options": [
            {
                "id": "per-record-json",
                "label": "Per-record JSON",
                "description": "One JSON file per decision",
                "pros": ["no lost updates"],
                "cons": ["many files"],
                "recommended": True,
            },
            {
                "id": "single-json",
                "label": "Single JSON document",
                "description": "One document for everything",
                "recommended": False,
            },
        ],
    }
    proposal.update(overrides)
    return proposal


def two_project_journal(
    root: Path, second_problem: str = "Pick a cache invalidation strategy"
) -> Path:
    """A journal with the reference fixture plus a cache decision in another project."""
    store = DecisionStore(root)
    store.put(make_record())
    store.put(
        make_record(
            id="decision-test-2",
            project_id="project-other",
            project_alias="other",
            problem=second_problem,
            domains=["caching"],
            decision_kind="cache_policy",
        )
    )
    return root


def count_record_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the record files the index and the profile read strictly from now on.

    Both read through `core.bulk.parallel_read`; in a test the batches are small, so every read
    happens in this process, where the patch sees it.
    """
    reads: list[str] = []
    original = core.bulk.parallel_read.read_for_build

    def counting(
        root: Path, path: Path | str, expected_id: str, *, parents_checked: bool = False
    ) -> StoredRead:
        reads.append(os.path.basename(path))
        return original(root, path, expected_id, parents_checked=parents_checked)

    monkeypatch.setattr(core.bulk.parallel_read, "read_for_build", counting)
    return reads


ELIGIBLE_BASE_NS = 1_780_000_000_000_000_000
"""The time of `decision(0)`; each later number is a millisecond newer."""


def decision(
    number: int,
    project: str = "a",
    *,
    choice: str = "per-record-json",
    domains: tuple[str, ...] = ("storage",),
    kind: str = "storage_backend",
    **overrides: Any,
) -> DecisionRecord:
    """A valid record the profile counts as evidence; later numbers are newer."""
    other = "single-json" if choice == "per-record-json" else "per-record-json"
    stamp = GoTime(ELIGIBLE_BASE_NS + number * 1_000_000)
    fields: dict[str, Any] = {
        "id": f"decision-{number}",
        "project_id": f"project-{project}" if project else "",
        "domains": list(domains),
        "decision_kind": kind,
        "selected_option_id": choice,
        "rejected_reasons": [RejectedReason(option_id=other, reason="not this", source="user")],
        "created_at": stamp,
        "updated_at": stamp,
        "revision": 1,
        "status": "completed",
        "schema_version": 1,
    }
    fields.update(overrides)
    return normalize_record(make_record(**fields))


STORED_BASE_NS = 1_760_000_000_000_000_000
"""The time of `stored(..., at=0)`; each later `at` is a second newer."""
SECOND_NS = 1_000_000_000


def stored(record_id: str, at: int, **fields: Any) -> DecisionRecord:
    """A complete stored record (revision, timestamps, status) built on the reference fixture,
    written `at` seconds after `STORED_BASE_NS`."""
    updates: dict[str, Any] = {
        "schema_version": 1,
        "id": record_id,
        "revision": 1,
        "created_at": GoTime(STORED_BASE_NS + at * SECOND_NS),
        "updated_at": GoTime(STORED_BASE_NS + at * SECOND_NS),
        "status": "completed",
    }
    updates.update(fields)
    if updates.get("status") == "deleted" and "deleted_at" not in updates:
        updates["deleted_at"] = updates["updated_at"]
    return make_record().model_copy(update=updates)


def on_disk(root: Path, record: DecisionRecord, name: str | None = None) -> Path:
    """Writes a record file behind the store's back, as a sync tool or an editor would."""
    from core.record.codec import encode_record
    from core.store.safefs import ensure_private_dir

    ensure_private_dir(root, root / "records")
    path = root / "records" / (name or f"{record.id}.json")
    path.write_bytes(encode_record(normalize_record(record)))
    return path


SYNC_SIDES = (("0a0a0a0a", "laptop"), ("0d0d0d0d", "desk"))
"""The two machines of `conflicted_journal`: (sync id, name), this machine's first."""


def conflicted_journal(root: Path, record_id: str = "decision-test-1") -> Path:
    """A journal whose record_id waits for a choice of version after a sync: revision 2 was
    written here ("mine") and another revision 2 on the desk ("theirs")."""
    DecisionStore(root).put(make_record(id=record_id))
    add_sync_conflict(root, record_id)
    return root


def add_sync_conflict(root: Path, record_id: str) -> None:
    """The next revision of record_id written here ("mine") and another on the desk
    ("theirs"), as a sync that found both leaves them."""
    from core.record.codec import encode_record
    from core.sync import conflicts
    from core.sync.merge import CONFLICT, RecordMerge

    store = DecisionStore(root)
    current = store.get(record_id)
    mine = store.revise(
        record_id, current.revision, lambda r: setattr(r, "selection_reason_raw", "mine")
    )
    theirs = mine.model_copy(update={"selection_reason_raw": "theirs"})
    fork = mine.revision
    merge = RecordMerge(CONFLICT, fork, {fork: encode_record(mine)}, {fork: encode_record(theirs)})
    conflicts.write_files(root, conflicts.conflict_files(record_id, merge, SYNC_SIDES))
