"""One AskUserQuestion question inside the questions window: options, Other, and an optional why.

Why the rules look like this: Claude Code's own picker preselects nothing and offers free text
next to the listed options, so this panel does the same. An answer is a chosen label or Other
text; the reason is optional because AskUserQuestion never asks for one, yet the journal keeps
it when the person gives it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QFocusEvent, QMouseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.widgets.byte_counter import ByteCounter
from app.gui.widgets.indicators import use_clear_indicators
from app.gui.widgets.labels import keyboard_hint, plain_label, scaled_font_label
from app.gui.widgets.palette import selection_tint
from app.gui.widgets.window_behaviour import KEY_GUARD_NOTE
from core.gocompat.text import equal_fold, go_trim
from core.ipc.questions import OTHER_MAX, REASON_MAX, Answer, Question

REASON_TITLE = "Why? (optional)"
_REASON_LINES = 3
"""Room for a sentence or two; longer reasons scroll, so four questions still fit a screen."""


def _key_button(multi_select: bool, text: str, parent: QWidget) -> QAbstractButton:
    """A checkbox when several answers may be chosen, a radio button when only one."""
    button: QAbstractButton = (
        QCheckBox(text, parent) if multi_select else QRadioButton(text, parent)
    )
    font = button.font()
    font.setBold(True)
    button.setFont(font)
    use_clear_indicators(button)
    return button


def _muted(label: QLabel) -> QLabel:
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class OptionRow(QWidget):
    """A listed option: its digit on the button, the label in bold, the description below.

    The label is a separate word-wrapped QLabel because button text never wraps. A click
    anywhere on the row acts like a click on the button, a bigger target than the indicator.
    A chosen row is also tinted with the palette's highlight, because some styles (Fusion in
    dark mode) draw a checked indicator that is hard to see.
    """

    def __init__(self, number: int, label: str, description: str, multi: bool, parent: QWidget):
        super().__init__(parent)
        self.label = label
        self.button = _key_button(multi, str(number), self)
        self.button.setAccessibleName(f"Option {number}: {label}")
        self.button.setAccessibleDescription(description)
        title = plain_label(label, self)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.button.toggled.connect(self.update)
        pad = self.fontMetrics().height() // 4
        grid = QGridLayout(self)
        grid.setContentsMargins(pad, pad, pad, pad)
        grid.setVerticalSpacing(0)
        grid.addWidget(self.button, 0, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(title, 0, 1)
        if description:
            grid.addWidget(_muted(plain_label(description, self)), 1, 1)
        grid.setColumnStretch(1, 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.button.isChecked():
            tint = selection_tint(self.palette())
            painter = QPainter(self)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(tint)
            radius = self.fontMetrics().height() / 4
            painter.drawRoundedRect(QRectF(self.rect()), radius, radius)
            painter.end()
        super().paintEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.button.click()
            self.button.setFocus(Qt.FocusReason.MouseFocusReason)
        super().mousePressEvent(event)


class QuestionPanel(QFrame):
    """One question's controls; the window asks it for an answer or for what is missing.

    Nothing starts checked. In a single-select question Other is one more radio button in the
    group, so picking a listed option and typing your own are mutually exclusive; in a
    multi-select question Other is one more checkbox, checked while it holds text.
    """

    def __init__(self, index: int, question: Question, parent: QWidget) -> None:
        super().__init__(parent)
        self.index = index
        self.question = question
        self._current = False
        multi = question.multi_select
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName(f"question-{index + 1}")
        self.rows = [
            OptionRow(n, o.label, o.description, multi, self)
            for n, o in enumerate(question.options, start=1)
        ]
        self.other_button = _key_button(multi, "O", self)
        self.other_edit = QLineEdit(self)
        self.other_counter = ByteCounter(OTHER_MAX, self)
        self.reason_edit = QPlainTextEdit(self)
        self.reason_counter = ByteCounter(REASON_MAX, self)
        self.group = QButtonGroup(self)
        self.group.setExclusive(not multi)
        for number, row in enumerate(self.rows):
            self.group.addButton(row.button, number)
        self.group.addButton(self.other_button, len(self.rows))
        for button in self.group.buttons():
            button.installEventFilter(self)
        self._name_children()
        self._build()
        self.other_edit.textChanged.connect(self.other_counter.update_count)
        self.other_edit.textEdited.connect(self._on_other_edited)
        self.reason_edit.textChanged.connect(
            lambda: self.reason_counter.update_count(self.reason_edit.toPlainText())
        )

    @property
    def keys(self) -> str:
        return f"1–{len(self.rows)}"

    def set_current(self, current: bool) -> None:
        """Marks the question that digit keys act on, with an accent bar (and for screen
        readers, its description)."""
        if current != self._current:
            self._current = current
            self.setAccessibleDescription("Digit keys choose here" if current else "")
            self.update()

    def press_digit(self, number: int) -> None:
        """Select (single) or toggle (multi) option `number`; numbers past the last do nothing."""
        if not 1 <= number <= len(self.rows):
            return
        button = self.rows[number - 1].button
        if self.question.multi_select:
            button.toggle()
        else:
            button.setChecked(True)
        button.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_other(self) -> None:
        self.other_button.setChecked(True)
        self.other_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_first(self) -> None:
        """Focus the chosen option, else the first one; never checks anything."""
        checked = self.group.checkedButton()
        if checked is self.other_button:
            self.other_edit.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            (checked or self.rows[0].button).setFocus(Qt.FocusReason.OtherFocusReason)

    def contains(self, widget: QWidget | None) -> bool:
        return widget is not None and (widget is self or self.isAncestorOf(widget))

    def answer(self) -> Answer:
        """The answer as the wire carries it: labels in option order, trimmed Other and reason.

        Other text equal to a listed label (trimmed, case-folded) counts as that label, so
        "sqlite" typed by hand is the same answer as pressing the key for SQLite.
        """
        chosen = {row.label for row in self.rows if row.button.isChecked()}
        other = go_trim(self.other_edit.text()) if self.other_button.isChecked() else ""
        match = next((row.label for row in self.rows if equal_fold(row.label, other)), None)
        if match is not None and other:
            other = ""
            if not self.question.multi_select:
                chosen.clear()
            chosen.add(match)
        labels = [row.label for row in self.rows if row.label in chosen]
        return Answer(
            question=self.question.question,
            labels=labels,
            other=other,
            reason=go_trim(self.reason_edit.toPlainText()),
        )

    def problem(self) -> tuple[str, QWidget] | None:
        """What keeps this question from being sent, and where to put the cursor; None if ok."""
        name = self.question.header or f"Question {self.index + 1}"
        if self.other_button.isChecked() and self.other_counter.is_over:
            return f"{name}: Other is too long ({self.other_counter.figures})", self.other_edit
        if self.reason_counter.is_over:
            figures = self.reason_counter.figures
            return f"{name}: the reason is too long ({figures})", self.reason_edit
        answer = self.answer()
        if answer.labels or answer.other:
            return None
        if self.other_button.isChecked():
            hint = f"{name}: type your answer under Other, or press {self.keys}"
            return hint, self.other_edit
        return f"{name}: press {self.keys} to choose, or O to type your own", self._first()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Tab into a single-select question lands on its chosen button, as radio groups do
        elsewhere; Qt would pick the first button of the group even when another is chosen."""
        if (
            not self.question.multi_select
            and isinstance(event, QFocusEvent)
            and event.type() == QEvent.Type.FocusIn
            and event.reason() in (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason)
        ):
            chosen = self.group.checkedButton()
            if chosen is not None and chosen is not watched:
                chosen.setFocus(event.reason())
        return super().eventFilter(watched, event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._current:
            return
        painter = QPainter(self)
        width = max(3.0, self.fontMetrics().height() / 5)
        painter.fillRect(
            QRectF(0, 0, width, self.height()), self.palette().color(QPalette.ColorRole.Accent)
        )
        painter.end()

    def _first(self) -> QWidget:
        return self.rows[0].button

    def _on_other_edited(self, text: str) -> None:
        """Typing is choosing Other; erasing it all un-chooses it where that is possible."""
        if go_trim(text):
            self.other_button.setChecked(True)
        elif self.question.multi_select:
            self.other_button.setChecked(False)

    def _name_children(self) -> None:
        """Object names per panel (tests and accessibility tools find fields by them)."""
        for number, row in enumerate(self.rows, start=1):
            row.button.setObjectName(f"option-{number}")
        self.other_button.setObjectName("option-other")
        self.other_edit.setObjectName("other-text")
        self.other_counter.setObjectName("other-bytes")
        self.reason_edit.setObjectName("reason-text")
        self.reason_counter.setObjectName("reason-bytes")

    def _build(self) -> None:
        question = self.question
        number = f"Question {self.index + 1}"
        heading = f"{number} · {question.header}" if question.header else number
        text = plain_label(question.question, self, selectable=True)
        text.setAccessibleName(f"{number} text")
        verb = "toggle any" if question.multi_select else "choose one"
        hint = f"Press {self.keys} to {verb}, O to type your own."
        if self.index == 0:
            hint = f"{hint} {KEY_GUARD_NOTE}"
        layout = QVBoxLayout(self)
        spacing = self.fontMetrics().height()
        layout.setContentsMargins(spacing, spacing * 2 // 3, spacing, spacing * 2 // 3)
        layout.addWidget(scaled_font_label(heading, self, 1.15))
        layout.addWidget(text)
        layout.addWidget(_muted(keyboard_hint(hint, self)))
        for row in self.rows:
            layout.addWidget(row)
        layout.addLayout(self._other_row(question.question))
        layout.addLayout(self._reason_rows(question.question))

    def _other_row(self, question: str) -> QHBoxLayout:
        self.other_button.setAccessibleName("Other")
        self.other_edit.setPlaceholderText("Other: your own answer")
        self.other_edit.setAccessibleName(f"Your own answer to: {question}")
        row = QHBoxLayout()
        pad = self.fontMetrics().height() // 4  # lines up with the option rows' tint padding
        row.setContentsMargins(pad, 0, pad, 0)
        row.addWidget(self.other_button)
        row.addWidget(self.other_edit, 1)
        row.addWidget(self.other_counter)
        return row

    def _reason_rows(self, question: str) -> QVBoxLayout:
        title = plain_label(REASON_TITLE, self)
        title.setBuddy(self.reason_edit)
        self.reason_edit.setAccessibleName(f"Why? (optional) for: {question}")
        self.reason_edit.setTabChangesFocus(True)
        lines = self.reason_edit.fontMetrics().lineSpacing()
        frame = 2 * (
            self.reason_edit.frameWidth() + int(self.reason_edit.document().documentMargin())
        )
        self.reason_edit.setFixedHeight(_REASON_LINES * lines + frame)
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addWidget(self.reason_counter)
        rows = QVBoxLayout()
        rows.setSpacing(self.fontMetrics().height() // 4)
        rows.addSpacing(self.fontMetrics().height() // 3)
        rows.addLayout(header)
        rows.addWidget(self.reason_edit)
        return rows
