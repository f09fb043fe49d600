"""When the journal window reads the disk again (`CatchUp`), decided without a window.

A small stand-in bridge counts what it is asked; the index reports arrive as the bridge's own
would, so each rule is seen alone: the first page's read does not reload twice, F5 held down
queues one read, a report that found nothing reloads only when the index moved on, commits
while hidden reload when the window opens again.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QObject, Signal
from pytestqt.qtbot import QtBot

from app.gui.journal.catch_up import CatchUp
from core.index.rows import IndexReadReport


class _Index:
    def __init__(self) -> None:
        self.caught_up = False
        self.generation = 0


class _Bridge(QObject):
    """What `CatchUp` asks of the journal window's bridge, counted."""

    record_committed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.index = _Index()
        self.asked: list[str] = []

    def read_changed_files(self) -> None:
        self.asked.append("read")

    def load_profile(self) -> None:
        self.asked.append("profile")

    def load_pending(self) -> None:
        self.asked.append("pending")


def _report(generation: int, *, added: int = 0) -> IndexReadReport:
    return IndexReadReport(added, 0, 0, [], 0.0, generation)


@pytest.fixture
def visible() -> list[bool]:
    return [True]


@pytest.fixture
def bridge() -> _Bridge:
    return _Bridge()


@pytest.fixture
def catch_up(qtbot: QtBot, bridge: _Bridge, visible: list[bool]) -> Iterator[CatchUp]:
    done = CatchUp(bridge, lambda: visible[0])  # type: ignore[arg-type]
    done.change_timer.setInterval(0)
    yield done
    done.stop()


def _reloads(catch_up: CatchUp) -> list[int]:
    seen: list[int] = []
    catch_up.reload_wanted.connect(lambda: seen.append(1))
    return seen


def test_the_first_page_waits_for_the_first_read_and_does_not_reload_after_it(
    catch_up: CatchUp, bridge: _Bridge
) -> None:
    reloads = _reloads(catch_up)
    catch_up.first_open()
    assert bridge.asked == ["read"]
    catch_up.files_read(_report(1, added=5))  # what it found is already on the first page
    assert reloads == []
    catch_up.files_read(_report(2, added=1))  # a later read that found something reloads
    assert reloads == [1]


def test_an_index_read_already_done_is_not_asked_for_again(
    catch_up: CatchUp, bridge: _Bridge
) -> None:
    bridge.index.caught_up = True
    catch_up.first_open()
    assert bridge.asked == []


def test_f5_held_down_asks_for_one_read_and_reloads_once(
    catch_up: CatchUp, bridge: _Bridge
) -> None:
    said: list[str] = []
    catch_up.status_message.connect(said.append)
    reloads = _reloads(catch_up)
    catch_up.refresh_now()  # before the first opening: nothing to refresh
    assert bridge.asked == [] and said == []
    bridge.index.caught_up = True
    catch_up.first_open()
    for _ in range(3):
        catch_up.refresh_now()
    assert bridge.asked == ["read", "profile", "pending"]
    catch_up.files_read(_report(0))  # found nothing, but F5 always reloads
    assert reloads == [1] and said == ["Refreshing…"] * 3 + ["Refreshed."]


def test_a_report_that_found_nothing_reloads_only_when_the_index_moved_on(
    catch_up: CatchUp, bridge: _Bridge
) -> None:
    reloads = _reloads(catch_up)
    bridge.index.caught_up = True
    catch_up.first_open()
    catch_up.files_read(_report(3))  # the first report only learns the generation
    catch_up.files_read(_report(3))
    assert reloads == []
    catch_up.files_read(_report(4))  # another process's index committed meanwhile
    assert reloads == [1]


def test_reopening_within_the_minimum_interval_reads_nothing(
    catch_up: CatchUp, bridge: _Bridge
) -> None:
    bridge.index.caught_up = True
    catch_up.first_open()
    assert catch_up.reopened() is False
    assert bridge.asked == ["read", "profile", "pending"]
    catch_up.reopened()
    assert bridge.asked == ["read", "profile", "pending"]


def test_commits_while_hidden_reload_when_the_window_opens_again(
    qtbot: QtBot, catch_up: CatchUp, bridge: _Bridge, visible: list[bool]
) -> None:
    reloads = _reloads(catch_up)
    bridge.index.caught_up = True
    catch_up.first_open()
    visible[0] = False
    catch_up.record_committed("decision-1")
    qtbot.waitUntil(lambda: not catch_up.change_timer.isActive(), timeout=2000)
    assert reloads == []
    assert catch_up.reopened() is True and catch_up.reopened() is False
    visible[0] = True
    with qtbot.waitSignal(catch_up.reload_wanted, timeout=2000):
        catch_up.record_committed("decision-2")
    assert reloads == [1]


def test_nothing_starts_after_stop(qtbot: QtBot, catch_up: CatchUp, bridge: _Bridge) -> None:
    bridge.index.caught_up = True
    catch_up.first_open()
    catch_up.stop()
    catch_up.record_committed("decision-1")
    catch_up.refresh_now()
    assert not catch_up.change_timer.isActive() and bridge.asked == []
