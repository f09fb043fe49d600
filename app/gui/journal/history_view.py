"""A decision's revisions 1..N and a field-by-field diff between any two of them.

Why field by field: a correction touches a few fields (the selection, one rationale, a tag);
an audit wants to see exactly those, with both values side by side, not two whole records.
Nested values are keyed by option id rather than position, and `history_diff` turns each path
into words ("Why not “SQLite database”"), so a reader never meets `selection_reason_raw`.
Inside a changed text the removed and added words are tinted (removed ones also struck
through, so the mark does not rely on colour alone). A revision's "why corrected" note, kept in
the journal's own sidecar (`core.store.correction_notes`), is listed with its author and time.
A decision changed on two machines hosts `conflict_view.ConflictPanel` above its revisions:
both versions side by side, and the ways to settle it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.formatting import NO_VALUE, count_text, display_time
from app.gui.journal.history_diff import (
    field_label,
    field_value,
    segments_html,
    word_diff,
)
from app.gui.widgets.palette import adopt, is_dark
from app.gui.widgets.screen_fit import fit_to_screen
from core.record.models import DecisionRecord
from core.store.correction_notes import CorrectionNote

AnyIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
HtmlRole = Qt.ItemDataRole.UserRole + 1
_REMOVED = {False: "#fecaca", True: "#7f1d1d"}
_ADDED = {False: "#bbf7d0", True: "#14532d"}
"""Word tints by dark palette: removed words rose, added words green."""


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """A record's Go dict as "path": "text" pairs; list items keyed by their id when present."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list) and any(isinstance(item, dict) for item in value):
        for position, item in enumerate(value):
            key = position
            if isinstance(item, dict):
                key = item.get("id") or item.get("option_id") or position
            out.update(flatten(item, f"{prefix}[{key}]"))
    elif isinstance(value, list):
        out[prefix] = ", ".join(str(item) for item in value)
    else:
        out[prefix] = "" if value is None else str(value)
    return out


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One field of two revisions: `field` is the stored path, the rest is for reading."""

    field: str
    before: str
    after: str
    label: str = ""
    before_text: str = ""
    after_text: str = ""

    @property
    def changed(self) -> bool:
        return self.before != self.after


def diff_records(before: DecisionRecord, after: DecisionRecord) -> list[FieldChange]:
    """Every field of either revision in a stable order: the later revision's, then removed."""
    left, right = flatten(before.to_go_dict()), flatten(after.to_go_dict())
    names = list(right) + [name for name in left if name not in right]
    return [
        FieldChange(
            name,
            left.get(name, ""),
            right.get(name, ""),
            field_label(name, after, before),
            field_value(name, left.get(name, ""), before, after),
            field_value(name, right.get(name, ""), after, before),
        )
        for name in names
    ]


def note_caption(note: CorrectionNote) -> str:
    """ "by alice, 12/1/26 9:40 AM": who wrote a correction note, and when."""
    who = f"by {note.author}, " if note.author else ""
    return f"{who}{display_time(note.created_at)}"


class RevisionModel(QAbstractTableModel):
    """Revisions as rows: number, updated, status, selected approach, why corrected."""

    HEADERS = ("Revision", "Updated", "Status", "Selected", "Why corrected")
    NOTE = 4

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._revisions: list[DecisionRecord] = []
        self._notes: dict[int, CorrectionNote] = {}

    def set_revisions(
        self, revisions: list[DecisionRecord], notes: dict[int, CorrectionNote] | None = None
    ) -> None:
        self.beginResetModel()
        self._revisions = list(revisions)
        self._notes = dict(notes or {})
        self.endResetModel()

    def note(self, revision: int) -> CorrectionNote | None:
        return self._notes.get(revision)

    def revision(self, row: int) -> DecisionRecord:
        return self._revisions[row]

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._revisions)

    def columnCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        record = self._revisions[index.row()]
        note = self._notes.get(record.revision)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.NOTE and note:
            return f"{note.note}\n— {note_caption(note)}"
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        values = (
            str(record.revision),
            display_time(record.updated_at),
            record.status,
            record.selected_label() or NO_VALUE,
            " ".join(note.note.split()) if note else "",
        )
        return values[index.column()]

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None


