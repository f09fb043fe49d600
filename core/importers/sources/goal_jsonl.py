"""goal-jsonl: agents' goal decision journals (decision, why, evidence, goal, time) as notes.

Why notes and not records: these entries are the agent's own account of what it chose while
working a goal, with no options offered to a human and no human answer, so they are context
(provenance `model`), never preference evidence. One file per conversation; the file name is
kept as the note's session. Field names vary between writers, so a few spellings are accepted.
Key: `goal-jsonl:<file name>:<sha256 of the line>` (the journal is append-only).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from core.importers.base import ImportContext, Item, ItemError, NoteItem, Skip
from core.importers.ndjson_source import first_text, jsonl_files, parse_when, read_lines
from core.importers.notes_sink import ImportedNote

KIND = "goal-jsonl"
_DECISION = ("decision", "decided", "choice", "text")
_WHY = ("why", "reason", "rationale", "because")
_EVIDENCE = ("evidence", "evidencePointer", "evidence_pointer", "ref")
_GOAL = ("goal", "goalCreatedAt", "goal_created_at", "goalId", "goal_id")
_TIME = ("ts", "time", "timestamp", "at", "createdAt", "created_at")
_WORKSPACE = ("cwd", "workspace", "repo", "project")


class GoalJsonlImporter:
    kind = KIND

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        files = jsonl_files(source)
        ctx.set_total(len(files))
        for path in files:
            try:
                yield from self._file_items(path)
            except OSError as exc:
                yield ItemError(str(path), f"cannot read the goal journal: {exc}")
            ctx.step()

    def _file_items(self, path: Path) -> Iterator[Item]:
        for line in read_lines(path):
            key = f"{KIND}:{path.name}:{line.digest}"
            value = line.value
            if value is None:
                yield Skip(key, line.problem, line.where)
                continue
            decision = first_text(value, *_DECISION)
            if not decision:
                yield Skip(key, "entry has no decision text", line.where)
                continue
            when = parse_when(value, *_TIME)
            autonomous = value.get("autonomous")
            stamp = f" at {when.format()}" if when else ""
            turn = " (autonomous turn)" if autonomous is True else ""
            evidence = first_text(value, *_EVIDENCE)
            note = ImportedNote.of(
                workspace=first_text(value, *_WORKSPACE),
                decision=decision,
                why=first_text(value, *_WHY),
                evidence=f"{evidence} [{path.name}:{line.number}{stamp}{turn}]".strip(),
                goal=first_text(value, *_GOAL),
                session_id=path.stem,
                agent=first_text(value, "agent", "author") or "goal journal",
            )
            yield NoteItem(key, note, when)
