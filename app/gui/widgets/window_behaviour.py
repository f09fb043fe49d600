"""How our decision windows behave: they never steal the keyboard, and Enter presses nothing.

Why: a person typing a reason in one window must not have the next keystroke land in another
agent's question. A window that an agent opens while one of ours has the keyboard therefore
appears without taking focus and asks for attention (taskbar flash) instead; and every window
ignores keys for a moment after it appears or gains focus, so keys already on their way to the
previous window cannot choose an option, submit or dismiss.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QPushButton, QWidget

KEY_GUARD_MS = 400
"""How long keys are ignored after a window appears or is activated (a fast typist's gap)."""
KEY_GUARD_NOTE = (
    f"Keys are ignored for {KEY_GUARD_MS / 1000:g} s after the window appears or comes to the "
    "front, so typing meant for another window never answers here."
)
"""What the windows' keyboard hints say about the guard, so a lost first key is no mystery."""
_MODIFIER_KEYS = frozenset(
    {Qt.Key.Key_Shift, Qt.Key.Key_Control, Qt.Key.Key_Alt, Qt.Key.Key_Meta, Qt.Key.Key_AltGr}
)
_GUARDED_EVENTS = frozenset(
    {QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride, QEvent.Type.KeyRelease}
)


def passive_button(parent: QWidget, text: str, tooltip: str) -> QPushButton:
    """A button that is never the default, so Enter cannot press it by accident."""
    button = QPushButton(text, parent)
    button.setAutoDefault(False)
    button.setDefault(False)
    button.setToolTip(tooltip)
    return button


def bring_to_front(window: QWidget) -> None:
    """Show a window in front of the others with keyboard focus, even if it was minimized."""
    if window.isMinimized():
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()


def show_without_focus(window: QWidget, *, behind: bool = True) -> None:
    """Show a window without activating it, and ask the desktop to flash it in the taskbar.

    Behind the others when the person is answering another decision, because a window placed
    on top would hide the text being typed there; on top otherwise (the journal window has the
    keyboard), so the new decision is seen at once while the keys stay where they were going.
    It takes the keyboard only when the person clicks it or switches to it (or its turn comes,
    see `CaptureController`).
    """
    window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
    if window.isMinimized():
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    if behind:
        window.lower()
    else:
        window.raise_()
    window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
    QApplication.alert(window)


DECISION_WINDOW = "decisionJournalDecisionWindow"
"""The Qt property that marks a window where the person answers a decision or a question."""


def mark_decision_window(window: QWidget) -> None:
    """Marks `window` as one the person answers in (capture and questions windows)."""
    window.setProperty(DECISION_WINDOW, True)


def keyboard_busy_elsewhere(window: QWidget) -> bool:
    """Another window of this app has the keyboard: the person may be typing there."""
    active = QApplication.activeWindow()
    return active is not None and active is not window and active.isVisible()


def answering_elsewhere(window: QWidget) -> bool:
    """The window with the keyboard is another decision or question window: the person is
    answering there, so a new one waits its turn behind it."""
    active = QApplication.activeWindow()
    return keyboard_busy_elsewhere(window) and bool(
        active is not None and active.property(DECISION_WINDOW)
    )


class KeyGuard(QObject):
    """Ignores every key (except bare modifiers) sent to `window` right after it appears or
    is activated, so a keystroke meant for the previous window selects nothing here.

    The application-wide filter is installed only while the guard is armed, so the rest of
    the time keys cost nothing extra.
    """

    def __init__(self, window: QWidget, interval_ms: int = KEY_GUARD_MS) -> None:
        super().__init__(window)
        self._window = window
        self._interval = interval_ms
        self._since = QElapsedTimer()
        self._filtering = False
        self._disarm = QTimer(self)
        self._disarm.setSingleShot(True)
        self._disarm.timeout.connect(self._stop_filtering)
        window.installEventFilter(self)

    @property
    def interval_ms(self) -> int:
        return self._interval

    def is_quiet(self) -> bool:
        """Whether keys are being ignored now."""
        return self._since.isValid() and self._since.elapsed() < self._interval

    def arm(self) -> None:
        """Start (or restart) the quiet interval."""
        self._since.start()
        if not self._filtering:
            app = QApplication.instance()
            if app is not None:
                app.installEventFilter(self)
                self._filtering = True
        self._disarm.start(self._interval)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self._window and kind in (QEvent.Type.Show, QEvent.Type.WindowActivate):
            self.arm()
            return False
        if kind not in _GUARDED_EVENTS or not self.is_quiet():
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self._window:
            return False
        if isinstance(event, QKeyEvent) and Qt.Key(event.key()) in _MODIFIER_KEYS:
            return False
        event.accept()  # an accepted ShortcutOverride keeps the key from every shortcut
        return True

    def _stop_filtering(self) -> None:
        app = QApplication.instance()
        if self._filtering and app is not None:
            app.removeEventFilter(self)
        self._filtering = False
