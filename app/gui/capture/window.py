"""The native window in which a person settles one implementation fork an agent raised.

Why it is UI only: a controller owns the pending state and the journal. The window receives a
`CaptureRequest`, reports what the person did through signals, and never touches disk, so it
can be driven and tested with no journal at all.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.gui.capture.choice_page import ChoicePage
from app.gui.capture.rationale_page import SELECTED, RationalePage
from app.gui.capture.request import CaptureRequest, Choice, choice_label
from app.gui.widgets import palette
from app.gui.widgets.focus_ring import FocusRing
from app.gui.widgets.message_bar import MessageBar
from app.gui.widgets.window_behaviour import (
    KeyGuard,
    bring_to_front,
    mark_decision_window,
    passive_button,
    show_without_focus,
)
from core.capture.drafts import Draft
from core.gocompat.text import collapse_spaces, go_trim
from core.record.controls import visible_controls
from core.record.models import Stage
from core.record.redaction import redact_text

TITLE_PREFIX = "Decision: "
TITLE_PROBLEM_MAX = 60
MINIMUM_SIZE = QSize(640, 480)
PREFERRED_SIZE = QSize(780, 720)
DRAFT_DELAY_MS = 500
"""How long typing pauses before the draft is saved (every keystroke would be too many)."""


def window_title(problem: str) -> str:
    """The title: the problem on one line after "Decision: ", cut with "…" past 60 characters.

    Why: window lists and task switchers show the title, so it must say which fork this is.
    """
    text = collapse_spaces(visible_controls(redact_text(problem)[0]))  # X clients read it
    if len(text) > TITLE_PROBLEM_MAX:
        text = text[: TITLE_PROBLEM_MAX - 1].rstrip() + "…"
    return TITLE_PREFIX + text


class CaptureWindow(QWidget):
    """One decision: choose an approach, then say why, all from the keyboard.

    The controller connects the signals, calls `present()`, and after recording calls
    `close_after_record()`. Closing it any other way (Escape, the title bar) counts as a
    cancellation at the current stage; the window is not meant to be shown again after that.
    Keys typed in its first moments after it appears or gains focus are ignored (`key_guard`),
    and a focus ring shows which control has the keyboard (`focus_ring`).

    Signals:
        choice_made(str, str): (selected_option_id, custom_text), exactly one non-empty, when
            the person moves on to the rationale page with a choice the controller has not been
            told yet; the controller persists the rationale stage.
        rationale_submitted(str, dict): (selection_reason, {option_id: rejection_reason}) once
            every answer is filled in and within limits.
        cancelled(str): the stage ("choice" or "rationale") at which the window was closed;
            emitted at most once, after a last `draft_changed` when something changed.
        draft_changed(object): a `core.capture.drafts.Draft` of what is marked and typed now, after
            typing pauses and when the window closes; never after `rationale_submitted`.
    """

    choice_made = Signal(str, str)
    rationale_submitted = Signal(str, dict)
    cancelled = Signal(str)
    draft_changed = Signal(object)

    def __init__(self, request: CaptureRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self._request = request
        self._stage: Stage = "choice"
        self._told: Choice | None = None
        self._finished = False
        self._recording = False
        self._kept = request.draft
        self._draft_dirty = False
        self._touched = False
        self._notice = ""
        self._draft_timer = QTimer(self)
        self._choice_page = ChoicePage(request, self)
        self._rationale_page = RationalePage(request.problem, self)
        self._stack = QStackedWidget(self)
        self._message = MessageBar(self)
        self._back = self._button("&Back", "Back to the choice (Alt+B)")
        self._continue = self._button("&Continue", "Continue to the reasons (Enter)")
        self._record = self._button("&Record decision", "Record the decision (Ctrl+Enter)")
        self.key_guard = KeyGuard(self)
        mark_decision_window(self)
        self.focus_ring = FocusRing(self)
        self._build()
        self._restore()
        self._connect()
        self.apply_color_scheme()

    @property
    def request(self) -> CaptureRequest:
        return self._request

    @property
    def stage(self) -> Stage:
        """The page on screen; what `cancelled` reports if the window closes now."""
        return self._stage

    def present(self, *, activate: bool = True, behind: bool = True) -> None:
        """Show the window, even if minimized.

        Args:
            activate: bring it to the front with keyboard focus; False shows it without the
                keyboard and flashes it in the taskbar, for when the person is typing
                elsewhere.
            behind: with `activate` False, below the window in use (another decision being
                answered) rather than on top of it (the journal window).
        """
        if not activate:
            show_without_focus(self, behind=behind)
            return
        bring_to_front(self)
        self._focus_stage()

    def current_draft(self) -> Draft:
        """What is marked and typed now, with kept answers not yet shown carried along."""
        choice = self._choice_page.selected_choice()
        reason, rejections = self._rationale_page.answers()
        kept = self._kept
        if kept is not None:
            reason = reason or kept.selection_reason
            rejections = {**kept.rejections, **{k: v for k, v in rejections.items() if v}}
        return Draft(
            decision_id=self._request.decision_id,
            selected_option_id=choice.option_id if choice is not None else "",
            custom_selection=self._choice_page.other_text,
            other_chosen=choice is not None and not choice.option_id,
            selection_reason=reason,
            rejections=rejections,
        )

    @Slot()
    def apply_color_scheme(self) -> None:
        """The light or dark palette, as the journal window picks it (see `palette`)."""
        palette.apply_scheme(self, self._request.color_scheme)

    @property
    def touched(self) -> bool:
        """Whether the person has marked or typed anything in this window yet."""
        return self._touched

    def show_notice(self, message: str) -> None:
        """A calm line that stays beside the buttons while the person goes on answering (a
        hint about their own input may show in its place, and gives it back when it goes);
        what is typed is saved as a draft at once, as when the window closes."""
        self._notice = message
        self._message.show_hint(message)
        self._save_draft()

    @property
    def notice(self) -> str:
        return self._notice

    @Slot(str)
    def show_error(self, message: str) -> None:
        """Show a problem the controller found; the window stays open with all input kept."""
        self._recording = False
        self._message.show_error(message)

    def close_after_record(self) -> None:
        """Close after the decision was recorded: this is not a cancellation."""
        self._finished = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._finished:
            self._finished = True
            self._save_draft()
            self.cancelled.emit(self._stage)
        self._draft_timer.stop()
        super().closeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():
            self._focus_stage()

    def _button(self, text: str, tooltip: str) -> QPushButton:
        return passive_button(self, text, tooltip)

    def _build(self) -> None:
        self.setWindowTitle(window_title(self._request.problem))
        self.setMinimumSize(MINIMUM_SIZE)
        self._stack.addWidget(self._choice_page)
        self._stack.addWidget(self._rationale_page)
        self._continue.setObjectName("continue-button")
        self._back.setObjectName("back-button")
        self._record.setObjectName("record-button")
        footer = QHBoxLayout()
        footer.addWidget(self._message, 1)
        for button in (self._back, self._continue, self._record):
            footer.addWidget(button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.addWidget(self._stack, 1)
        layout.addLayout(footer)
        self.resize(self._initial_size())

    def _initial_size(self) -> QSize:
        screen = self.screen()
        if screen is None:
            return PREFERRED_SIZE
        available = screen.availableSize()
        return PREFERRED_SIZE.boundedTo(available * 0.9).expandedTo(MINIMUM_SIZE)

    def _connect(self) -> None:
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.setContext(Qt.ShortcutContext.WindowShortcut)
        escape.activated.connect(self.close)
        self._continue.clicked.connect(self._choice_page.try_continue)
        self._record.clicked.connect(self._rationale_page.try_submit)
        self._back.clicked.connect(self._go_back)
        self._choice_page.choice_confirmed.connect(self._on_choice_confirmed)
        self._choice_page.problem_found.connect(self._message.show_hint)
        self._rationale_page.problem_found.connect(self._message.show_hint)
        self._rationale_page.reasons_submitted.connect(self._on_reasons_submitted)
        self._choice_page.selection_changed.connect(self._on_edited)
        self._rationale_page.answers_changed.connect(self._on_edited)
        self._draft_timer.setSingleShot(True)
        self._draft_timer.setInterval(DRAFT_DELAY_MS)
        self._draft_timer.timeout.connect(self._save_draft)
        hints = QGuiApplication.styleHints()
        if self._request.color_scheme is None and hints is not None:
            hints.colorSchemeChanged.connect(self.apply_color_scheme)

    def _restore(self) -> None:
        """The preset choice of a resumed decision, else a kept draft's marks, then its page."""
        preset = self._request.preset_choice()
        kept = self._kept
        if kept is not None:
            self._choice_page.restore_draft(
                kept.selected_option_id, kept.custom_selection, kept.other_chosen
            )
        if self._request.stage == "rationale" and preset is not None:
            self._told = preset
            self._choice_page.restore(preset)
            self._show_rationale(preset)
        else:
            self._show_choice()

    @Slot()
    def _on_edited(self) -> None:
        """Something was marked or typed: drop a hint that no longer applies, save soon."""
        self._clear_stale_hint()
        self._touched = True
        self._continue.setEnabled(self._choice_page.selected_choice() is not None)
        if not self._recording and not self._finished:
            self._draft_dirty = True
            self._draft_timer.start()

    def _clear_stale_hint(self) -> None:
        shown = self._message.hint_text
        if not shown or self._recording:
            return
        current = (
            [self._choice_page.problem()]
            if self._stage == "choice"
            else self._rationale_page.problems()
        )
        if shown not in current and shown != self._notice:
            self._message.clear()
            if self._notice:
                self._message.show_hint(self._notice)

    @Slot()
    def _save_draft(self) -> None:
        self._draft_timer.stop()
        if self._draft_dirty and not self._recording:
            self._draft_dirty = False
            self.draft_changed.emit(self.current_draft())

    @Slot(str, str)
    def _on_choice_confirmed(self, option_id: str, custom_text: str) -> None:
        choice = Choice(option_id=option_id, custom_text=custom_text)
        if choice != self._told:
            self._told = choice
            self.choice_made.emit(option_id, custom_text)
        self._show_rationale(choice)
        self._focus_stage()

    @Slot(str, dict)
    def _on_reasons_submitted(self, selection_reason: str, rejected: dict[str, str]) -> None:
        """Forward once; a second Ctrl+Enter while the controller records does nothing."""
        if self._recording:
            return
        self._recording = True
        self._draft_timer.stop()
        self._message.show_hint("Recording the decision…")
        self.rationale_submitted.emit(selection_reason, rejected)

    @Slot()
    def _go_back(self) -> None:
        self._show_choice()
        self._focus_stage()

    def _show_choice(self) -> None:
        self._stage = "choice"
        self._stack.setCurrentWidget(self._choice_page)
        self._set_buttons()

    def _show_rationale(self, choice: Choice) -> None:
        options = self._request.options
        alternatives = [(o.id, o.label) for o in options if o.id != choice.option_id]
        recommended = {
            SELECTED if o.id == choice.option_id else o.id for o in options if o.recommended
        }
        self._rationale_page.ask(choice_label(options, choice), alternatives, recommended)
        self._fill_kept(choice)
        fields = self._rationale_page.fields()
        if fields:
            QWidget.setTabOrder(fields[-1].edit, self._back)
            QWidget.setTabOrder(self._back, self._record)
        self._stage = "rationale"
        self._stack.setCurrentWidget(self._rationale_page)
        self._set_buttons()

    def _fill_kept(self, choice: Choice) -> None:
        """Put a kept draft's answers into the questions once, the first time they are asked."""
        kept = self._kept
        if kept is None:
            return
        self._kept = None
        same_choice = (
            choice.option_id == kept.selected_option_id
            if choice.option_id
            else kept.other_chosen and choice.custom_text == go_trim(kept.custom_selection)
        )
        self._rationale_page.fill(kept.selection_reason if same_choice else "", kept.rejections)

    def _set_buttons(self) -> None:
        self._message.clear()
        on_choice = self._stage == "choice"
        self._continue.setEnabled(self._choice_page.selected_choice() is not None)
        self._continue.setVisible(on_choice)
        self._back.setVisible(not on_choice)
        self._record.setVisible(not on_choice)

    def _focus_stage(self) -> None:
        if self._stage == "choice":
            self._choice_page.focus_current()
        else:
            self._rationale_page.focus_first()
