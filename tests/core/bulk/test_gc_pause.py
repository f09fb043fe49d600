"""The collector pause: counted across nesting and threads, and never re-enables a collector
that someone else had disabled."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from core.bulk.gc_pause import gc_paused


@pytest.fixture(autouse=True)
def collector_running() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_pause_disables_and_restores() -> None:
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pauses_restore_only_at_the_outermost() -> None:
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_disabled_elsewhere_stays_disabled() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_restored_after_an_exception() -> None:
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_overlapping_pauses_from_two_threads() -> None:
    first_in, second_out = threading.Event(), threading.Event()

    def first() -> None:
        with gc_paused():
            first_in.set()
            second_out.wait(5)
            assert not gc.isenabled()  # the second thread left; this one still holds it

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with gc_paused():
        pass
    second_out.set()
    thread.join(5)
    assert gc.isenabled()
