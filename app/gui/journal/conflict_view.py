"""A conflicted decision's versions side by side, with "Keep this one" on each side.

Why side by side and field by field: both machines wrote the same revision from a common one,
so neither is "before" and neither is "after"; the reader compares the fields that differ,
with the words that differ marked on both sides (tinted and underlined, so the mark does not
rely on colour alone), and names the machine and time of each. The fields the store owns
(revision, times, id) are not compared: whichever version is kept, the store writes them.
With three or more versions (a third machine), the right-hand side chooses among the others.
The panel only shows and asks; the history dialog hosts it and the window resolves.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.formatting import count_text, display_time
from app.gui.journal.history_diff import segments_html, word_diff
from app.gui.journal.history_view import (
    DiffModel,
    FieldChange,
    RevisionModel,
    WordDiffDelegate,
    diff_records,
)
from app.gui.widgets.palette import is_dark, warning_colour
from core.sync.resolution import STORE_OWNED, ConflictVersion, ConflictVersions

HEADLINE = "Changed on two machines: choose a version"
NOTE_FIELD = "correction_note"
NOTE_LABEL = RevisionModel.HEADERS[RevisionModel.NOTE]
"""The versions' notes under the name the history's column gives them."""
_DIFFERS = {False: "#fde68a", True: "#713f12"}
"""The tint of words that differ, by dark palette: amber, on both sides alike."""
_ROOT_FIELD = re.compile(r"[.\[]")
"""Splits a flattened field path ("redaction.patterns") before its record field's name."""


def version_caption(version: ConflictVersion) -> str:
    """ "laptop (this machine) · revision 2 · 12/1/26 9:40 AM" """
    record = version.record
    return f"{version.title} · revision {record.revision} · {display_time(record.updated_at)}"


def explanation(view: ConflictVersions) -> str:
    """What happened and what choosing does, in one paragraph."""
    names = [v.title for v in view.versions]
    listed = " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]
    fork = view.conflict.fork
    return (
        f"Revision {fork} was written on {listed} before they synced. Both versions are kept "
        f"until you choose; the one you keep becomes revision {view.current.revision + 1}, "
        "and the journal's history keeps every revision before it."
    )


def compared(left: ConflictVersion, right: ConflictVersion) -> list[FieldChange]:
    """The fields that differ between two versions, store-owned fields left out, after the
    "why corrected" note each machine saved with its version when the notes differ: it says
    why that version exists, so it leads."""
    fields = [
        change
        for change in diff_records(left.record, right.record)
        if change.changed and _ROOT_FIELD.split(change.field)[0] not in STORE_OWNED
    ]
    if left.note == right.note:
        return fields
    note = FieldChange(NOTE_FIELD, left.note, right.note, NOTE_LABEL, left.note, right.note)
    return [note, *fields]


class VersionsModel(DiffModel):
    """Field, its value in the left version, in the right; both sides' differing words marked."""

    def set_versions(self, left: ConflictVersion, right: ConflictVersion, dark: bool) -> None:
        self.set_dark(dark)
        self.set_changes(compared(left, right), left.title, right.title)

    def _html(self, change: FieldChange, column: int) -> str:
        left, right = word_diff(change.before_text, change.after_text)
        segments = left if column == 1 else right
        return segments_html(segments, _DIFFERS[self._dark], struck=False, underlined=True)


