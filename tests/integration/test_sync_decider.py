"""The decider's ledger moves with the journal: a kind set to auto on the laptop is auto on the
desk after a sync, overrules made on both machines before they sync demote it on both, and a
ledger line someone without the key writes onto the remote (a mode change to auto) is refused
like any other forged file."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.capture.machine import NeedsHuman, Recorded
from core.decider.fold import fold_name
from core.decider.ledger import LEDGER_FILE, DeciderLedger, time_text
from core.decider.modes import ModeBook
from core.decider.policy import DECIDER_DIR
from core.errors import PEER_QUIET_ENTRY
from core.record.origin import is_automatic
from core.sync import peers
from core.sync.engine import SyncEngine
from core.sync.indicator import explanation, headline, view_of
from core.sync.report import REFUSED, ROLLBACK, SYNCED, TAMPERED
from core.sync.status import sync_status
from tests.core.decider.support import KIND, Journal, database_proposal
from tests.integration.hostile_remote import (
    Attacker,
    blob_name,
    engine_sync,
    head,
    honest_pair,
    reset,
)
from tests.integration.sync_machines import Machine

LEDGER = f"{DECIDER_DIR}/{LEDGER_FILE}"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    return honest_pair(tmp_path)


def _synced(laptop: Machine, desk: Machine) -> None:
    for machine in (laptop, desk, laptop):
        report = engine_sync(machine)
        assert report.result != REFUSED, report.refused


def _auto_answer(journal: Journal, number: int) -> str:
    outcome = journal.present(database_proposal(number))
    assert isinstance(outcome, Recorded) and is_automatic(outcome.record), outcome
    return outcome.record.id


def test_a_mode_and_overrules_hold_on_both_machines(pair: tuple[Machine, Machine, Path]) -> None:
    laptop, desk, _remote = pair
    on_laptop = Journal(laptop.root)
    on_laptop.answer_many(12)
    on_laptop.decider.set_mode(KIND, "auto")
    assert not (laptop.root / DECIDER_DIR / "modes.json").exists()
    _synced(laptop, desk)

    on_desk = Journal(desk.root)
    on_desk.clock.now = on_laptop.clock.now
    on_desk.profile.rebuild()  # the app does this when records arrive
    assert on_desk.decider.modes.mode_of(KIND) == "auto"
    score = on_desk.decider.score_of(KIND)
    assert score is not None and (score.scored, score.agree) == (10, 10)
    desk_answer = _auto_answer(on_desk, 100)
    laptop_answer = _auto_answer(on_laptop, 101)

    # one overrule on each machine before they sync: neither demotes on its own
    assert not on_laptop.decider.overrule(on_laptop.store, laptop_answer, "SQLite").demoted
    assert not on_desk.decider.overrule(on_desk.store, desk_answer, "SQLite").demoted
    assert on_laptop.decider.modes.mode_of(KIND) == "auto"
    _synced(laptop, desk)
    on_laptop.profile.rebuild()
    on_desk.profile.rebuild()

    # after the sync each sees both overrules: the next question of that kind is asked
    assert isinstance(on_laptop.present(database_proposal(102)), NeedsHuman)
    assert on_laptop.decider.modes.mode_of(KIND) == "ask"
    _synced(laptop, desk)
    assert on_desk.decider.modes.mode_of(KIND) == "ask"
    entry = on_desk.decider.modes.entry_of(KIND)
    assert entry is not None and entry.history[-1].reason.startswith("demoted: 2 overrules")
    assert isinstance(on_desk.present(database_proposal(103)), NeedsHuman)


def test_a_forged_mode_change_on_the_remote_is_refused(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    on_laptop = Journal(laptop.root)
    on_laptop.answer_many(12)
    on_laptop.decider.set_mode(KIND, "ask")  # the ledger exists and is shared
    _synced(laptop, desk)
    genuine = (desk.root / LEDGER).read_bytes()

    forged_line = {
        "type": "mode",
        "at": time_text(on_laptop.clock.now + timedelta(minutes=1)),  # newer than the ask
        "decision_id": "",
        "kind": fold_name(KIND),
        "kind_label": KIND,
        "rule_id": "",
        "mode": "auto",
        "reason": "set to auto: agreement 100% of 10 scored predictions",
    }
    mallory = Attacker.of(remote, tmp_path)
    forged = genuine + (json.dumps(forged_line) + "\n").encode()
    mallory.write(blob_name(laptop, LEDGER), mallory.encrypt(forged))
    mallory.commit()
    mallory.push()

    report = engine_sync(desk)
    assert report.result == REFUSED
    assert {r.name: r.kind for r in report.refused}.get(LEDGER) == TAMPERED
    assert (desk.root / LEDGER).read_bytes() == genuine
    assert Journal(desk.root).decider.modes.mode_of(KIND) == "ask"
    assert all(e.mode != "auto" for e in DeciderLedger(desk.root).read().events)
    # the line itself would have raised the kind: the refusal is what kept it asked
    scratch = tmp_path / "scratch"
    DeciderLedger(scratch).log.append([forged_line])
    assert ModeBook(scratch).mode_of(KIND) == "auto"


def test_a_frozen_remote_hiding_a_demotion_is_named_and_warned_about(
    pair: tuple[Machine, Machine, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The remote shows the desk the laptop's state from before it demoted a kind (TUF's
    freeze attack): nothing genuine can prove the laptop wrote more, so the desk keeps the
    kind on auto; what it can do is say how old the laptop's newest state is, and warn once
    the laptop has been quiet for days while the desk kept pushing."""
    laptop, desk, remote = pair
    book, start = ModeBook(laptop.root), datetime.now(UTC)
    book.set("storage_backend", "auto", reason="recommended", now=start)
    _synced(laptop, desk)
    engine_sync(desk)
    assert ModeBook(desk.root).mode_of("storage_backend") == "auto"
    frozen = head(remote)
    book.set("storage_backend", "ask", reason="demoted", now=start + timedelta(seconds=1))
    engine_sync(laptop)
    reset(remote, frozen)  # the desk never sees the demotion
    for n in (2, 3):
        desk.put(f"decision-desk-{n}", f"Written on the frozen remote {n}")
        assert engine_sync(desk).result == SYNCED  # nothing genuine is wrong
    assert ModeBook(desk.root).mode_of("storage_backend") == "auto"
    config = SyncEngine(laptop.root).config()
    who = f"machine {config.machine_name} ({config.machine})"
    status = desk.ok("sync", "status")
    assert f"{who[:1].upper()}{who[1:]} last wrote its state at " in status
    assert "it has not seen this machine's last 2 states" in status
    assert "Warning" not in status  # a day off is no warning yet
    later = time.time_ns() + (peers.QUIET_AFTER + 86400) * 1_000_000_000
    monkeypatch.setattr(peers, "_now_ns", lambda: later)
    status = desk.ok("sync", "status")
    assert f"Warning: {who} has written nothing for 4 days while this machine pushed 2" in status
    assert "frozen" in status and "sync-peer-quiet" in status
    doctor = desk.run("doctor")
    assert doctor.returncode == 6 and "sync-peer-quiet" in doctor.stdout, doctor.stdout
    assert f"Sync: {who} last wrote its state at" in doctor.stdout
    view = view_of(sync_status(SyncEngine(desk.root)))
    assert headline(view) == f"Sync: no news from {config.machine_name} for 4 days"
    assert view.entry == PEER_QUIET_ENTRY and "frozen" in explanation(view)
    # the remote thaws: the laptop's next sync pushes its newer state, the desk takes the
    # demotion and the warning goes
    assert {r.kind for r in engine_sync(laptop).refused} <= {ROLLBACK}
    assert engine_sync(desk).result == SYNCED
    assert ModeBook(desk.root).mode_of("storage_backend") == "ask"
    assert "Warning" not in desk.ok("sync", "status")
