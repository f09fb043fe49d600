"""The `questions.ask` socket method: Claude Code's AskUserQuestion shown in the tray app.

Why a new method and not `decision.present`: AskUserQuestion carries 1-4 questions per call,
multi-select answers, no recommendation and no required reasons, while `decision.present` takes
exactly one fork with a recommendation and demands a reason for every option. Squeezing one
into the other would either refuse valid questions or invent reasons the human never gave.

The app's controller validates params with `QuestionsAskParams` (via
`core.ipc.protocol.parse_params`), shows one window with every question, and replies with a
`QuestionsAskResult`. Closing the window (Escape, title bar) replies `dismissed`; when the
client disconnects first, the window is withdrawn. The hook validates the reply again with
`check_answers` before trusting it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from core import limits
from core.errors import AnswersInvalid

QUESTIONS_ASK = "questions.ask"
QUESTIONS_MAX = 4
OPTIONS_MIN = 2
OPTIONS_MAX = 4
QUESTION_MAX = limits.PROBLEM_MAX
HEADER_MAX = 64
OTHER_MAX = limits.CUSTOM_SELECTION_MAX
REASON_MAX = limits.REASON_MAX


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Tolerant(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class QuestionOption(_Strict):
    label: Annotated[StrictStr, Field(min_length=1, max_length=limits.OPTION_LABEL_MAX)]
    description: Annotated[StrictStr, Field(max_length=limits.OPTION_DESCRIPTION_MAX)] = ""


class Question(_Strict):
    """One AskUserQuestion question: 2-4 options, single or multi select; "Other" is always
    offered by the window as free text."""

    question: Annotated[StrictStr, Field(min_length=1, max_length=QUESTION_MAX)]
    header: Annotated[StrictStr, Field(max_length=HEADER_MAX)] = ""
    options: Annotated[list[QuestionOption], Field(min_length=OPTIONS_MIN, max_length=OPTIONS_MAX)]
    multi_select: StrictBool = False


class QuestionsAskParams(_Strict):
    """`questions.ask` params: the questions, and who asks (shown in the window)."""

    questions: Annotated[list[Question], Field(min_length=1, max_length=QUESTIONS_MAX)]
    workspace: Annotated[StrictStr, Field(max_length=limits.WORKSPACE_MAX)] = ""
    session_id: Annotated[StrictStr, Field(max_length=limits.IDENTIFIER_MAX)] = ""
    agent: Annotated[StrictStr, Field(max_length=128)] = ""


class Answer(_Tolerant):
    """One question's answer: chosen labels (at most one unless multi-select) and/or Other
    text; `reason` is optional free text the human typed (empty when none)."""

    question: StrictStr
    labels: list[StrictStr] = Field(default_factory=list)
    other: Annotated[StrictStr, Field(max_length=OTHER_MAX)] = ""
    reason: Annotated[StrictStr, Field(max_length=REASON_MAX)] = ""


class QuestionsAskResult(_Tolerant):
    """`answered` with one answer per question in order, or `dismissed` with none."""

    status: Literal["answered", "dismissed"]
    answers: list[Answer] = Field(default_factory=list)


def check_answers(params: QuestionsAskParams, result: QuestionsAskResult) -> list[Answer]:
    """The answers, if they answer exactly these questions with their own options.

    Raises:
        AnswersInvalid: wrong count or order, an unknown label, several labels for a
            single-select question, or an empty answer.
    """
    if len(result.answers) != len(params.questions):
        raise AnswersInvalid(f"{len(result.answers)} answers for {len(params.questions)} questions")
    for index, (question, answer) in enumerate(zip(params.questions, result.answers, strict=True)):
        where = f"answers[{index}]"
        if answer.question != question.question:
            raise AnswersInvalid(f"{where} answers a different question")
        known = {option.label for option in question.options}
        if any(label not in known for label in answer.labels):
            raise AnswersInvalid(f"{where} names a label that is not an option")
        if len(set(answer.labels)) != len(answer.labels):
            raise AnswersInvalid(f"{where} repeats a label")
        chosen = len(answer.labels) + (1 if answer.other.strip() else 0)
        if chosen == 0:
            raise AnswersInvalid(f"{where} is empty")
        if not question.multi_select and chosen != 1:
            raise AnswersInvalid(f"{where} has {chosen} choices for a single-select question")
    return list(result.answers)
