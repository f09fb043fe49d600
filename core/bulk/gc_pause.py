"""Pausing Python's cyclic garbage collector while a bulk read builds many objects.

Why: reading a large journal allocates millions of objects that all stay alive (records,
facts, index rows). Each allocation burst triggers a collection that walks every live object
again and frees nothing, because records hold no reference cycles. On 10,000 records that
walking is about half the cost of the strict read. Reference counting still frees everything
as usual while the collector is paused; only cycle detection waits until the read is done.

The pause is process-wide, so it is counted: nested or concurrent bulk reads (the index and the
profile worker at once) keep it until the last one ends, and a collector that was already
disabled by someone else is left disabled.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pause:
    """Who holds the pause, and whether the collector was running before the first one."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holders = 0
        self.restore = False

    def enter(self) -> None:
        with self.lock:
            if self.holders == 0:
                self.restore = gc.isenabled()
                gc.disable()
            self.holders += 1

    def leave(self) -> None:
        with self.lock:
            self.holders -= 1
            if self.holders == 0 and self.restore:
                gc.enable()


_pause = _Pause()


@contextmanager
def gc_paused() -> Iterator[None]:
    _pause.enter()
    try:
        yield
    finally:
        _pause.leave()
