"""What the journal window's dialogs and actions may ask of the window: `JournalView`.

Why a narrow protocol instead of the window: the dialogs and action groups (`DecisionDialogs`,
`ImportActions`, the conflict actions) need a handful of things from the window, such as the
decision on screen, a line in the status bar, or the filter an export or "Confirm all" covers.
Typed against the whole `JournalWindow`, they imported the module that imports them, and
reached into its model, filter bar, tabs and status bar. Typed against this protocol they see
only these methods, the window satisfies it, and a test can drive a dialog with a small fake.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QUrl

from core.index.query import IndexFilter
from core.record.models import DecisionRecord


class JournalView(Protocol):
    """The journal window as its dialogs and actions see it."""

    @property
    def record(self) -> DecisionRecord | None:
        """The decision the inspector shows, None when nothing is selected."""
        ...

    def is_shown(self, decision_id: str) -> bool:
        """True while the inspector shows this decision."""
        ...

    def show_record(self, record: DecisionRecord | None) -> None:
        """Shows `record` in the inspector and updates its row in the list."""
        ...

    def update_row(self, record: DecisionRecord) -> None:
        """Updates the record's row in the list, if listed, without selecting it."""
        ...

    def drop_deleted(self, decision_id: str) -> None:
        """Takes a decision soft-deleted here out of a list that hides deleted ones."""
        ...

    def show_status(self, text: str) -> None:
        """A passing message in the status bar (it clears itself)."""
        ...

    def show_notice(self, text: str) -> None:
        """A message above the list that stays a while: for what the user must read."""
        ...

    def scope_filter(self) -> IndexFilter:
        """The index filter of the list's current scope: what an export or a batch covers."""
        ...

    def scope_total(self) -> int:
        """How many decisions the current scope holds (as counted so far)."""
        ...

    def summary_language(self) -> str:
        """The language the reader chose for summaries (View → Summary shown first)."""
        ...

    def reload_scope(self) -> None:
        """Queries the current scope again from its first page."""
        ...

    def profile_shown(self) -> bool:
        """True while the preference profile tab is the current tab."""
        ...

    def open_url(self, url: QUrl) -> object:
        """Opens a file or folder in the desktop's own application."""
        ...
