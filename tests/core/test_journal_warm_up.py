"""After start the index is caught up first and only then the profile, never both at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from core.index.journal_index import JournalIndex
from core.journal import Journal, warm_up
from core.profile.store import CancelScope
from core.profile.worker import ProfileRebuildWorker
from tests.factories import decision


class _Timeline:
    """When each reconcile ran and when each profile rebuild started."""

    def __init__(self) -> None:
        self.reconciles: list[tuple[float, float]] = []
        self.rebuilds: list[float] = []


def _journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Journal, _Timeline]:
    journal = Journal(tmp_path / "journal")
    for number in range(1, 4):
        journal.store.put(decision(number))
    timeline = _Timeline()
    real_reconcile = JournalIndex._read_files_with

    def slow_reconcile(index: JournalIndex, *args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        time.sleep(0.3)  # a cold build of a large journal, in short
        report = real_reconcile(index, *args, **kwargs)
        timeline.reconciles.append((started, time.monotonic()))
        return report

    monkeypatch.setattr(JournalIndex, "_read_files_with", slow_reconcile)
    return journal, timeline


def _worker(journal: Journal, timeline: _Timeline) -> ProfileRebuildWorker:
    def rebuild(scope: CancelScope) -> object:
        timeline.rebuilds.append(time.monotonic())
        return journal.profile.rebuild(cancel=scope)

    return ProfileRebuildWorker(journal.profile, rebuild=rebuild)


def test_the_profile_is_rebuilt_only_after_the_index_is_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal, timeline = _journal(tmp_path, monkeypatch)
    worker = _worker(journal, timeline)
    warm_up(journal.index, worker)
    assert worker.wait_idle(10)
    [(_, reconciled)] = timeline.reconciles
    [rebuilt] = timeline.rebuilds
    assert rebuilt >= reconciled
    assert journal.profile.status().state == "current"
    worker.stop()


def test_a_reconcile_already_running_is_waited_for_and_not_repeated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal window starts its own reconcile when it is prepared."""
    journal, timeline = _journal(tmp_path, monkeypatch)
    worker = _worker(journal, timeline)
    window_reconcile = threading.Thread(target=journal.index.read_changed_files)
    window_reconcile.start()
    time.sleep(0.05)
    warm_up(journal.index, worker)
    window_reconcile.join()
    assert worker.wait_idle(10)
    [(_, reconciled)] = timeline.reconciles
    [rebuilt] = timeline.rebuilds
    assert rebuilt >= reconciled
    worker.stop()


def test_a_current_profile_is_not_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal, timeline = _journal(tmp_path, monkeypatch)
    journal.profile.rebuild()
    worker = _worker(journal, timeline)
    warm_up(journal.index, worker)
    assert worker.wait_idle(10)
    assert len(timeline.reconciles) == 1 and timeline.rebuilds == []
    worker.stop()
