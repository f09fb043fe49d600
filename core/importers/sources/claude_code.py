"""claude-code: every answered AskUserQuestion in Claude Code transcripts becomes a record.

Source: `~/.claude/projects/<project>/<session>.jsonl` and subagent transcripts below
`<session>/subagents/`. One record per question of a call, keyed
`claude-code:<session>:<tool_use_id>` (later questions of the same call add `#<n>`), built by
`core.importers.agent_questions` as the hook builds the record of a question answered in the
Decision Journal window: such a question is already journaled, and its record is kept as is.

Why the selection is `imported`, not `user`: the answers in a transcript can be supplied by a
hook or the SDK (`updatedInput`), and the file is editable; the journal cannot prove the user
chose. Notes typed in the dialog become the reason, still `imported`, until the user confirms.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import JournalError
from core.gocompat.gotime import GoTime
from core.gocompat.text import collapse_spaces, go_trim
from core.importers.agent_questions import (
    AnsweredQuestion,
    answered_in_window,
    question_key,
    transcript_record,
)
from core.importers.answers import answer_parts, selection
from core.importers.base import ImportContext, Item, RecordItem, Skip
from core.importers.locate import named_identity
from core.importers.shaping import SourceOption
from core.importers.source_file import SourceRefused, is_regular_file
from core.importers.sources.claude_transcript import (
    Answered,
    Asked,
    FileCursor,
    Unanswered,
    Unreadable,
    read_events,
)
from core.outcomes.verdict import extends_label, is_recommended_label
from core.record.identity import ProjectIdentity, project_identity
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore

KIND = "claude-code"
REJECTED = "rejected by the user (the question was dismissed)"


def default_source() -> Path:
    """`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`."""
    base = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(base or os.path.expanduser("~/.claude")) / "projects"


def transcript_files(source: Path) -> list[Path]:
    """Every `*.jsonl` regular file below `source` (links are not followed: one to
    `/dev/zero` or a FIFO would fill the memory or hang the watcher), or `source` itself."""
    if source.is_file():
        return [source]
    if (source / "projects").is_dir() and not any(source.glob("*.jsonl")):
        source = source / "projects"
    found: list[Path] = []
    for directory, _dirs, files in os.walk(source, followlinks=False):
        found.extend(
            path
            for name in files
            if name.endswith(".jsonl") and is_regular_file(path := Path(directory) / name)
        )
    return sorted(found)


class ClaudeCodeImporter:
    """Reads transcripts; keeps per-file cursors so a watcher reads only what is new."""

    kind = KIND

    def __init__(self, *, incremental: bool = False) -> None:
        self.incremental = incremental
        self._cursors: dict[Path, FileCursor] = {}
        self._identities: dict[str, ProjectIdentity] = {}
        self._store: DecisionStore | None = None

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        self._store = ctx.journal.store
        files = transcript_files(source)
        ctx.set_total(len(files))
        for path in files:
            yield from self._file_items(path)
            ctx.step()

    def _file_items(self, path: Path) -> Iterator[Item]:
        cursor = self._cursors.setdefault(path, FileCursor()) if self.incremental else FileCursor()
        session = path.stem
        try:
            events = list(read_events(path, cursor, session=session, final=not self.incremental))
        except SourceRefused as exc:
            yield Skip(str(path), f"unreadable transcript: {exc}", str(path))
            return
        except OSError as exc:
            yield Skip(str(path), f"unreadable transcript: {exc.strerror or exc}", str(path))
            return
        for event in events:
            if isinstance(event, Unreadable):
                yield Skip(f"{path}:{event.line}", event.reason, f"{path}:{event.line}")
            elif isinstance(event, Unanswered):
                yield Skip(
                    _key(event.asked, 0),
                    "not answered (no tool result in the transcript)",
                    f"{path}:{event.asked.line}",
                )
            else:
                yield from self._answered(event, path, subagent="subagents" in path.parts)

    def _answered(self, event: Answered, path: Path, *, subagent: bool) -> Iterator[Item]:
        asked, where = event.asked, f"{path}:{event.line}"
        questions = asked.input.get("questions")
        if not isinstance(questions, list) or not questions:
            yield Skip(_key(asked, 0), "AskUserQuestion input has no questions", where)
            return
        reason = _not_answered(event)
        result = event.result if isinstance(event.result, dict) else {}
        answers = _mapping(result.get("answers")) or _mapping(asked.input.get("answers"))
        notes = _mapping(result.get("annotations")) or _mapping(asked.input.get("annotations"))
        for index, question in enumerate(questions):
            key = _key(asked, index)
            if reason:
                yield Skip(key, reason, where)
            elif not isinstance(question, dict):
                yield Skip(key, "question is not an object", where)
            else:
                value = _answer_for(question, answers, len(questions))
                extra = go_trim(str(result.get("response") or "")) if index == 0 else ""
                yield self._decision(
                    event,
                    question=question,
                    value=value,
                    note=_note(notes, question),
                    response=extra,
                    key=key,
                    index=index,
                    subagent=subagent,
                    folder=_project_folder(path),
                )

    def _decision(
        self,
        event: Answered,
        *,
        question: dict[str, Any],
        value: object,
        note: str,
        response: str,
        key: str,
        index: int,
        subagent: bool,
        folder: str,
    ) -> Item:
        text = go_trim(str(question.get("question") or ""))
        raw_options = question.get("options")
        options = [_option(o) for o in raw_options] if isinstance(raw_options, list) else []
        if not text or not options or any(o is None for o in options):
            return Skip(key, "question has no text or malformed options")
        listed = [o for o in options if o is not None]
        parts = answer_parts(value, [o.label for o in listed], question.get("multiSelect") is True)
        if not parts:
            return Skip(key, "question not answered (no answer for it in the result)")
        labels = [o.label for o in listed]
        chosen, custom, also = selection(parts, labels)
        amended = tuple(
            i for i, label in enumerate(labels) if custom and extends_label(custom, label)
        )
        meta = event.meta
        cwd = meta.cwd or event.asked.meta.cwd
        built = transcript_record(
            AnsweredQuestion(
                session_id=meta.session_id,
                tool_use_id=event.asked.tool_use_id,
                index=index,
                question=text,
                header=str(question.get("header") or ""),
                options=tuple(listed),
                identity=self._identity(cwd, folder),
                chosen=chosen,
                custom=custom,
                also_chosen=also,
                amended=amended,
                reason="\n".join(part for part in (note, response) if part),
                when=GoTime.parse_or_none(meta.timestamp)
                or GoTime.parse_or_none(event.asked.meta.timestamp),
                tags=("subagent",) if subagent or meta.sidechain else (),
            )
        )
        if isinstance(built, RecordItem):
            answered = self._answered_in_window(built.record.id)
            if answered is not None:  # the window journaled it: keep that record as it is
                return RecordItem(built.key, answered, built.when)
        return built

    def _answered_in_window(self, record_id: str) -> DecisionRecord | None:
        """The hook's record of this very question, when the human answered it in our window."""
        if self._store is None or not self._store.exists(record_id):
            return None
        try:
            record = self._store.get(record_id)
        except (JournalError, OSError):
            return None  # the engine's write reports the damage
        return record if answered_in_window(record) else None

    def _identity(self, cwd: str, project_dir: str) -> ProjectIdentity:
        """The project of `cwd`; without one, a stable project named after the folder."""
        token = cwd or f"folder:{project_dir}"
        identity = self._identities.get(token)
        if identity is None:
            if cwd or not project_dir:
                identity = project_identity(cwd)
            else:
                identity = named_identity("claude-project", project_dir)
            self._identities[token] = identity
        return identity


