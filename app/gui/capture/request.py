"""What the capture window shows and what a person chose: value types, no widgets.

Why apart from the window: the window and its pages all read one request and hand one
`Choice` between them. Kept here, a page never imports the window for them, so the capture
package has no import cycle (import-linter's `acyclic_siblings` contract checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import Qt

from core.capture.drafts import Draft
from core.gocompat.text import equal_fold, go_trim
from core.limits import OPTIONS_MAX, OPTIONS_MIN
from core.record.models import Stage


class CaptureOption(Protocol):
    """What the window reads from an approach; `core.record.models.ProposalOption` fits."""

    @property
    def id(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def pros(self) -> Sequence[str]: ...
    @property
    def cons(self) -> Sequence[str]: ...
    @property
    def recommended(self) -> bool: ...


@dataclass(frozen=True)
class CaptureRequest:
    """Everything the window shows for one pending decision.

    `selected_option_id` or `custom_selection` (exactly one) is preset when a decision resumes
    at the rationale stage. `draft` is what the person typed last time (`core.capture.drafts`): it
    is private to this window and never part of the pending state agents read. `color_scheme`
    forces light or dark (screenshots, tests); None follows the desktop.

    Raises:
        ValueError: the request cannot be shown (option count, duplicate ids, stage, preset).
    """

    decision_id: str
    problem: str
    options: Sequence[CaptureOption]
    decision_kind: str
    risk_level: str
    domains: Sequence[str]
    detector_confidence: float
    project_alias: str
    session_id: str
    agent: str
    header: str
    stage: Stage
    selected_option_id: str = ""
    custom_selection: str = ""
    draft: Draft | None = None
    color_scheme: Qt.ColorScheme | None = None
    languages: Sequence[str] = ()
    """The programming languages the agent says the fork is about."""

    def __post_init__(self) -> None:
        count = len(self.options)
        if not OPTIONS_MIN <= count <= OPTIONS_MAX:
            raise ValueError(f"options: {count} given, {OPTIONS_MIN} to {OPTIONS_MAX} allowed")
        ids = [option.id for option in self.options]
        if len(set(ids)) != count:
            raise ValueError(f"options: duplicate ids in {ids}")
        if self.stage not in ("choice", "rationale"):
            raise ValueError(f"stage: {self.stage!r} is neither 'choice' nor 'rationale'")
        if self.stage == "rationale" and self.preset_choice() is None:
            raise ValueError(
                "stage 'rationale' needs exactly one of selected_option_id (a listed id) "
                "and custom_selection"
            )

    def preset_choice(self) -> Choice | None:
        """The choice made before the decision was paused, or None when it is not usable."""
        custom = go_trim(self.custom_selection)
        if bool(self.selected_option_id) == bool(custom):
            return None
        if custom:
            return Choice(custom_text=custom)
        if self.selected_option_id not in {option.id for option in self.options}:
            return None
        return Choice(option_id=self.selected_option_id)


@dataclass(frozen=True)
class Choice:
    """An explicit selection: exactly one of `option_id` and `custom_text` is non-empty."""

    option_id: str = ""
    custom_text: str = ""


def canonical_choice(options: Sequence[CaptureOption], custom_text: str) -> Choice:
    """Other text equal to a listed label (trimmed, case-folded) means that listed option.

    Why: "per-user global journal" typed by hand is the same decision as picking it, and the
    preference profile should count it as such.
    """
    wanted = go_trim(custom_text)
    for option in options:
        if equal_fold(wanted, go_trim(option.label)):
            return Choice(option_id=option.id)
    return Choice(custom_text=wanted)


def choice_label(options: Sequence[CaptureOption], choice: Choice) -> str:
    """The text people see for a choice: the listed label, or their own words."""
    for option in options:
        if option.id == choice.option_id:
            return option.label
    return choice.custom_text