class ConflictPanel(QFrame):
    """The versions of one conflicted decision and the ways to settle it.

    Signals:
        keep_chosen(str): "Keep this one": the machine id of the version to keep.
        merge_chosen(str): "Edit to merge…": the machine id of the version to start from
            (this machine's).
    """

    keep_chosen = Signal(str)
    merge_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflict-panel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.view: ConflictVersions | None = None
        self.headline = QLabel(HEADLINE, self)
        self.headline.setObjectName("conflict-headline")
        bold = QFont(self.headline.font())
        bold.setBold(True)
        self.headline.setFont(bold)
        self.detail = self._label("conflict-detail")
        self.left_caption = self._label("conflict-left")
        self.right_caption = self._label("conflict-right")
        self.right_choice = QComboBox(self)
        self.right_choice.setObjectName("conflict-right-choice")
        self.right_choice.setAccessibleName("Compare with the version from")
        self.keep_left = self._button("&Keep this one", "conflict-keep-left")
        self.setFocusProxy(self.keep_left)  # the history dialog that hosts us focuses the panel
        self.keep_right = self._button("Kee&p this one", "conflict-keep-right")
        self.merge_button = self._button("Edit to &merge…", "conflict-merge")
        self.merge_button.setToolTip(
            "Open the correction form with this machine's version; saving it settles the conflict"
        )
        self.table = QTableView(self)
        self.table.setObjectName("conflict-fields")
        self.table.setAccessibleName("Fields that differ between the versions")
        self.model = VersionsModel(self)
        self.table.setModel(self.model)
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.delegate = WordDiffDelegate(self.table)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for column in (1, 2):
            self.table.setItemDelegateForColumn(column, self.delegate)
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.message = self._label("conflict-message")
        self.message.hide()
        self._layout()
        self.keep_left.clicked.connect(lambda: self._keep(0))
        self.keep_right.clicked.connect(lambda: self._keep(1))
        self.merge_button.clicked.connect(self._merge)
        self.right_choice.currentIndexChanged.connect(self._compare)

    def _label(self, name: str) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def _button(self, text: str, name: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAutoDefault(False)
        return button

    def _layout(self) -> None:
        sides = QGridLayout()
        sides.addWidget(self.left_caption, 0, 0)
        right = QHBoxLayout()
        right.addWidget(self.right_caption, 1)
        right.addWidget(self.right_choice)
        sides.addLayout(right, 0, 1)
        sides.addWidget(self.keep_left, 1, 0, Qt.AlignmentFlag.AlignLeft)
        sides.addWidget(self.keep_right, 1, 1, Qt.AlignmentFlag.AlignLeft)
        sides.setColumnStretch(0, 1)
        sides.setColumnStretch(1, 1)
        footer = QHBoxLayout()
        footer.addWidget(self.merge_button)
        footer.addWidget(self.message, 1)
        footer.addStretch(0)  # keeps the button its own size while no message shows
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.detail)
        layout.addLayout(sides)
        layout.addWidget(self.table, 1)
        layout.addLayout(footer)
        for first, second in (
            (self.keep_left, self.right_choice),
            (self.right_choice, self.keep_right),
            (self.keep_right, self.merge_button),
            (self.merge_button, self.table),
        ):
            QWidget.setTabOrder(first, second)

    # showing -----------------------------------------------------------------------------------

    def set_versions(self, view: ConflictVersions) -> None:
        """Shows every version: this machine's on the left, another on the right."""
        self.view = view
        self.headline.setStyleSheet(f"color: {warning_colour(self.palette()).name()};")
        self.detail.setText(explanation(view))
        others = view.versions[1:]
        self.right_choice.blockSignals(True)
        self.right_choice.clear()
        for version in others:
            self.right_choice.addItem(version.title, version.machine)
        self.right_choice.blockSignals(False)
        self.right_choice.setVisible(len(others) > 1)
        self.right_caption.setVisible(len(others) <= 1)
        self.message.hide()
        self.set_busy(False)
        self._compare()

    def sides(self) -> tuple[ConflictVersion, ConflictVersion] | None:
        """(left, right) as shown; None before `set_versions`."""
        view = self.view
        if view is None or len(view.versions) < 2:
            return None
        chosen = self.right_choice.currentData()
        right = next((v for v in view.versions[1:] if v.machine == chosen), view.versions[1])
        return view.versions[0], right

    def _compare(self) -> None:
        shown = self.sides()
        if shown is None:
            return
        left, right = shown
        self.left_caption.setText(version_caption(left))
        self.right_caption.setText(version_caption(right))
        self.keep_left.setAccessibleName(f"Keep the version from {left.title}")
        self.keep_right.setAccessibleName(f"Keep the version from {right.title}")
        self.keep_left.setToolTip(f"Write {left.title}'s version as the next revision")
        self.keep_right.setToolTip(f"Write {right.title}'s version as the next revision")
        self.model.set_versions(left, right, is_dark(self.palette()))
        self.table.resizeRowsToContents()
        differing = self.model.rowCount()
        self.table.setAccessibleDescription(f"{count_text(differing, 'field')} differ")

    def set_busy(self, busy: bool) -> None:
        """While a resolution is being written, nothing else can be chosen."""
        for button in (self.keep_left, self.keep_right, self.merge_button):
            button.setEnabled(not busy)
        self.right_choice.setEnabled(not busy)
        if busy:
            self.show_message("Saving…")

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()

    def show_error(self, text: str) -> None:
        self.set_busy(False)
        self.show_message(text)

    # choosing ----------------------------------------------------------------------------------

    def _keep(self, side: int) -> None:
        shown = self.sides()
        if shown is not None:
            self.set_busy(True)
            self.keep_chosen.emit(shown[side].machine)

    def _merge(self) -> None:
        shown = self.sides()
        if shown is not None:
            self.merge_chosen.emit(shown[0].machine)
