"""The first page of the capture window: choose one listed approach, or describe your own.

Why it is strict: the agent's recommendation is advice, not a default. Nothing starts selected,
and Enter continues only after the person has picked something with a key press or a click.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from PySide6.QtCore import QKeyCombination, QRectF, Qt, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QShortcut,
)
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.capture.request import CaptureOption, CaptureRequest, Choice, canonical_choice
from app.gui.widgets.byte_counter import ByteCounter
from app.gui.widgets.indicators import use_clear_indicators
from app.gui.widgets.labels import keyboard_hint, plain_label, scaled_font_label
from app.gui.widgets.palette import fork_colors, readable_on, selection_tint
from app.gui.widgets.window_behaviour import KEY_GUARD_NOTE
from core.decider.service import UsualChoice
from core.gocompat.text import go_trim
from core.limits import CUSTOM_SELECTION_MAX
from core.record.controls import visible_controls

RECOMMENDED_TEXT = "Recommended (advice only)"
USUAL_TEXT = "Your usual choice"
SELECTED_TEXT = "✓ Selected"
_NO_VALUE = "—"


class Badge(QLabel):
    """A pill filled with a colour taken from the palette; painted per paint, so it follows
    the theme.

    The text colour is the palette's highlighted text when that is readable on the fill, else
    black or white (`palette.readable_on`), so no system theme can make a badge unreadable.
    """

    def __init__(self, text: str, parent: QWidget, fill: Callable[[QPalette], QColor]) -> None:
        super().__init__(text, parent)
        self._fill = fill
        self.setTextFormat(Qt.TextFormat.PlainText)
        spacing = self.fontMetrics().height() // 2
        self.setContentsMargins(spacing, 1, spacing, 1)
        self.setAccessibleName(text)

    def colours(self) -> tuple[QColor, QColor]:
        """(fill, text) as painted now."""
        palette = self.palette()
        fill = self._fill(palette)
        return fill, readable_on(fill, palette.color(QPalette.ColorRole.HighlightedText))

    def paintEvent(self, event: QPaintEvent) -> None:
        fill, text = self.colours()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        radius = rect.height() / 2
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, radius, radius)
        painter.setPen(text)
        painter.drawText(self.contentsRect(), Qt.AlignmentFlag.AlignCenter, self.text())
        painter.end()


class RecommendedBadge(Badge):
    """The agent's advice, in the fork view's amber: never a preselection, and never the
    colour of the person's own choice."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(RECOMMENDED_TEXT, parent, lambda p: fork_colors(p).recommended)


