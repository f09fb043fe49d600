"""The right-hand side of the journal: one decision's header, its fork tree and its details.

Why it holds a record and nothing else: the window decides which record to show and when; the
inspector only renders it, so a record opened from the profile panel (possibly outside the
current list) and one picked in the list look the same. Showing another decision scrolls back
to its fork at the top; a new revision of the one on screen keeps the reader's place. A
decision changed on two machines (a sync conflict) shows a notice above its details with the
way to choose a version; the window says which decisions are conflicted.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QAccessible, QAccessibleEvent, QFont
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.decision_details import DecisionDetails
from app.gui.journal.fork_view import ForkView
from app.gui.widgets.icons import icon
from app.gui.widgets.palette import readable_muted, warning_colour
from core.importers.confirm import is_unconfirmed_import
from core.record.controls import visible_controls
from core.record.models import DecisionRecord
from core.record.origin import is_automatic

PLACEHOLDER = "Select a decision to see its fork, rationale and history."
OUTSIDE_TEXT = "Not in this view"
OUTSIDE_TOOLTIP = (
    "The list's filter leaves this decision out; it stays here until you pick another one."
)
CONFLICT_HEADLINE = "Changed on two machines: choose a version"
CONFLICT_DETAIL = (
    "Both versions are kept until you choose one, or merge them, in the history window."
)


class Inspector(QWidget):
    """Signals:
    edit_requested(), history_requested(), delete_requested(), restore_requested(),
    confirm_requested(): "Confirm as my decision" on an imported record.
    evidence_requested(QUrl): open an evidence reference (a file or a web address).
    conflict_requested(): "Choose a version…" on a decision changed on two machines.
    """

    evidence_requested = Signal(QUrl)

    edit_requested = Signal()
    history_requested = Signal()
    delete_requested = Signal()
    restore_requested = Signal()
    confirm_requested = Signal()
    conflict_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inspector")
        self.record: DecisionRecord | None = None
        self.conflicted: frozenset[str] = frozenset()
        self.revision_label = QLabel(self)
        self.revision_label.setObjectName("inspector-revision")
        small = QFont(self.revision_label.font())
        small.setBold(True)
        small.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 110)
        self.revision_label.setFont(small)
        self.problem_label = QLabel(PLACEHOLDER, self)
        self.problem_label.setObjectName("inspector-problem")
        self.problem_label.setTextFormat(Qt.TextFormat.PlainText)
        self.problem_label.setWordWrap(True)
        self.problem_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        heading = QFont(self.problem_label.font())
        if heading.pointSizeF() > 0:
            heading.setPointSizeF(heading.pointSizeF() * 1.25)
        heading.setBold(True)
        self.problem_label.setFont(heading)
        self.badges_label = QLabel(self)
        self.badges_label.setObjectName("inspector-badges")
        self.badges_label.setTextFormat(Qt.TextFormat.PlainText)
        self.outside_label = QLabel(OUTSIDE_TEXT, self)
        self.outside_label.setObjectName("inspector-outside-view")
        self.outside_label.setToolTip(OUTSIDE_TOOLTIP)
        self.outside_label.setAccessibleDescription(OUTSIDE_TOOLTIP)
        self.outside_label.hide()
        self.edit_button = self._button("&Edit…", "edit", "Correct this decision (Ctrl+E)")
        self.history_button = self._button("&History…", "history", "Revisions and diffs (Ctrl+H)")
        self.delete_button = self._button("Soft-de&lete…", "delete", "Soft-delete (Delete)")
        self.restore_button = self._button("Rest&ore…", "restore", "Restore (Ctrl+R)")
        self.confirm_button = QPushButton("Con&firm as my decision", self)
        self.confirm_button.setObjectName("inspector-confirm")
        self.confirm_button.setToolTip(
            "This decision was imported; confirm that it is yours so it counts as a preference"
        )
        self.confirm_button.setAutoDefault(False)
        self.confirm_button.clicked.connect(self.confirm_requested)
        self.edit_button.clicked.connect(self.edit_requested)
        self.history_button.clicked.connect(self.history_requested)
        self.delete_button.clicked.connect(self.delete_requested)
        self.restore_button.clicked.connect(self.restore_requested)
        self._build_conflict_bar()
        self.fork = ForkView(self)
        self.details = DecisionDetails(self)
        self.details.evidence_activated.connect(self.evidence_requested)
        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        body_layout.addWidget(self.fork)
        body_layout.addWidget(self.details)
        body_layout.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("inspector-scroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(body)
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.scroll_area.setAccessibleName("Decision details")
        buttons = QHBoxLayout()
        buttons.addWidget(self.badges_label, 1)
        for button in (
            self.confirm_button,
            self.edit_button,
            self.history_button,
            self.delete_button,
            self.restore_button,
        ):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.revision_label, 1)
        top.addWidget(self.outside_label)
        layout.addLayout(top)
        layout.addWidget(self.problem_label)
        layout.addLayout(buttons)
        layout.addWidget(self.conflict_bar)
        layout.addWidget(self.scroll_area, 1)
        self.show_record(None)

    def _build_conflict_bar(self) -> None:
        self.conflict_bar = QFrame(self)
        self.conflict_bar.setObjectName("inspector-conflict")
        self.conflict_bar.setFrameShape(QFrame.Shape.StyledPanel)
        self.conflict_headline = QLabel(CONFLICT_HEADLINE, self.conflict_bar)
        self.conflict_headline.setObjectName("inspector-conflict-headline")
        bold = QFont(self.conflict_headline.font())
        bold.setBold(True)
        self.conflict_headline.setFont(bold)
        self.conflict_bar.setAccessibleName(CONFLICT_HEADLINE)
        self.conflict_bar.setAccessibleDescription(CONFLICT_DETAIL)
        detail = QLabel(CONFLICT_DETAIL, self.conflict_bar)
        detail.setWordWrap(True)
        self.conflict_button = QPushButton("&Choose a version…", self.conflict_bar)
        self.conflict_button.setObjectName("inspector-choose-version")
        self.conflict_button.setToolTip("Both versions side by side in the history window")
        # The button is where the keyboard reaches the notice: a screen reader reads it there.
        self.conflict_button.setAccessibleDescription(f"{CONFLICT_HEADLINE}. {CONFLICT_DETAIL}")
        self.conflict_button.setAutoDefault(False)
        self.conflict_button.clicked.connect(self.conflict_requested)
        text = QVBoxLayout()
        text.addWidget(self.conflict_headline)
        text.addWidget(detail)
        row = QHBoxLayout(self.conflict_bar)
        row.addLayout(text, 1)
        row.addWidget(self.conflict_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.conflict_bar.hide()

    def set_outside_view(self, outside: bool) -> None:
        """A calm mark on a decision kept on screen that the list's scope leaves out (opened
        from the profile, or a reload no longer lists it): it is not swapped for another."""
        if outside:
            colour = readable_muted(self.palette()).name()
            self.outside_label.setStyleSheet(f"color: {colour}; font-style: italic;")
        self.outside_label.setVisible(outside and self.record is not None)

    def set_conflicted(self, ids: frozenset[str]) -> None:
        """The decisions waiting for a choice of version; the one on screen shows the notice."""
        self.conflicted = ids
        self._show_conflict()

    def _show_conflict(self) -> None:
        record = self.record
        shown = record is not None and record.id in self.conflicted
        self.conflict_headline.setStyleSheet(f"color: {warning_colour(self.palette()).name()};")
        appears = shown and self.conflict_bar.isHidden()
        self.conflict_bar.setVisible(shown)
        if appears and self.isVisible():
            QAccessible.updateAccessibility(
                QAccessibleEvent(self.conflict_bar, QAccessible.Event.Alert)
            )

    def _button(self, text: str, icon_name: str, tooltip: str) -> QPushButton:
        button = QPushButton(icon(icon_name), text, self)
        button.setObjectName(f"inspector-{icon_name}")
        button.setToolTip(tooltip)
        button.setAutoDefault(False)
        return button

    def show_record(self, record: DecisionRecord | None) -> None:
        previous = self.record.id if self.record is not None else ""
        self.record = record
        if record is None or record.id != previous:
            self.scroll_area.verticalScrollBar().setValue(0)
        self.fork.show_record(record)
        self.details.show_record(record)
        self._show_conflict()
        has = record is not None
        for button in (self.edit_button, self.history_button):
            button.setEnabled(has)
        deleted = record is not None and record.is_deleted
        self.delete_button.setVisible(not deleted)
        self.delete_button.setEnabled(has)
        self.restore_button.setVisible(deleted)
        self.confirm_button.setVisible(
            record is not None and not deleted and is_unconfirmed_import(record)
        )
        if record is None:
            self.revision_label.setText("")
            self.problem_label.setText(PLACEHOLDER)
            self.badges_label.setText("")
            return
        self.revision_label.setText(f"REVISION {record.revision}")
        self.problem_label.setText(visible_controls(record.problem))
        parts = [
            record.decision_kind or "decision",
            f"risk {record.risk_level}" if record.risk_level else "risk unspecified",
            record.project_alias or record.project_id,
        ]
        if is_automatic(record):
            parts.append("answered by your profile")
        if deleted:
            parts.append("deleted")
        self.badges_label.setText("  ·  ".join(part for part in parts if part))