class DiffModel(QAbstractTableModel):
    """Field, value in the first chosen revision, value in the second; changed rows in bold."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._changes: list[FieldChange] = []
        self._headers = ("Field", "Before", "After")
        self._dark = False

    def set_changes(self, changes: list[FieldChange], before: str, after: str) -> None:
        self.beginResetModel()
        self._changes = list(changes)
        self._headers = ("Field", before, after)
        self.endResetModel()

    def changes(self) -> list[FieldChange]:
        return list(self._changes)

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._changes)

    def columnCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else 3

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        change = self._changes[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (change.label or change.field, change.before_text, change.after_text)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return change.field if column == 0 else None
        if role == HtmlRole and column:
            return self._html(change, column)
        if role == Qt.ItemDataRole.FontRole and column == 0 and change.changed:
            font = QApplication.font()
            font.setBold(True)
            return font
        return None

    def _html(self, change: FieldChange, column: int) -> str:
        """The value with its changed words tinted; an unchanged value is plain."""
        dark = self._dark
        if not change.changed:
            return segments_html(word_diff(change.before_text, "")[0], "", struck=False)
        old, new = word_diff(change.before_text, change.after_text)
        if column == 1:
            return segments_html(old, _REMOVED[dark], struck=True)
        return segments_html(new, _ADDED[dark], struck=False)

    def set_dark(self, dark: bool) -> None:
        """Picks the word tints for the view's palette."""
        self._dark = dark

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        return None


class WordDiffDelegate(QStyledItemDelegate):
    """Paints a diff value's HTML (its changed words tinted), wrapped to the column's width."""

    PAD = 4

    def _document(self, index: AnyIndex, option: QStyleOptionViewItem, width: int) -> QTextDocument:
        document = QTextDocument()
        document.setDefaultFont(option.font)
        document.setDocumentMargin(self.PAD)
        document.setHtml(str(index.data(HtmlRole) or ""))
        document.setTextWidth(max(width, 40))
        return document

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        self.initStyleOption(option, index)
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        option.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
        document = self._document(index, option, option.rect.width())
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, option.palette.color(role))
        painter.save()
        painter.translate(option.rect.topLeft())
        painter.setClipRect(option.rect.translated(-option.rect.topLeft()))
        document.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        view = self.parent()
        width = view.columnWidth(index.column()) if isinstance(view, QTableView) else 240
        document = self._document(index, option, width)
        return QSize(width, int(document.size().height()) + 1)


