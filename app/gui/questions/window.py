"""The native window for `questions.ask`: every question of one AskUserQuestion call at once.

Why one window for all questions: Claude Code asks up to four related questions in one call and
expects all answers together, so the person should see them side by side and send them with one
Ctrl+Enter. Like `CaptureWindow`, it is UI only: it gets the validated params, reports through
signals, and never touches disk, so it can be driven and tested with no journal and no socket.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QKeyCombination, QSize, Qt, Signal, Slot
from PySide6.QtGui import (
    QCloseEvent,
    QGuiApplication,
    QKeySequence,
    QPalette,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.gui.questions.question_panel import QuestionPanel
from app.gui.widgets import palette
from app.gui.widgets.focus_ring import FocusRing
from app.gui.widgets.labels import plain_label
from app.gui.widgets.message_bar import MessageBar
from app.gui.widgets.screen_fit import fit_to_screen
from app.gui.widgets.window_behaviour import (
    KeyGuard,
    bring_to_front,
    mark_decision_window,
    passive_button,
    show_without_focus,
)
from core.gocompat.text import collapse_spaces
from core.ipc.questions import Answer, QuestionsAskParams
from core.record.controls import visible_controls
from core.record.redaction import redact_text

TITLE_PREFIX = "Question: "
TITLE_TEXT_MAX = 60
MINIMUM_SIZE = QSize(560, 420)
PREFERRED_WIDTH = 760
SCREEN_SHARE = 0.9
"""At most this share of the screen's free area: the asking agent's window stays beside it."""
KEYS_HINT = (
    "Digits choose in the marked question · O your own answer · Tab next field · "
    "Ctrl+Enter send all · Esc dismiss"
)


def questions_title(first_question: str) -> str:
    """The title: "Question: " and the first question on one line, cut with "…" past 60 characters.

    Why: task switchers and window lists show only the title, and `xdotool search` finds the
    window by it.
    """
    text = collapse_spaces(
        visible_controls(redact_text(first_question)[0])
    )  # any X client reads it
    if len(text) > TITLE_TEXT_MAX:
        text = text[: TITLE_TEXT_MAX - 1].rstrip() + "…"
    return TITLE_PREFIX + text


def asked_by(params: QuestionsAskParams) -> str:
    """Who asks and where, on one line; empty parts are left out."""
    parts = [
        params.agent,
        f"session {params.session_id}" if params.session_id else "",
        params.workspace,
    ]
    return " · ".join(part for part in parts if part)


class QuestionsWindow(QWidget):
    """All questions of one `questions.ask` call, answered from the keyboard.

    Keys: 1 to 4 choose (or toggle) an option of the question holding focus, O moves to its Other
    text, Tab and Shift+Tab move between fields, Ctrl+Enter sends once every question has an
    answer, Escape or closing the window dismisses. Keys typed into a text field stay text.

    Signals:
        answered(list): the `Answer` of every question, in order; the window then closes.
        dismissed(): the person closed the window without answering; emitted at most once,
            and never after `answered` or `withdraw()`.
    """

    answered = Signal(list)
    dismissed = Signal()

    def __init__(
        self,
        params: QuestionsAskParams,
        parent: QWidget | None = None,
        *,
        color_scheme: Qt.ColorScheme | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self._params = params
        self._scheme = color_scheme
        self._finished = False
        self._current = 0
        self._scroll = QScrollArea(self)
        self._content = QWidget(self._scroll)
        self.panels = [QuestionPanel(i, q, self._content) for i, q in enumerate(params.questions)]
        self._message = MessageBar(self)
        self._dismiss = self._button("&Dismiss", "Close without answering (Esc)")
        self._send = self._button("&Send answers", "Send every answer (Ctrl+Enter)")
        self.key_guard = KeyGuard(self)
        mark_decision_window(self)
        self.focus_ring = FocusRing(self)
        self._build()
        self._bind_keys()
        self.apply_color_scheme()
        hints = QGuiApplication.styleHints()
        if color_scheme is None and hints is not None:
            hints.colorSchemeChanged.connect(self.apply_color_scheme)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)
        self.panels[0].set_current(True)

    @property
    def params(self) -> QuestionsAskParams:
        return self._params

    def present(self, *, activate: bool = True, behind: bool = True) -> None:
        """Show the window, even if minimized.

        Args:
            activate: bring it to the front with keyboard focus; False shows it without the
                keyboard and flashes it in the taskbar (see `window_behaviour`).
            behind: with `activate` False, below the window in use rather than on top.
        """
        if not activate:
            show_without_focus(self, behind=behind)
            return
        bring_to_front(self)
        self._focus_current()

    def answers(self) -> list[Answer]:
        """What `answered` would carry now, whether or not every question is answered yet."""
        return [panel.answer() for panel in self.panels]

    def withdraw(self) -> None:
        """Close because nobody waits for the answer any more: this is not a dismissal."""
        self._finished = True
        self.close()

    @Slot()
    def try_send(self) -> None:
        """Send when every question is answered; otherwise focus and name the first gap."""
        if self._finished:
            return
        for panel in self.panels:
            problem = panel.problem()
            if problem is not None:
                text, widget = problem
                widget.setFocus(Qt.FocusReason.OtherFocusReason)
                self._scroll.ensureWidgetVisible(widget)
                self._message.show_hint(text)
                return
        self._finished = True
        self.answered.emit(self.answers())
        self.close()

    @Slot()
    def apply_color_scheme(self) -> None:
        """The light or dark palette, as the journal window picks it (see `palette`)."""
        palette.apply_scheme(self, self._scheme)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._finished:
            self._finished = True
            self.dismissed.emit()
        super().closeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():
            self._focus_current()

    def _button(self, text: str, tooltip: str) -> QPushButton:
        return passive_button(self, text, tooltip)

    def _build(self) -> None:
        self.setWindowTitle(questions_title(self._params.questions[0].question))
        self.setMinimumSize(MINIMUM_SIZE)
        layout = QVBoxLayout(self._content)
        context = asked_by(self._params)
        if context:
            who = plain_label(f"Asked by {context}", self._content, selectable=True)
            who.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            who.setAccessibleName("Asked by")
            layout.addWidget(who)
        layout.addWidget(plain_label(KEYS_HINT, self._content))
        for panel in self.panels:
            layout.addWidget(panel)
        layout.addStretch(1)
        self._scroll.setWidget(self._content)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._dismiss.setObjectName("dismiss-button")
        self._send.setObjectName("send-button")
        self._dismiss.clicked.connect(self.close)
        self._send.clicked.connect(self.try_send)
        for panel in self.panels:
            panel.group.buttonToggled.connect(lambda _button, _on: self._clear_stale_hint())
            panel.other_edit.textChanged.connect(lambda _text: self._clear_stale_hint())
            panel.reason_edit.textChanged.connect(self._clear_stale_hint)
        footer = QHBoxLayout()
        footer.addWidget(self._message, 1)
        footer.addWidget(self._dismiss, 0, Qt.AlignmentFlag.AlignBottom)
        footer.addWidget(self._send, 0, Qt.AlignmentFlag.AlignBottom)
        outer = QVBoxLayout(self)
        outer.addWidget(self._scroll, 1)
        outer.addLayout(footer)
        fit_to_screen(self, self._preferred_size(), share=SCREEN_SHARE)

    @Slot()
    def _clear_stale_hint(self) -> None:
        """A hint about a gap the person has since filled goes away."""
        shown = self._message.hint_text
        if not shown:
            return
        current = {problem[0] for problem in (p.problem() for p in self.panels) if problem}
        if shown not in current:
            self._message.clear()

    def _preferred_size(self) -> QSize:
        """Tall enough for every question; `fit_to_screen` keeps it inside the free area."""
        hint = self._content.sizeHint()
        wanted = QSize(PREFERRED_WIDTH, hint.height() + 6 * self.fontMetrics().height())
        return wanted.expandedTo(MINIMUM_SIZE)

    def _bind_keys(self) -> None:
        for number in range(1, 5):
            key = Qt.Key(Qt.Key.Key_0.value + number)
            self._shortcut(QKeySequence(key), partial(self._press_digit, number))
        for modifier in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier):
            other = QKeySequence(QKeyCombination(modifier, Qt.Key.Key_O))
            self._shortcut(other, self._focus_other)
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._shortcut(
                QKeySequence(QKeyCombination(Qt.KeyboardModifier.ControlModifier, key)),
                self.try_send,
            )
        self._shortcut(QKeySequence(Qt.Key.Key_Escape), self.close)

    def _shortcut(self, sequence: QKeySequence, slot: Callable[[], object]) -> None:
        shortcut = QShortcut(sequence, self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.setAutoRepeat(False)
        shortcut.activated.connect(slot)

    def _panel(self) -> QuestionPanel:
        """The question keys act on: the one holding focus, else the last one that did."""
        return self.panels[self._current]

    def _press_digit(self, number: int) -> None:
        panel = self._panel()
        panel.press_digit(number)
        self._scroll.ensureWidgetVisible(panel.rows[min(number, len(panel.rows)) - 1])

    def _focus_other(self) -> None:
        panel = self._panel()
        panel.focus_other()
        self._scroll.ensureWidgetVisible(panel.other_edit)

    def _focus_current(self) -> None:
        focused = QApplication.focusWidget()
        if focused is None or not self.isAncestorOf(focused):
            self._panel().focus_first()

    @Slot(QWidget, QWidget)
    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        for index, panel in enumerate(self.panels):
            if panel.contains(new):
                self._current = index
                break
        else:
            return
        for index, panel in enumerate(self.panels):
            panel.set_current(index == self._current)
