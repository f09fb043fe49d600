"""Claude Code's AskUserQuestion answered in the tray app instead of the terminal picker.

Why a hook: a PreToolUse hook may answer AskUserQuestion itself by returning
`permissionDecision: "allow"` with `updatedInput` = the original questions plus an `answers`
map, and hooks have no MCP tool timeout. Every failure path prints nothing, which lets Claude
Code show its own terminal picker: no running app, an app without `questions.ask`, a dismissed
window, or answers that do not fit the questions. The human's answers are also journaled, one
record per question (see `question_records` for provenance).
"""

from __future__ import annotations

import logging
from typing import Any, TextIO

from pydantic import ValidationError

from app.hooks.event import HookEvent
from app.hooks.pretool import write_json
from app.hooks.question_records import answer_text, record_from_answer
from core.errors import AnswersInvalid, IpcError, JournalError
from core.ipc.client import IpcClient
from core.ipc.questions import (
    QUESTIONS_ASK,
    Answer,
    QuestionsAskParams,
    QuestionsAskResult,
    check_answers,
)
from core.ipc.runtime_paths import socket_path
from core.journal import Journal

log = logging.getLogger(__name__)

TOOL_NAME = "AskUserQuestion"
CONNECT_SECONDS = 2.0
ANSWER_SECONDS = 3500.0
"""Just under the hook timeout `setup` writes (3600 s), so we fall back before being killed."""


def params_from_input(event: HookEvent) -> QuestionsAskParams:
    """The tool input as `questions.ask` params (camelCase `multiSelect` becomes snake_case).

    Raises:
        ValidationError: the input is not the AskUserQuestion shape we know.
    """
    questions = event.tool_input.get("questions")
    converted: Any = questions
    if isinstance(questions, list):
        converted = [_question(item) for item in questions]
    return QuestionsAskParams.model_validate(
        {
            "questions": converted,
            "workspace": event.workspace,
            "session_id": event.session_id,
            "agent": "claude-code",
        }
    )


def _question(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    options = item.get("options")
    if isinstance(options, list):
        options = [
            {k: v for k, v in o.items() if k in ("label", "description")}
            if isinstance(o, dict)
            else o
            for o in options
        ]
    return {
        "question": item.get("question"),
        "header": item.get("header", ""),
        "options": options,
        "multi_select": item.get("multiSelect", False),
    }


def ask_app(journal: Journal, params: QuestionsAskParams) -> list[Answer] | None:
    """The human's answers from the app's window, or None for every reason to fall back."""
    try:
        with IpcClient(
            socket_path(journal.root), CONNECT_SECONDS, client_name="hook-claude-code"
        ) as client:
            reply = client.call(
                QUESTIONS_ASK, params.model_dump(mode="json"), timeout=ANSWER_SECONDS
            )
        result = QuestionsAskResult.model_validate(reply)
        if result.status != "answered":
            return None
        return check_answers(params, result)
    except (IpcError, ValidationError, AnswersInvalid, OSError) as exc:
        log.info("AskUserQuestion falls back to the terminal: %s", exc)
        return None


def journal_answers(
    journal: Journal, event: HookEvent, params: QuestionsAskParams, answers: list[Answer]
) -> None:
    """One record per question; a failure is logged, never allowed to lose the answer."""
    for index, (question, answer) in enumerate(zip(params.questions, answers, strict=True)):
        try:
            record = record_from_answer(
                question,
                answer,
                index=index,
                cwd=event.cwd or event.workspace,
                session_id=event.session_id,
                tool_use_id=event.tool_use_id,
            )
            journal.store.put(record)
        except (JournalError, OSError, ValueError) as exc:
            log.warning("could not journal the answer to %r: %s", question.question[:80], exc)


def allow_output(
    event: HookEvent, params: QuestionsAskParams, answers: list[Answer]
) -> dict[str, Any]:
    """`allow` with the original input plus `answers` (and the human's reasons as notes)."""
    updated = dict(event.tool_input)
    updated["answers"] = {
        question.question: answer_text(answer)
        for question, answer in zip(params.questions, answers, strict=True)
    }
    notes = {
        question.question: {"notes": answer.reason.strip()}
        for question, answer in zip(params.questions, answers, strict=True)
        if answer.reason.strip()
    }
    if notes:
        existing = updated.get("annotations")
        updated["annotations"] = {**(existing if isinstance(existing, dict) else {}), **notes}
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "Answered in the Decision Journal window",
            "updatedInput": updated,
        }
    }


def handle(journal: Journal, event: HookEvent, stdout: TextIO) -> int:
    """Answers AskUserQuestion through the app; prints nothing to fall back to the terminal."""
    if event.tool_name != TOOL_NAME:
        return 0
    try:
        params = params_from_input(event)
    except ValidationError as exc:
        log.info("AskUserQuestion input not understood, using the terminal: %s", exc)
        return 0
    answers = ask_app(journal, params)
    if answers is None:
        return 0
    journal_answers(journal, event, params, answers)
    write_json(stdout, allow_output(event, params, answers))
    return 0
