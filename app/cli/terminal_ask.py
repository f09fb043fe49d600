"""Asks a pending decision in the terminal, with the same rules as the window.

There is no default: the choice must be typed explicitly, Other takes free text, and every
rationale is required. End of input or Ctrl+C cancels and leaves the decision pending.
"""

from __future__ import annotations

from typing import TextIO

from core.capture.machine import CaptureTicket, Pending, Recorded
from core.errors import InvalidDecision
from core.gocompat.text import utf8_len
from core.limits import CUSTOM_SELECTION_MAX, REASON_MAX
from core.record.controls import visible_controls
from core.record.redaction import redact_text


class _Cancelled(Exception):
    pass


def _shown(text: str) -> str:
    return visible_controls(redact_text(text)[0])


class TerminalAsker:
    def __init__(self, reader: TextIO, writer: TextIO) -> None:
        self._in = reader
        self._out = writer

    def ask(self, ticket: CaptureTicket) -> Recorded | Pending:
        stage = ticket.stage
        try:
            if stage == "choice":
                self._show_options(ticket)
                self._choose(ticket)
                stage = "rationale"
            return self._rationales(ticket)
        except _Cancelled:
            self._say("\nCancelled; the decision stays pending.")
            return ticket.cancel(stage)

    def _say(self, text: str) -> None:
        """Prints a line, redacted and with control characters escaped: the proposal and the
        errors quote the agent's raw text, and this writes to the terminal itself."""
        print(_shown(text), file=self._out, flush=True)

    def _read(self, prompt: str) -> str:
        self._out.write(_shown(prompt))  # prompts quote option labels
        self._out.flush()
        try:
            line = self._in.readline()
        except KeyboardInterrupt:
            raise _Cancelled from None
        if not line:
            raise _Cancelled
        return line.rstrip("\n")

    def _show_options(self, ticket: CaptureTicket) -> None:
        proposal = ticket.proposal
        self._say(f"\n{proposal.header_text}\n{proposal.problem}\n")
        for index, option in enumerate(proposal.options, start=1):
            mark = "  (recommended, advice only)" if option.recommended else ""
            self._say(f"  {index}. {option.label}{mark}")
            if option.description:
                self._say(f"     {option.description}")
            if option.pros:
                self._say(f"     + {'; '.join(option.pros)}")
            if option.cons:
                self._say(f"     - {'; '.join(option.cons)}")
        self._say("  O. Other (describe your own approach)\n")

    def _choose(self, ticket: CaptureTicket) -> None:
        count = len(ticket.proposal.options)
        while True:
            answer = self._read(f"Choose 1-{count} or O (no default): ").strip()
            if answer.isdigit() and 1 <= int(answer) <= count:
                ticket.choose(ticket.proposal.options[int(answer) - 1].id)
                return
            if answer.lower() == "o":
                custom = self._required("Your approach: ", CUSTOM_SELECTION_MAX)
                try:
                    ticket.choose(custom=custom)
                except InvalidDecision as exc:
                    self._say(str(exc))
                    continue
                return
            self._say("Type the number of an approach, or O. Nothing is chosen by default.")

    def _required(self, prompt: str, limit: int) -> str:
        while True:
            text = self._read(prompt).strip()
            size = utf8_len(text)
            if not text:
                self._say("An answer is required.")
            elif size > limit:
                self._say(f"That is {size} bytes; the limit is {limit}.")
            else:
                return text

    def _rationales(self, ticket: CaptureTicket) -> Recorded | Pending:
        while True:
            answers: dict[str, str] = {}
            reason = ""
            for question in ticket.required_rationales():
                text = self._required(question.prompt + " ", REASON_MAX)
                if question.option_id is None:
                    reason = text
                else:
                    answers[question.option_id] = text
            try:
                return ticket.submit(reason, answers)
            except InvalidDecision as exc:
                self._say(str(exc))