class HistoryDialog(QDialog):
    """Non-modal: open it with `open()`; the window fills it once the revisions arrive.

    Signals:
        comparison_changed(int, int): the two revision numbers now compared.
    """

    comparison_changed = Signal(int, int)

    def __init__(self, decision_id: str, problem: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        adopt(self)
        self.decision_id = decision_id
        short = " ".join(problem.split())
        self.setWindowTitle(f"History: {short[:60]}{'…' if len(short) > 60 else ''}")
        self.setObjectName("history-dialog")
        self.revisions = RevisionModel(self)
        self.diff = DiffModel(self)
        self.status = QLabel("Loading revisions…", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.revision_table = self._table(self.revisions, "Revisions")
        self.before_combo = QComboBox(self)
        self.after_combo = QComboBox(self)
        self.before_combo.setAccessibleName("Compare from revision")
        self.after_combo.setAccessibleName("Compare to revision")
        self.show_unchanged = QCheckBox("Show &unchanged fields", self)
        self.diff_table = self._table(self.diff, "Field differences")
        self.diff_delegate = WordDiffDelegate(self.diff_table)
        for column in (1, 2):
            self.diff_table.setItemDelegateForColumn(column, self.diff_delegate)
        self.diff.set_dark(is_dark(self.palette()))
        self.note_label = QLabel(self)
        self.note_label.setObjectName("history-note")
        self.note_label.setTextFormat(Qt.TextFormat.PlainText)
        self.note_label.setWordWrap(True)
        self.note_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note_label.hide()
        header = self.diff_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.diff_table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        for combo in (self.before_combo, self.after_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        compare = QHBoxLayout()
        from_label = QLabel("&Compare revision", self)
        from_label.setBuddy(self.before_combo)
        compare.addWidget(from_label)
        compare.addWidget(self.before_combo)
        with_label = QLabel("&with", self)
        with_label.setBuddy(self.after_combo)
        compare.addWidget(with_label)
        compare.addWidget(self.after_combo)
        compare.addStretch(1)
        compare.addWidget(self.show_unchanged)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.revision_table, 1)
        layout.addLayout(compare)
        layout.addWidget(self.note_label)
        layout.addWidget(self.diff_table, 2)
        layout.addWidget(buttons)
        self.before_combo.currentIndexChanged.connect(self._compare)
        self.after_combo.currentIndexChanged.connect(self._compare)
        self.show_unchanged.toggled.connect(self._compare)
        self.revision_table.doubleClicked.connect(self._use_row)
        self.conflict_panel: QWidget | None = None
        self._settled = ""
        """How the conflict shown here was settled; it stays above the reloaded revisions."""
        self.resize(860, 620)

    def _table(self, model: QAbstractTableModel, name: str) -> QTableView:
        table = QTableView(self)
        table.setModel(model)
        table.setAccessibleName(name)
        table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        table.setWordWrap(True)
        table.verticalHeader().hide()
        table.horizontalHeader().setStretchLastSection(True)
        table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        return table

    def set_revisions(
        self, revisions: list[DecisionRecord], notes: dict[int, CorrectionNote] | None = None
    ) -> None:
        self.revisions.set_revisions(revisions, notes)
        text = (
            f"{count_text(len(revisions), 'revision')}. Choose two to see what changed."
            if revisions
            else "No revisions recorded."
        )
        self.status.setText(f"{self._settled} {text}" if self._settled else text)
        for combo in (self.before_combo, self.after_combo):
            combo.blockSignals(True)
            combo.clear()
            for record in revisions:
                combo.addItem(f"{record.revision} ({display_time(record.updated_at)})")
            combo.blockSignals(False)
        if revisions:
            self.before_combo.setCurrentIndex(max(0, len(revisions) - 2))
            self.after_combo.setCurrentIndex(len(revisions) - 1)
        self._compare()
        self.revision_table.resizeColumnsToContents()

    def show_error(self, message: str) -> None:
        self.status.setText(message)

    # a sync conflict ---------------------------------------------------------------------------

    def host_conflict(self, panel: QWidget) -> None:
        """Shows a conflicted decision's versions above its revisions; the keys go there.

        `panel` is a `conflict_view.ConflictPanel`, typed as a widget so that this module does
        not import the one that imports it; its focus proxy is the button that takes the keys.
        """
        if self.conflict_panel is panel:
            return
        self.clear_conflict("")
        self.conflict_panel = panel
        layout = self.layout()
        if isinstance(layout, QVBoxLayout):
            layout.insertWidget(1, panel, 3)
        # both versions side by side want room; on a 1366 by 768 laptop Close must stay on it
        fit_to_screen(self, QSize(max(self.width(), 980), max(self.height(), 760)))
        panel.show()
        panel.setFocus(Qt.FocusReason.OtherFocusReason)

    def clear_conflict(self, message: str) -> None:
        """Removes the versions once the conflict is settled; `message` says how, if given."""
        panel, self.conflict_panel = self.conflict_panel, None
        if panel is not None:
            panel.hide()
            panel.deleteLater()
        if message:
            self._settled = message
            self.status.setText(message)

    def compare(self, before_revision: int, after_revision: int) -> None:
        """Selects two revisions by number (1-based), as the combo boxes do."""
        self.before_combo.setCurrentIndex(before_revision - 1)
        self.after_combo.setCurrentIndex(after_revision - 1)

    def _use_row(self, index: QModelIndex) -> None:
        self.after_combo.setCurrentIndex(index.row())

    def _compare(self) -> None:
        first, second = self.before_combo.currentIndex(), self.after_combo.currentIndex()
        count = self.revisions.rowCount()
        if not (0 <= first < count and 0 <= second < count):
            self.diff.set_changes([], "Before", "After")
            self.note_label.hide()
            return
        before, after = self.revisions.revision(first), self.revisions.revision(second)
        changes = diff_records(before, after)
        if not self.show_unchanged.isChecked():
            changes = [change for change in changes if change.changed]
        self.diff.set_dark(is_dark(self.palette()))
        self.diff.set_changes(changes, f"Revision {before.revision}", f"Revision {after.revision}")
        self.diff_table.resizeRowsToContents()
        self._show_note(after.revision)
        self.comparison_changed.emit(before.revision, after.revision)

    def _show_note(self, revision: int) -> None:
        note = self.revisions.note(revision)
        if note is None:
            self.note_label.hide()
            return
        self.note_label.setText(
            f"Why revision {revision} was made ({note_caption(note)}): {note.note}"
        )
        self.note_label.show()
