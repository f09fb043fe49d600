"""A decision's revisions 1..N and a field-by-field diff between any two of them.

Why field by field: a correction touches a few fields (the selection, one rationale, a tag);
an audit wants to see exactly those, with both values side by side, not two whole records.
Nested values are keyed by option id rather than position, so a diff names "options[sqlite]
.label" instead of an index that means nothing to a reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.gui.formatting import NO_VALUE, display_time
from app.gui.palette import adopt
from core.models import DecisionRecord

AnyIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


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
    field: str
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def diff_records(before: DecisionRecord, after: DecisionRecord) -> list[FieldChange]:
    """Every field of either revision in a stable order: the later revision's, then removed."""
    left, right = flatten(before.to_go_dict()), flatten(after.to_go_dict())
    names = list(right) + [name for name in left if name not in right]
    return [FieldChange(name, left.get(name, ""), right.get(name, "")) for name in names]


class RevisionModel(QAbstractTableModel):
    """Revisions as rows: number, updated, status, selected approach."""

    HEADERS = ("Revision", "Updated", "Status", "Selected")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._revisions: list[DecisionRecord] = []

    def set_revisions(self, revisions: list[DecisionRecord]) -> None:
        self.beginResetModel()
        self._revisions = list(revisions)
        self.endResetModel()

    def revision(self, row: int) -> DecisionRecord:
        return self._revisions[row]

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._revisions)

    def columnCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        record = self._revisions[index.row()]
        values = (
            str(record.revision),
            display_time(record.updated_at),
            record.status,
            record.selected_label() or NO_VALUE,
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
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return (change.field, change.before, change.after)[index.column()]
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        return None


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
        self.setWindowTitle(f"History: {problem[:60]}")
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
        layout.addWidget(self.diff_table, 2)
        layout.addWidget(buttons)
        self.before_combo.currentIndexChanged.connect(self._compare)
        self.after_combo.currentIndexChanged.connect(self._compare)
        self.show_unchanged.toggled.connect(self._compare)
        self.revision_table.doubleClicked.connect(self._use_row)
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

    def set_revisions(self, revisions: list[DecisionRecord]) -> None:
        self.revisions.set_revisions(revisions)
        self.status.setText(
            f"{len(revisions)} revision(s). Choose two to see what changed."
            if revisions
            else "No revisions recorded."
        )
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
            return
        before, after = self.revisions.revision(first), self.revisions.revision(second)
        changes = diff_records(before, after)
        if not self.show_unchanged.isChecked():
            changes = [change for change in changes if change.changed]
        self.diff.set_changes(changes, f"Revision {before.revision}", f"Revision {after.revision}")
        self.comparison_changed.emit(before.revision, after.revision)
