"""The second page of the capture window: why this approach, and why not each of the others.

Why every question is required: the journal is evidence of reasoning. A choice without the
reasons for it, or without the reason each alternative lost, cannot support a preference rule.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from PySide6.QtCore import QKeyCombination, Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.gui.capture.choice_page import RecommendedBadge
from app.gui.widgets.byte_counter import ByteCounter
from app.gui.widgets.labels import keyboard_hint, plain_label, scaled_font_label
from app.gui.widgets.window_behaviour import KEY_GUARD_NOTE
from core.gocompat.text import go_trim
from core.limits import REASON_MAX

_FIELD_LINES = 3
SELECTED = "\0selected"
"""Stands for the chosen approach in `RationalePage.ask`'s recommended ids (never an id)."""


class ReasonField(QWidget):
    """One question with its multi-line answer, a live byte counter, and the agent's advice.

    A question about the approach the agent recommended carries the same "Recommended" badge
    as on the choice page, so the person sees whose advice they follow or reject.
    """

    def __init__(
        self, question: str, object_name: str, parent: QWidget, *, recommended: bool = False
    ) -> None:
        super().__init__(parent)
        self.question = question
        self.recommended = recommended
        label = plain_label(question, self)
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        self.edit = QPlainTextEdit(self)
        self.edit.setObjectName(object_name)
        self.edit.setAccessibleName(question)
        if recommended:
            self.edit.setAccessibleDescription("The agent recommended this approach")
        self.edit.setTabChangesFocus(True)
        self.edit.setMinimumHeight(self._height_for_lines(_FIELD_LINES))
        self.edit.setMaximumHeight(self._height_for_lines(_FIELD_LINES * 2))
        label.setBuddy(self.edit)
        self.counter = ByteCounter(REASON_MAX, self)
        self.counter.setObjectName(f"{object_name}-bytes")
        self.edit.textChanged.connect(lambda: self.counter.update_count(self.text))
        heading = QHBoxLayout()
        heading.addWidget(label, 1)
        if recommended:
            heading.addWidget(RecommendedBadge(self), 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(heading)
        layout.addWidget(self.edit)
        layout.addWidget(self.counter)

    @property
    def text(self) -> str:
        return self.edit.toPlainText()

    def problem(self) -> str:
        """Why this answer cannot be recorded yet, or "" when it can."""
        if not go_trim(self.text):
            return f"Answer “{self.question}”"
        if self.counter.is_over:
            return f"“{self.question}” is too long: {self.counter.figures}"
        return ""

    def _height_for_lines(self, lines: int) -> int:
        """Field height from the font, not pixels, so it scales with DPI and font size."""
        frame = 2 * (self.edit.frameWidth() + int(self.edit.document().documentMargin()))
        return lines * self.edit.fontMetrics().lineSpacing() + frame


class RationalePage(QWidget):
    """Asks for the chosen approach's reason and a rejection reason for every alternative.

    Tab and Shift+Tab move between answers; Ctrl+Return (or keypad Ctrl+Enter) records.

    Signals:
        reasons_submitted(str, dict): (selection_reason, {option_id: rejection_reason}), text as
            typed, emitted only when every answer is non-blank and within 4,096 bytes.
        problem_found(str): which answer blocks recording, for the window to show.
        answers_changed(): any answer's text changed.
    """

    reasons_submitted = Signal(str, dict)
    problem_found = Signal(str)
    answers_changed = Signal()

    def __init__(self, problem: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._key: tuple[str, tuple[tuple[str, str], ...], tuple[str, ...]] | None = None
        self._selected: ReasonField | None = None
        self._rejected: dict[str, ReasonField] = {}
        self._scroll = QScrollArea(self)
        self._fields_host = QWidget()
        self._fields = QVBoxLayout(self._fields_host)
        self._fields.setContentsMargins(0, 0, 0, 0)
        self._build(problem)
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            shortcut = QShortcut(QKeySequence(QKeyCombination(Qt.Modifier.CTRL, key)), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.setAutoRepeat(False)
            shortcut.activated.connect(self.try_submit)

    def ask(
        self,
        selected_label: str,
        alternatives: Sequence[tuple[str, str]],
        recommended: Collection[str] = (),
    ) -> None:
        """Show the questions for a choice; answers are kept only if the questions are the same.

        Args:
            selected_label: the chosen listed label, or the person's own words for Other.
            alternatives: (option_id, label) of every listed approach that was not chosen.
            recommended: ids of the recommended approaches; `SELECTED` stands for the chosen
                one, whose question is then marked too.
        """
        key = (selected_label, tuple(alternatives), tuple(sorted(recommended)))
        if key == self._key:
            return
        self._key = key
        for field in self.fields():
            field.setParent(None)
            field.deleteLater()
        self._selected = self._field(
            f"Why did you choose {selected_label}?", "reason-selected", SELECTED in recommended
        )
        self._rejected = {}
        for option_id, label in alternatives:
            self._rejected[option_id] = self._field(
                f"Why did you not choose {label}?",
                f"reason-rejected-{option_id}",
                option_id in recommended,
            )

    def answers(self) -> tuple[str, dict[str, str]]:
        """(selection reason, {option_id: rejection reason}) as typed now."""
        selected = self._selected.text if self._selected is not None else ""
        return selected, {option_id: f.text for option_id, f in self._rejected.items()}

    def fill(self, selection_reason: str, rejections: Mapping[str, str]) -> None:
        """Put kept answers back; an answer for a question not asked now is left out."""
        if self._selected is not None and selection_reason:
            self._selected.edit.setPlainText(selection_reason)
        for option_id, text in rejections.items():
            field = self._rejected.get(option_id)
            if field is not None and text:
                field.edit.setPlainText(text)

    def problems(self) -> list[str]:
        """What blocks recording, one line per answer, in screen order."""
        return [problem for problem in (f.problem() for f in self.fields()) if problem]

    def _field(self, question: str, object_name: str, recommended: bool) -> ReasonField:
        field = ReasonField(question, object_name, self._fields_host, recommended=recommended)
        field.edit.textChanged.connect(self.answers_changed)
        self._fields.addWidget(field)
        return field

    def fields(self) -> list[ReasonField]:
        """Every answer field in screen order: the chosen approach first."""
        head = [self._selected] if self._selected is not None else []
        return [*head, *self._rejected.values()]

    def focus_first(self) -> None:
        fields = self.fields()
        if fields:
            fields[0].edit.setFocus(Qt.FocusReason.OtherFocusReason)
            self._scroll.ensureWidgetVisible(fields[0])

    @Slot()
    def try_submit(self) -> None:
        """Emit the answers when all are complete; otherwise focus and name the first gap."""
        for field in self.fields():
            problem = field.problem()
            if problem:
                field.edit.setFocus(Qt.FocusReason.OtherFocusReason)
                self._scroll.ensureWidgetVisible(field)
                self.problem_found.emit(problem)
                return
        if self._selected is None:
            return
        rejected = {option_id: field.text for option_id, field in self._rejected.items()}
        self.reasons_submitted.emit(self._selected.text, rejected)

    def _build(self, problem: str) -> None:
        content = QWidget(self._scroll)
        layout = QVBoxLayout(content)
        layout.addWidget(scaled_font_label("Why this approach?", content, 1.3))
        problem_label = plain_label(problem, content, selectable=True)
        problem_label.setAccessibleName("Problem")
        layout.addWidget(problem_label)
        hint = "Answer every question. Tab moves between answers; Ctrl+Enter records the decision."
        layout.addWidget(keyboard_hint(f"{hint} {KEY_GUARD_NOTE}", content))
        layout.addSpacing(self.fontMetrics().height() // 2)
        self._fields_host.setParent(content)
        layout.addWidget(self._fields_host)
        layout.addStretch(1)
        self._scroll.setWidget(content)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._scroll)