class SelectedBadge(Badge):
    """Says in words which card is chosen, so the choice never rests on colour or a dot."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(SELECTED_TEXT, parent, lambda p: p.color(QPalette.ColorRole.Highlight))


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"• {item}" for item in items)


class _ClickableCard(QFrame):
    """A framed card: its key as a radio button beside a word-wrapped title and details.

    The title is a label rather than the radio button's text, because button text never wraps
    and a long label would force horizontal scrolling. Clicking anywhere on the card selects
    it, a bigger target than the radio button. The chosen card is tinted and outlined in the
    palette's highlight colour and says "✓ Selected", because some themes draw a checked radio
    button that is hard to see.
    """

    def __init__(self, key: str, title: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.radio = QRadioButton(key, self)
        use_clear_indicators(self.radio)
        self.title = plain_label(title, self)
        for widget in (self.radio, self.title):
            font = widget.font()
            font.setBold(True)
            widget.setFont(font)
        self.selected_badge = SelectedBadge(self)
        self.selected_badge.hide()
        self.header = QHBoxLayout()
        self.header.addWidget(self.title, 1)
        self.header.addWidget(self.selected_badge, 0, Qt.AlignmentFlag.AlignTop)
        self.body = QVBoxLayout()
        grid = QGridLayout(self)
        grid.addWidget(self.radio, 0, 0, Qt.AlignmentFlag.AlignTop)
        grid.addLayout(self.header, 0, 1)
        grid.addLayout(self.body, 1, 1)
        grid.setColumnStretch(1, 1)
        self.radio.toggled.connect(self._on_toggled)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.radio.setChecked(True)
            self.radio.setFocus(Qt.FocusReason.MouseFocusReason)
        super().mousePressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.radio.isChecked():
            super().paintEvent(event)
            return
        palette = self.palette()
        width = max(2, self.fontMetrics().height() // 8)
        inset = width / 2
        radius = self.fontMetrics().height() / 3
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Highlight), width))
        painter.setBrush(selection_tint(palette))
        painter.drawRoundedRect(
            QRectF(self.rect()).adjusted(inset, inset, -inset, -inset), radius, radius
        )
        painter.end()

    def _on_toggled(self, checked: bool) -> None:
        self.selected_badge.setVisible(checked)
        self.update()


class OptionCard(_ClickableCard):
    """One listed approach: number key, label, advisory badge, description, pros and cons."""

    def __init__(self, number: int, option: CaptureOption, parent: QWidget) -> None:
        super().__init__(str(number), option.label, parent)
        self.option_id = option.id
        self.radio.setObjectName(f"choice-{number}")
        self.radio.setAccessibleName(f"Approach {number}: {visible_controls(option.label)}")
        advice = f"{RECOMMENDED_TEXT}. " if option.recommended else ""
        self.radio.setAccessibleDescription(advice + visible_controls(option.description))
        if option.recommended:
            self.header.addWidget(RecommendedBadge(self), 0, Qt.AlignmentFlag.AlignTop)
        if option.description:
            self.body.addWidget(plain_label(option.description, self))
        pros_cons = self._pros_cons(option)
        if pros_cons is not None:
            self.body.addLayout(pros_cons)

    def _pros_cons(self, option: CaptureOption) -> QGridLayout | None:
        columns = [
            (title, items)
            for title, items in (("Pros", option.pros), ("Cons", option.cons))
            if items
        ]
        if not columns:
            return None
        grid = QGridLayout()
        grid.setVerticalSpacing(self.fontMetrics().height() // 6)
        for column, (title, items) in enumerate(columns):
            heading = plain_label(title, self)
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            grid.addWidget(heading, 0, column)
            grid.addWidget(plain_label(_bullets(items), self), 1, column, Qt.AlignmentFlag.AlignTop)
            grid.setColumnStretch(column, 1)
        return grid


class OtherCard(_ClickableCard):
    """The "Other…" choice: free text limited to 1,024 UTF-8 bytes, with a live counter."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__("O", "Other…", parent)
        self.radio.setObjectName("choice-other")
        self.radio.setAccessibleName("Other approach")
        self.edit = QLineEdit(self)
        self.edit.setObjectName("other-text")
        self.edit.setAccessibleName("Describe your own approach")
        self.edit.setPlaceholderText("Describe your own approach")
        self.counter = ByteCounter(CUSTOM_SELECTION_MAX, self)
        self.counter.setObjectName("other-bytes")
        self.edit.textChanged.connect(self.counter.update_count)
        self.edit.textEdited.connect(lambda _text: self.radio.setChecked(True))
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.counter)
        self.body.addLayout(row)


class ContextPanel(QWidget):
    """Who asked, in which project, and how the agent classified the fork."""

    def __init__(self, request: CaptureRequest, parent: QWidget) -> None:
        super().__init__(parent)
        asked_by = " · ".join(
            part
            for part in (
                request.agent,
                f"session {request.session_id}" if request.session_id else "",
            )
            if part
        )
        pairs = [
            ("Project", request.project_alias, "Risk", request.risk_level),
            (
                "Kind",
                request.decision_kind,
                "Agent confidence",
                f"{request.detector_confidence:.0%}",
            ),
            ("Domains", ", ".join(request.domains), "Languages", ", ".join(request.languages)),
        ]
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for row, (left_key, left_value, right_key, right_value) in enumerate(pairs):
            self._add_pair(grid, row, 0, left_key, left_value)
            self._add_pair(grid, row, 2, right_key, right_value)
        self._add_pair(grid, len(pairs), 0, "Asked by", asked_by, span=3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)

    def _add_pair(
        self, grid: QGridLayout, row: int, column: int, key: str, value: str, *, span: int = 1
    ) -> None:
        key_label = plain_label(f"{key}:", self)
        key_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        value_label = plain_label(value or _NO_VALUE, self, selectable=True)
        value_label.setAccessibleName(key)
        grid.addWidget(key_label, row, column, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(value_label, row, column + 1, 1, span, Qt.AlignmentFlag.AlignTop)


class UsualChoiceLine(QWidget):
    """ "Your usual choice: …" with the rule's examples one click away. Evidence only: it marks
    no card and takes no key; the agent's recommendation badge stays on its own card."""

    def __init__(self, usual: UsualChoice, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("usual-choice")
        self.line = plain_label(f"{USUAL_TEXT}: {usual.sentence}.", self)
        self.line.setAccessibleName(USUAL_TEXT)
        self.toggle = QToolButton(self)
        self.toggle.setText("Show &examples")
        self.toggle.setToolTip("E shows or hides them")
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.toggle.setEnabled(bool(usual.examples))
        self.examples = plain_label(_bullets(list(usual.examples)), self)
        self.examples.setAccessibleName("Examples of your usual choice")
        self.examples.setVisible(False)
        self.toggle.toggled.connect(self._show_examples)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.line, 1)
        row.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.examples)

    @Slot(bool)
    def _show_examples(self, shown: bool) -> None:
        self.examples.setVisible(shown)
        self.toggle.setText("Hide &examples" if shown else "Show &examples")