def _project_folder(path: Path) -> str:
    """`projects/<folder>/<session>.jsonl`, or `projects/<folder>/<session>/subagents/*.jsonl`."""
    return path.parents[2].name if "subagents" in path.parts else path.parent.name


def _key(asked: Asked, index: int) -> str:
    return question_key(asked.meta.session_id, asked.tool_use_id, index)


def _not_answered(event: Answered) -> str:
    """Why a result holds no answers ("" when it does)."""
    result = event.result
    if isinstance(result, str):
        lowered = result.casefold()
        if "rejected" in lowered:
            return REJECTED
        if lowered.startswith("error"):
            detail = collapse_spaces(result[len("error") :].lstrip(": "))[:120]
            return f"errored or denied by a hook: {detail}" if detail else "errored"
    if event.is_error:
        return "errored (the tool result is marked as an error)"
    if not isinstance(result, dict):
        return "no structured answer (toolUseResult is missing)"
    return ""


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _option(value: object) -> SourceOption | None:
    if isinstance(value, str) and go_trim(value):
        return SourceOption(value, recommended=is_recommended_label(value))
    if not isinstance(value, dict) or not go_trim(str(value.get("label") or "")):
        return None
    label = str(value["label"])
    return SourceOption(
        label, str(value.get("description") or ""), recommended=is_recommended_label(label)
    )


def _answer_for(question: dict[str, Any], answers: dict[str, Any], count: int) -> object:
    text = str(question.get("question") or "")
    for candidate in (text, go_trim(text)):
        if candidate in answers:
            return answers[candidate]
    if count == 1 and len(answers) == 1:
        return next(iter(answers.values()))
    return None


def _note(notes: dict[str, Any], question: dict[str, Any]) -> str:
    entry = notes.get(str(question.get("question") or ""))
    if isinstance(entry, dict):
        return go_trim(str(entry.get("notes") or ""))
    return ""
