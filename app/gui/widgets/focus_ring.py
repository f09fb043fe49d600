"""A visible focus ring around whichever control of a window has the keyboard.

Why our own: Fusion and several GTK themes mark focus with a faint dotted line or a colour
change that vanishes on dark palettes, and keyboard-first windows must always show where a
key will go. The ring is drawn in the palette's highlight colour, lightened where that is too
dark to see (`palette.focus_colour`), so it follows light, dark and system themes. It sits on
the window and follows the control through scrolling and layout changes by watching the
control and its ancestors.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QRectF, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QApplication, QWidget

from app.gui.widgets.palette import focus_colour

_FOLLOWED_EVENTS = frozenset(
    {QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.Hide}
)


class FocusRing(QWidget):
    """Paints a rounded ring around the focused control of `window`; invisible to the mouse."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._target: QWidget | None = None
        self._watched: list[QWidget] = []
        self.setObjectName("focus-ring")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.hide()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    @property
    def target(self) -> QWidget | None:
        """The control the ring surrounds, or None while it is hidden."""
        return self._target if self.isVisible() else None

    def thickness(self) -> int:
        return max(2, self.fontMetrics().height() // 8)

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is not None and new is not self and new.window() is self._window:
            self._follow(new)
        elif self._target is not None:
            self._follow(None)

    def _follow(self, target: QWidget | None) -> None:
        for watched in self._watched:
            watched.removeEventFilter(self)
        self._target = target
        self._watched = []
        widget = target
        while widget is not None and widget is not self._window:
            widget.installEventFilter(self)
            self._watched.append(widget)
            widget = widget.parentWidget()
        self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.DeferredDelete and watched in self._watched:
            self._follow(None)
        elif event.type() in _FOLLOWED_EVENTS:
            self._place()
        return False

    def _place(self) -> None:
        target = self._target
        if target is None or not target.isVisible():
            self.hide()
            return
        visible = target.visibleRegion().boundingRect()
        if visible.isEmpty():
            self.hide()
            return
        margin = self.thickness() + 1
        top_left = target.mapTo(self._window, visible.topLeft())
        area = QRect(top_left, visible.size()).adjusted(-margin, -margin, margin, margin)
        self.setGeometry(area.intersected(self._window.rect()))
        self.show()
        self.raise_()
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        width = self.thickness()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(focus_colour(self.palette()), width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inset = width / 2
        rect = QRectF(self.rect()).adjusted(inset, inset, -inset, -inset)
        radius = width * 2
        painter.drawRoundedRect(rect, radius, radius)
        painter.end()
