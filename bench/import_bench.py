"""Import throughput: source items per second for each importer on generated sources.

Usage: python bench/import_bench.py [--items 10000] [--kinds claude-code madr ...]
Each source is generated in a temporary folder, then imported into a fresh journal through the
real engine (store puts with locks, validation, redaction and fsync; notes and signals through
their logs). The second figure is a repeated import of the same source, which writes nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.journal_gen import synthetic_record, write_journal
from core.exporters.json_export import export_journal
from core.importers import KINDS, make_importer
from core.importers.engine import run_import
from core.journal import Journal
from core.store.decisions import DecisionStore

WORDS = "queue cache retry schema worker socket parser index batch stream token policy".split()
PER_FILE = 100


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize()


def _claude(root: Path, count: int, rng: random.Random) -> Path:
    source = root / "projects"
    for start in range(0, count, PER_FILE):
        folder = source / f"-home-dev-p{start // 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        for n in range(start, min(start + PER_FILE, count)):
            q = f"{_text(rng, 6)} #{n}?"
            labels = [f"{_text(rng, 3)} (Recommended)", _text(rng, 3), _text(rng, 2) + " x"]
            question = {
                "question": q,
                "header": rng.choice(["Storage", "Retries", "API"]),
                "multiSelect": False,
                "options": [{"label": lab, "description": _text(rng, 8)} for lab in labels],
            }
            base = {"sessionId": f"s{start}", "cwd": f"/home/dev/p{start // 1000}"}
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "timestamp": "2026-10-01T10:00:00Z",
                    "message": {
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"toolu_{n}",
                                "name": "AskUserQuestion",
                                "input": {"questions": [question]},
                            }
                        ]
                    },
                }
            )
            lines.append(
                {
                    **base,
                    "type": "user",
                    "timestamp": "2026-10-01T10:01:00Z",
                    "message": {"content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}"}]},
                    "toolUseResult": {"answers": {q: rng.choice(labels)}},
                }
            )
        (folder / f"s{start}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return source


def _decisions_md(root: Path, count: int, rng: random.Random) -> Path:
    rows = [
        f"| 2026-09-{1 + n % 28:02d} | {_text(rng, 10)} number {n}. | {_text(rng, 8)}. |"
        for n in range(count)
    ]
    path = root / "decisions.md"
    path.write_text("# Decisions\n\n## Decided\n\n| Date | Decision | Reason |\n|---|---|---|\n")
    with path.open("a") as handle:
        handle.write("\n".join(rows) + "\n")
    return path


def _madr(root: Path, count: int, rng: random.Random) -> Path:
    folder = root / "decisions"
    folder.mkdir()
    for n in range(count):
        options = [f"{_text(rng, 2)} {n}-{k}" for k in range(3)]
        bullets = "\n".join(f"* {o}" for o in options)
        pros = "\n".join(f"### {o}\n\n* Bad, because {_text(rng, 5)}\n" for o in options[1:])
        (folder / f"{n:05d}-adr.md").write_text(
            f"---\nstatus: accepted\ndate: 2024-01-02\n---\n# {_text(rng, 5)} {n}\n\n"
            f"## Context and Problem Statement\n\n{_text(rng, 20)}.\n\n"
            f"## Considered Options\n\n{bullets}\n\n## Decision Outcome\n\n"
            f'Chosen option: "{options[0]}", because {_text(rng, 8)}.\n\n'
            f"## Pros and Cons of the Options\n\n{pros}"
        )
    return folder


def _goal(root: Path, count: int, rng: random.Random) -> Path:
    path = root / "conv.jsonl"
    lines = [
        json.dumps(
            {
                "ts": "2026-08-26T10:00:00Z",
                "goalCreatedAt": "2026-08-26T09:00:00Z",
                "decision": f"{_text(rng, 8)} {n}",
                "why": _text(rng, 10),
            }
        )
        for n in range(count)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _memory(root: Path, count: int, rng: random.Random, ids: list[str]) -> Path:
    path = root / "journal.ndjson"
    lines = []
    for n in range(count):
        event: dict[str, object] = {
            "ts": "2026-10-01T12:00:00Z",
            "agent": "forge",
            "cli": "claude-code",
            "task": f"{_text(rng, 6)} {n}",
        }
        if n % 2 == 0:
            event["decisionId"] = ids[n % len(ids)]
            event["outcome"] = "success"
            event["signals"] = {"evalScore": round(rng.random(), 3), "ci": "pass"}
        lines.append(json.dumps(event))
    path.write_text("\n".join(lines) + "\n")
    return path


def _decider(root: Path, count: int, rng: random.Random) -> Path:
    path = root / "ledger.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE ledger (key TEXT PRIMARY KEY, row_json TEXT NOT NULL)")
    rows = []
    for n in range(count):
        options = [f"{_text(rng, 3)} (Recommended)", _text(rng, 3)]
        row = {
            "key": f"transcript:s:{n}",
            "asked_at": "2026-07-01T10:00:00Z",
            "initiative": rng.choice(["widgets", "gadgets"]),
            "class": "tech_design",
            "question": f"{_text(rng, 6)} {n}?",
            "options": options,
            "recommended": options[0],
            "answer": rng.choice(options),
            "pick_type": "option",
        }
        rows.append((row["key"], json.dumps(row)))
    db.executemany("INSERT INTO ledger VALUES (?, ?)", rows)
    db.commit()
    db.close()
    return path


def _canonical(root: Path, count: int, rng: random.Random) -> Path:
    """Another journal, its record files written directly (as the store would write them)."""
    other = root / "other-journal"
    write_journal(other, count, seed=rng.randint(0, 1000))
    return other


def _json_array(root: Path, count: int, rng: random.Random) -> Path:
    other = _canonical(root, count, rng)
    path = root / "all.json"
    path.write_bytes(export_journal(DecisionStore(other), include_private=True))
    return path


Generator = Callable[[Path, int, random.Random], Path]
GENERATORS: dict[str, Generator] = {
    "claude-code": _claude,
    "decisions-md": _decisions_md,
    "madr": _madr,
    "goal-jsonl": _goal,
    "decider": _decider,
    "kernforge": _canonical,
    "json": _json_array,
}


def bench(kind: str, items: int) -> tuple[float, float, int]:
    """(first import items/s, repeated import items/s, items read)."""
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        journal = Journal(root / "journal")
        if kind == "memory-journal":
            ids = [journal.store.put(synthetic_record(rng, n)).id for n in range(100)]
            source = _memory(root, items, rng, ids)
        else:
            source = GENERATORS[kind](root, items, rng)
        started = time.perf_counter()
        first = run_import(journal, make_importer(kind), source)
        first_seconds = time.perf_counter() - started
        if first.errors or first.imported != items:
            print(f"  warning: {kind}: imported {first.imported}, errors {first.errors[:2]}")
        started = time.perf_counter()
        again = run_import(journal, make_importer(kind), source)
        again_seconds = time.perf_counter() - started
        assert again.imported == 0, f"{kind}: the repeated import wrote {again.imported}"
    return first.read / first_seconds, again.read / again_seconds, first.read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=list(KINDS))
    args = parser.parse_args()
    print(f"import throughput, {args.items} source items per importer")
    print(f"{'kind':16} {'first (items/s)':>16} {'repeat (items/s)':>17}")
    for kind in args.kinds:
        first, again, read = bench(kind, args.items)
        print(f"{kind:16} {first:16.0f} {again:17.0f}   ({read} read)")


if __name__ == "__main__":
    main()
