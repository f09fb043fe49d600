"""Importers: decisions, notes and outcome signals from other tools, one module per source kind.

`run_import(journal, make_importer(kind), source, ImportOptions(...))` is the whole API for a
caller; `detect_kind(source)` chooses the kind when the user did not.
"""

from __future__ import annotations

from core.importers.base import Importer
from core.importers.sources.canonical import JsonArrayImporter, KernforgeImporter
from core.importers.sources.claude_code import ClaudeCodeImporter
from core.importers.sources.decider import DeciderImporter
from core.importers.sources.decider_policy import ExclusionPolicy
from core.importers.sources.decisions_md import DecisionsMdImporter
from core.importers.sources.goal_jsonl import GoalJsonlImporter
from core.importers.sources.madr import MadrImporter
from core.importers.sources.memory_journal import MemoryJournalImporter

KINDS = (
    "json",
    "claude-code",
    "decisions-md",
    "madr",
    "goal-jsonl",
    "memory-journal",
    "decider",
    "kernforge",
)


def make_importer(
    kind: str, *, policy: ExclusionPolicy | None = None, incremental: bool = False
) -> Importer:
    """A fresh importer for `kind`.

    Args:
        policy: the decider ledger's exclusion rules (other kinds ignore it).
        incremental: claude-code only: keep per-file positions between runs (for --watch).

    Raises:
        ValueError: an unknown kind.
    """
    if kind == "claude-code":
        return ClaudeCodeImporter(incremental=incremental)
    if kind == "decider":
        return DeciderImporter(policy)
    simple: dict[str, type[Importer]] = {
        "json": JsonArrayImporter,
        "decisions-md": DecisionsMdImporter,
        "madr": MadrImporter,
        "goal-jsonl": GoalJsonlImporter,
        "memory-journal": MemoryJournalImporter,
        "kernforge": KernforgeImporter,
    }
    if kind not in simple:
        raise ValueError(f"unknown import kind {kind!r}: use one of {', '.join(KINDS)}")
    return simple[kind]()
