"""The decider ledger's work per question, with 1,000 and 10,000 entries in the ledger.

Each present of a predicted kind logs a prediction once (so it asks whether that decision has one
already) and each answer looks its prediction and score up; a correction asks for an automatic
answer and an overrule. Before, each of those read and parsed the whole `decider/ledger.ndjson`
(`DeciderLedger.read()`, filtered); now they look the decision's lines up in the ledger's index
(`DeciderLedger.of_decision`). Both run here on the same ledgers, in the same run, and so does
an append with and without bringing the index up to date. A demotion's score of one kind
(`of_kind`) is timed against the same full read.

Usage: python bench/decider_bench.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.decider.ledger import DeciderLedger, Event
from core.store.append_log import AppendLog

KINDS = 40


def fill(root: Path, entries: int) -> DeciderLedger:
    """A ledger as a year of use leaves it: predictions and scores over many kinds."""
    ledger = DeciderLedger(root)
    events = []
    for number in range(entries):
        kind = f"kind-{number % KINDS}"
        decision = f"decision-{number // 2:032x}"
        events.append(
            Event(
                type="prediction" if number % 2 == 0 else "scored",
                at="2026-11-02T09:00:00Z",
                decision_id=decision,
                kind=kind,
                kind_label=kind,
                rule_id="preference-0000abcd",
                option_id="postgres",
                option_label="Postgres",
                outcome="" if number % 2 == 0 else "agree",
                strength=0.71,
                support=9,
                contradictions=1,
            )
        )
    ledger.log.append(e.to_dict() for e in events)
    ledger.index.refresh()
    return ledger


def median_ms(run: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def measure(entries: int, rounds: int) -> None:
    root = Path(tempfile.mkdtemp()) / "journal"
    ledger = fill(root, entries)
    wanted = f"decision-{(entries // 2 - 3):032x}"

    def full_read() -> list[Event]:
        return [e for e in ledger.read().events if e.decision_id == wanted]

    assert full_read() == ledger.of_decision(wanted)
    before = median_ms(full_read, rounds)
    after = median_ms(lambda: ledger.of_decision(wanted), rounds)
    print(
        f"{entries:>6,} entries  one decision's events: full read {before:8.2f} ms, "
        f"index {after:6.2f} ms ({before / after:.0f}x)"
    )

    def full_kind() -> list[Event]:
        return [e for e in ledger.read().events if e.kind == "kind-7"]

    assert full_kind() == ledger.of_kind("kind-7")
    before = median_ms(full_kind, max(rounds // 10, 5))
    after = median_ms(lambda: ledger.of_kind("kind-7"), max(rounds // 10, 5))
    print(
        f"{entries:>6,} entries  one kind's events:     full read {before:8.2f} ms, "
        f"index {after:6.2f} ms ({before / after:.1f}x)"
    )

    line = ledger.read().events[0]
    plain = AppendLog(root, ledger.log.path)
    appended_plain = median_ms(lambda: plain.append([line.to_dict()]), rounds // 4)
    appended = median_ms(lambda: ledger.append([line]), rounds // 4)
    print(
        f"{entries:>6,} entries  one append:            plain {appended_plain:12.2f} ms, "
        f"with index {appended:6.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    print(f"median of {args.rounds} rounds; 'full read' is what each lookup did before")
    for entries in (1_000, 10_000):
        measure(entries, args.rounds)


if __name__ == "__main__":
    main()
