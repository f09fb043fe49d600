"""Where the reader is in the decision list, kept across a reload they did not ask for.

Why: the list reloads itself when this process commits (an answer recorded in the capture
window, an import, an edit, a sync applying changes) and on F5. A reload starts a new snapshot
from the first page, and a model reset scrolls to the top: a reader three pages down lost
their page, their selection and their scroll position to a decision recorded elsewhere. The
window notes the place before such a reload (`ListPlace.of`), asks for as many rows as were
loaded (`rows`), and puts the decision that was at the top of the list back where it was
(`restore`). A filter the user chooses starts from the top, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QListView

from app.gui.journal.decision_list_model import DecisionListModel
from app.gui.journal.requests import PAGE_SIZE


def rows_to_load(loaded: int) -> int:
    """The rows a reload asks for: every page that was loaded, at least the first."""
    pages = max(1, -(-loaded // PAGE_SIZE))
    return pages * PAGE_SIZE


@dataclass(frozen=True, slots=True)
class ListPlace:
    """The default place is the top of the list, with its first page."""

    rows: int = PAGE_SIZE
    """How many rows the reload's first answer holds."""
    anchor: str = ""
    """The decision whose row was at the top of the viewport."""
    offset: int = 0
    """Where that row's top edge was, in pixels from the viewport's top (0 or less)."""
    scrolled: int = 0
    """The scroll bar's value, for when the anchor is not listed any more."""

    @classmethod
    def of(cls, view: QListView, model: DecisionListModel) -> ListPlace:
        """The place the reader is at now."""
        top = view.indexAt(QPoint(0, 0))
        anchor = str(top.data(DecisionListModel.DecisionIdRole) or "") if top.isValid() else ""
        offset = view.visualRect(top).top() if anchor else 0
        scrolled = view.verticalScrollBar().value()
        return cls(rows_to_load(model.loaded), anchor, offset, scrolled)

    def restore(self, view: QListView, model: DecisionListModel) -> None:
        """Scrolls so the anchor's row is where it was; without one, to the old position.
        Call after the new rows are in the model and the selection is set."""
        if not self.anchor and not self.scrolled:
            return
        bar = view.verticalScrollBar()
        row = model.row_of(self.anchor) if self.anchor else -1
        if row < 0:
            bar.setValue(self.scrolled)
            return
        top = view.visualRect(model.index(row)).top()
        bar.setValue(bar.value() + top - self.offset)