class ChoicePage(QWidget):
    """Shows the fork and takes one explicit choice from the keyboard or the mouse.

    Keys (active while this page is the window's current page): 1 to 4 pick a listed approach,
    O picks Other and focuses its text, Up/Down move the selection, Return/Enter continue.
    Keys typed into the Other field stay text, because a line edit claims printable keys
    before shortcuts see them.

    Signals:
        choice_confirmed(str, str): (option_id, custom_text) of a valid choice, exactly one
            non-empty; Other text matching a listed label arrives as that option's id.
        problem_found(str): why continuing did nothing, for the window to show.
        selection_changed(): the marked approach or the Other text changed.
    """

    choice_confirmed = Signal(str, str)
    problem_found = Signal(str)
    selection_changed = Signal()

    def __init__(self, request: CaptureRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._options = list(request.options)
        self._cards = [OptionCard(n, opt, self) for n, opt in enumerate(self._options, start=1)]
        self._other = OtherCard(self)
        self._group = QButtonGroup(self)
        for index, card in enumerate([*self._cards, self._other]):
            self._group.addButton(card.radio, index)
        self._scroll = QScrollArea(self)
        self._build(request)
        self._bind_keys()
        self._group.idToggled.connect(lambda _id, _checked: self.selection_changed.emit())
        self._other.edit.textChanged.connect(lambda _text: self.selection_changed.emit())

    @property
    def other_index(self) -> int:
        return len(self._cards)

    @property
    def other_text(self) -> str:
        """What is typed under Other, whether or not Other is chosen."""
        return self._other.edit.text()

    def selected_choice(self) -> Choice | None:
        """The raw selection on screen (not canonicalised), or None when nothing is chosen."""
        index = self._group.checkedId()
        if index < 0:
            return None
        if index == self.other_index:
            return Choice(custom_text=self._other.edit.text())
        return Choice(option_id=self._cards[index].option_id)

    def restore(self, choice: Choice) -> None:
        """Show a choice made earlier, e.g. when a decision resumes at the rationale stage."""
        if choice.custom_text:
            self._other.edit.setText(choice.custom_text)
            self._other.radio.setChecked(True)
            return
        for card in self._cards:
            if card.option_id == choice.option_id:
                card.radio.setChecked(True)

    def restore_draft(self, option_id: str, other_text: str, other_chosen: bool) -> None:
        """Show what a kept draft had marked and typed; an unknown option id marks nothing."""
        self._other.edit.setText(other_text)
        if other_chosen:
            self._other.radio.setChecked(True)
            return
        for card in self._cards:
            if card.option_id == option_id:
                card.radio.setChecked(True)

    def focus_current(self) -> None:
        """Put focus on the chosen item, or on the first approach when nothing is chosen."""
        index = self._group.checkedId()
        if index == self.other_index:
            self._other.edit.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self._cards[max(index, 0)].radio.setFocus(Qt.FocusReason.OtherFocusReason)

    def problem(self) -> str:
        """Why continuing would do nothing now, or "" when the choice can be confirmed."""
        choice = self.selected_choice()
        keys = f"1–{len(self._cards)}"
        if choice is None:
            return f"Choose an approach first: press {keys} or O"
        if choice.option_id:
            return ""
        counter = self._other.counter
        if counter.is_over:
            return f"Other is too long: {counter.figures}. Shorten it first."
        if not go_trim(choice.custom_text):
            return f"Describe your approach under Other, or press {keys}"
        return ""

    @Slot()
    def try_continue(self) -> None:
        """Emit the choice when it is explicit and valid; otherwise say what is missing."""
        problem = self.problem()
        choice = self.selected_choice()
        if problem:
            if choice is not None and not choice.option_id:
                self._other.edit.setFocus(Qt.FocusReason.OtherFocusReason)
            self.problem_found.emit(problem)
            return
        assert choice is not None
        if choice.option_id:
            self.choice_confirmed.emit(choice.option_id, "")
            return
        final = canonical_choice(self._options, choice.custom_text)
        self.choice_confirmed.emit(final.option_id, final.custom_text)

    def _build(self, request: CaptureRequest) -> None:
        content = QWidget(self._scroll)
        layout = QVBoxLayout(content)
        header = request.header.strip() or "Implementation decision"
        layout.addWidget(scaled_font_label(header, content, 1.3))
        problem = plain_label(request.problem, content, selectable=True)
        problem.setAccessibleName("Problem")
        layout.addWidget(problem)
        layout.addWidget(ContextPanel(request, content))
        layout.addSpacing(self.fontMetrics().height() // 2)
        layout.addWidget(scaled_font_label("Choose one approach", content, 1.1))
        keys = f"1–{len(self._cards)}"
        hint = f"Press {keys} to choose, O to describe your own, ↑/↓ to move, Enter to continue."
        layout.addWidget(keyboard_hint(f"{hint} {KEY_GUARD_NOTE}", content))
        self.usual_line: UsualChoiceLine | None = None
        if request.usual_choice is not None:
            self.usual_line = UsualChoiceLine(request.usual_choice, content)
            layout.addSpacing(self.fontMetrics().height() // 3)
            layout.addWidget(self.usual_line)
        for card in [*self._cards, self._other]:
            card.setParent(content)
            layout.addWidget(card)
        layout.addStretch(1)
        self._scroll.setWidget(content)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._scroll)

    def _bind_keys(self) -> None:
        for number in range(1, len(self._cards) + 1):
            key = Qt.Key(Qt.Key.Key_0.value + number)
            self._shortcut(QKeySequence(key), partial(self._select, number - 1))
        for modifier in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier):
            other = QKeySequence(QKeyCombination(modifier, Qt.Key.Key_O))
            self._shortcut(other, lambda: self._select(self.other_index))
        line = self.usual_line
        if line is not None and line.toggle.isEnabled():
            self._shortcut(QKeySequence(Qt.Key.Key_E), line.toggle.toggle)
        self._shortcut(QKeySequence(Qt.Key.Key_Up), lambda: self._move(-1))
        self._shortcut(QKeySequence(Qt.Key.Key_Down), lambda: self._move(1))
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            combo = QKeyCombination(Qt.KeyboardModifier.NoModifier, key)
            self._shortcut(QKeySequence(combo), self.try_continue)

    def _shortcut(self, sequence: QKeySequence, slot: Callable[[], None]) -> None:
        """A window-wide key that only works while this page is visible (the current page)."""
        shortcut = QShortcut(sequence, self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.setAutoRepeat(False)
        shortcut.activated.connect(slot)

    def _select(self, index: int) -> None:
        if index == self.other_index:
            self._other.radio.setChecked(True)
            self._other.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self._scroll.ensureWidgetVisible(self._other)
            return
        card = self._cards[index]
        card.radio.setChecked(True)
        card.radio.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self._scroll.ensureWidgetVisible(card)

    def _move(self, step: int) -> None:
        """Arrow keys: move the selection; with none yet, select the focused (or first) item."""
        current = self._group.checkedId()
        if current < 0:
            self._select(max(self._focused_index(), 0))
            return
        self._select(min(max(current + step, 0), self.other_index))

    def _focused_index(self) -> int:
        if self._other.edit.hasFocus():
            return self.other_index
        for button in self._group.buttons():
            if button.hasFocus():
                return self._group.id(button)
        return -1
