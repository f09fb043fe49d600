"""The decision list: pages of 100 `ListRow`s over a snapshot of matching IDs, fetched lazily.

Why a snapshot: the IDs matching the filter are frozen when the filter is applied, so scrolling
never shows a record twice or skips one while captures and edits land; an ID is still read at
its latest revision when its page loads. Pages arrive from a worker, so `fetchMore` only asks
for the next page and the rows are inserted when it arrives; answers for an older scope are
recognised by their generation and dropped.

The model also knows which decisions wait for a choice of version after a sync (a conflict):
the delegate paints their badge from `ConflictRole`, and the tooltip and the accessible text
say it in words, so a screen reader hears what the badge shows.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)

from app.gui.journal.formatting import count_text, display_time
from app.gui.journal.requests import PAGE_SIZE, ScopeCount, ScopePage
from core.index.rows import ListRow
from core.record.controls import visible_controls

AnyIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
EXPIRED_NOTICE = "The saved page snapshot expired or changed. Reloading the current scope."
EMPTY_TEXT = "No decision forks in this scope"
CONFLICT_TOOLTIP = "Changed on two machines: choose a version in History… (Ctrl+H)"
CONFLICT_SPOKEN = "changed on two machines, choose a version"


class PageSource(Protocol):
    """Where pages come from (the bridge); it answers through `page_loaded` or `expired`."""

    def fetch_page(self, generation: int, snapshot_id: str, offset: int, limit: int) -> None: ...


class DecisionListModel(QAbstractListModel):
    """Signals:
    loaded_changed(int, int): (rows loaded, rows in the snapshot).
    snapshot_expired(): a page could not be served; the window reloads the scope.
    """

    loaded_changed = Signal(int, int)
    snapshot_expired = Signal()

    RowRole = Qt.ItemDataRole.UserRole + 1
    DecisionIdRole = Qt.ItemDataRole.UserRole + 2
    MetaRole = Qt.ItemDataRole.UserRole + 3
    ConflictRole = Qt.ItemDataRole.UserRole + 4
    """True for a decision that waits for a choice of version after a sync."""

    def __init__(self, source: PageSource, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._rows: list[ListRow] = []
        self._meta: list[tuple[str, str]] = []
        self._total = 0
        self._snapshot = ""
        self._generation = 0
        self._fetching = False
        self._counted = False
        self._removed = 0
        """Rows taken out of the loaded list (soft-deleted here): the snapshot still has them."""
        self.conflicted: frozenset[str] = frozenset()
        """Decisions changed on two machines (sync conflicts), marked until resolved."""

    # scope -------------------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def total(self) -> int:
        return self._total

    @property
    def loaded(self) -> int:
        return len(self._rows)

    @property
    def fetching(self) -> bool:
        """A page was asked for and has not arrived yet."""
        return self._fetching

    @property
    def snapshot_id(self) -> str:
        return self._snapshot

    def begin_scope(self, generation: int) -> None:
        """A new filter was applied: later answers for older generations are ignored."""
        self._generation = generation
        self._fetching = False
        self._counted = False

    def set_scope(self, page: ScopePage) -> bool:
        """Shows the first page; False when the page belongs to an older generation."""
        if page.generation != self._generation:
            return False
        self.beginResetModel()
        self._set_rows(page.rows)
        self._removed = 0
        self._total = len(page.rows)
        self._snapshot = ""
        self._counted = False
        self._fetching = False
        self.endResetModel()
        self.loaded_changed.emit(self.loaded, self._total)
        return True

    def set_count(self, count: ScopeCount) -> bool:
        """Enables paging over the snapshot; False when it belongs to an older generation."""
        if count.generation != self._generation:
            return False
        if count.rows is not None:
            self.beginResetModel()
            self._set_rows(count.rows)
            self._removed = 0
            self.endResetModel()
        self._total = count.total - self._removed
        self._snapshot = count.snapshot_id
        self._counted = True
        self.loaded_changed.emit(self.loaded, self._total)
        return True

    @property
    def counted(self) -> bool:
        """The snapshot arrived: `total` is the number of matches and paging is possible."""
        return self._counted

    def _set_rows(self, rows: list[ListRow]) -> None:
        self._rows = list(rows)
        self._meta = [_meta(row) for row in self._rows]

    def clear(self) -> None:
        self.beginResetModel()
        self._rows, self._meta, self._total, self._snapshot = [], [], 0, ""
        self._fetching = False
        self._removed = 0
        self.endResetModel()
        self.loaded_changed.emit(0, 0)

    # paging ------------------------------------------------------------------------------------

    def canFetchMore(self, parent: AnyIndex = _ROOT) -> bool:
        return (
            not parent.isValid()
            and self._counted
            and not self._fetching
            and len(self._rows) < self._total
        )

    def fetchMore(self, parent: AnyIndex = _ROOT) -> None:
        if not self.canFetchMore(parent):
            return
        self._fetching = True
        offset = len(self._rows) + self._removed
        self._source.fetch_page(self._generation, self._snapshot, offset, PAGE_SIZE)

    @Slot(int, int, object)
    def add_page(self, generation: int, offset: int, rows: list[ListRow]) -> None:
        if generation != self._generation or offset != len(self._rows) + self._removed:
            return
        if rows:
            first = len(self._rows)
            # Still "fetching" while views react to the insert, so none asks for this page again.
            self.beginInsertRows(_ROOT, first, first + len(rows) - 1)
            self._rows.extend(rows)
            self._meta.extend(_meta(row) for row in rows)
            self.endInsertRows()
        else:
            self._total = len(self._rows)  # the snapshot ended early: nothing more to fetch
        self._fetching = False
        self.loaded_changed.emit(self.loaded, self._total)

    @Slot(int)
    def page_expired(self, generation: int) -> None:
        if generation == self._generation:
            self._fetching = False
            self.snapshot_expired.emit()

    # rows --------------------------------------------------------------------------------------

    def row_of(self, decision_id: str) -> int:
        return next((n for n, row in enumerate(self._rows) if row.id == decision_id), -1)

    def list_row(self, row: int) -> ListRow:
        return self._rows[row]

    def replace_row(self, updated: ListRow) -> None:
        """A record saved here: its row shows the new revision in place, the snapshot stays."""
        row = self.row_of(updated.id)
        if row < 0:
            return
        self._rows[row] = updated
        self._meta[row] = _meta(updated)
        index = self.index(row)
        self.dataChanged.emit(index, index)

    def remove_row(self, decision_id: str) -> int:
        """Takes a row out of the list (soft-deleted while deleted rows are hidden).

        Returns the row it held, or -1. Paging still counts it: its snapshot position is kept.
        """
        row = self.row_of(decision_id)
        if row < 0:
            return -1
        self.beginRemoveRows(_ROOT, row, row)
        del self._rows[row]
        del self._meta[row]
        self.endRemoveRows()
        self._removed += 1
        self._total = max(self._total - 1, len(self._rows))
        self.loaded_changed.emit(self.loaded, self._total)
        return row

    def set_conflicted(self, ids: frozenset[str]) -> None:
        """Marks the rows of these decisions as sync conflicts; rows that change say so."""
        changed = ids ^ self.conflicted
        self.conflicted = ids
        for row, listed in enumerate(self._rows):
            if listed.id in changed:
                index = self.index(row)
                self.dataChanged.emit(index, index)

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.problem
        if role == self.RowRole:
            return row
        if role == self.DecisionIdRole:
            return row.id
        if role == self.MetaRole:
            return self._meta[index.row()]
        if role == self.ConflictRole:
            return row.id in self.conflicted
        if role == Qt.ItemDataRole.ToolTipRole:
            project = row.project_alias or row.project_id or "—"
            conflict = f"{CONFLICT_TOOLTIP}\n" if row.id in self.conflicted else ""
            return (
                f"{conflict}{row.problem}\nSelected: {row.selected_label or '—'}\n"
                f"Project: {project}\nUpdated: {display_time(row.updated_at)}\n{row.id}"
            )
        if role == Qt.ItemDataRole.AccessibleTextRole:
            deleted = ", deleted" if row.deleted else ""
            conflict = f", {CONFLICT_SPOKEN}" if row.id in self.conflicted else ""
            return f"{row.problem}. Selected: {row.selected_label or 'nothing'}{deleted}{conflict}"
        return None


def _meta(row: ListRow) -> tuple[str, str]:
    """The second line of a row (what may elide, then the time, which never does), formatted
    once per row instead of once per paint."""
    project = row.project_alias or row.project_id
    shown = visible_controls(f"Selected: {row.selected_label or '—'}  ·  {project}")
    return shown, display_time(row.updated_at)


def caption_text(loaded: int, total: int, counted: bool) -> str:
    """ "100 of 4,375 decisions loaded"; "1 of 1 decision loaded"."""
    if counted:
        return f"{loaded:,} of {count_text(total, 'decision')} loaded"
    return f"{count_text(loaded, 'decision')} loaded, counting…"
