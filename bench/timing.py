"""Wall and CPU time of one run, worker processes' CPU included.

Why children count: cold builds read records in spawned worker processes
(core/bulk/parallel_read.py); their CPU is the work done, and leaving it out would make a
parallel build look cheaper than it is. The ratio of wall time to the floor is what a user
waits; the CPU ratio says what the work costs and is steadier on a busy machine.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Callable
from pathlib import Path


def _cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class Timing:
    """Wall-clock and CPU seconds of one run (this process and its finished children)."""

    def __init__(self, run: Callable[[], object]) -> None:
        cpu, wall = _cpu_seconds(), time.perf_counter()
        run()
        self.cpu = _cpu_seconds() - cpu
        self.wall = time.perf_counter() - wall

    def show(self, floor: Timing | None = None) -> str:
        text = f"{self.wall:8.2f} s wall {self.cpu:7.2f} s cpu"
        if floor is not None:
            text += f"   ({self.wall / floor.wall:.1f}x / {self.cpu / floor.cpu:.1f}x floor)"
        return text


def floor_read_parse(root: Path) -> Timing:
    """The naive floor: read every record file and json.loads it, nothing else."""
    records_dir = root / "records"

    def read_all() -> None:
        for name in os.listdir(records_dir):
            if name.endswith(".json"):
                json.loads((records_dir / name).read_bytes())

    return Timing(read_all)


def interleaved(runs: dict[str, Callable[[], Timing]], repeat: int) -> dict[str, list[Timing]]:
    """Each run `repeat` times, taking turns, so drift on a shared machine reaches all alike."""
    timings: dict[str, list[Timing]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            timings[name].append(run())
    return timings


def median_wall(timings: list[Timing]) -> Timing:
    """The run with the median wall time (the lower middle one of an even count)."""
    return sorted(timings, key=lambda t: t.wall)[(len(timings) - 1) // 2]


def spread(walls: list[float]) -> str:
    return f"  (runs {min(walls):.2f}-{max(walls):.2f} s)" if len(walls) > 1 else ""
