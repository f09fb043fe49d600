"""What is waiting for the user, and what agents noted along the way, per project.

Why both here: a pending decision blocks an agent, so answering one is the most urgent thing
the journal window offers; the agent notes timeline next to it is the context an owner reads
before answering (what the agent already chose on its own, and why). Notes are model-authored
context, never preference evidence, and are labelled as such.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.formatting import count_text, short_id
from core.agents.notes import AgentNote
from core.gocompat.gotime import GoTime
from core.record.controls import visible_controls

AnyIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
NOTES_CAPTION = "Agent notes: the agent's own account of small choices (model-authored context)"


def _when(text: str) -> str:
    try:
        return GoTime.parse(text).to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return text


class PendingModel(QAbstractListModel):
    """Pending decisions as `pending_items` describes them (problem, project, stage)."""

    DecisionIdRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[dict[str, str]] = []

    def set_items(self, items: list[dict[str, str]]) -> None:
        self.beginResetModel()
        self._items = list(items)
        self.endResetModel()

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            project = item.get("project_alias") or "unknown project"
            stage = "choose an approach" if item.get("stage") == "choice" else "give the reasons"
            asked = _when(item.get("created_at", "")) if item.get("created_at") else ""
            when = f" · asked {asked}" if asked else ""
            return visible_controls(f"{item.get('problem', '')}\n{project} · {stage}{when}")
        if role in (self.DecisionIdRole, Qt.ItemDataRole.ToolTipRole):
            return item.get("decision_id", "")
        return None


class NotesModel(QAbstractListModel):
    """One project's agent notes, newest first."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._notes: list[AgentNote] = []

    def set_notes(self, notes: list[AgentNote]) -> None:
        self.beginResetModel()
        self._notes = list(notes)
        self.endResetModel()

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._notes)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        note = self._notes[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            who = " · ".join(p for p in (note.agent, note.goal and f"goal {note.goal}") if p)
            head = f"{_when(note.created_at)}{f' · {who}' if who else ''}"
            return visible_controls(f"{head}\n{note.decision}\nWhy: {note.why}")
        if role == Qt.ItemDataRole.ToolTipRole:
            return visible_controls(note.evidence) or None
        return None


class WaitingPanel(QWidget):
    """Signals:
    answer_requested(str): answer this pending decision (the tray app opens its window).
    notes_project_changed(str): show the notes timeline of this project ID.
    """

    answer_requested = Signal(str)
    notes_project_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("waiting-panel")
        self.pending = PendingModel(self)
        self.notes = NotesModel(self)
        self.pending_caption = QLabel("Waiting for you", self)
        self.pending_view = QListView(self)
        self.pending_view.setObjectName("pending-list")
        self.pending_view.setAccessibleName("Pending decisions")
        self.pending_view.setModel(self.pending)
        self.pending_view.setWordWrap(True)
        self.pending_view.setAlternatingRowColors(True)
        self.pending_view.setSpacing(3)
        self.answer_button = QPushButton("&Answer…", self)
        self.answer_button.setObjectName("answer-button")
        self.pending_caption.setBuddy(self.pending_view)
        self.project = QComboBox(self)
        self.project.setObjectName("notes-project")
        self.project.setAccessibleName("Project of the notes timeline")
        self.notes_view = QListView(self)
        self.notes_view.setObjectName("notes-list")
        self.notes_view.setAccessibleName("Agent notes")
        self.notes_view.setModel(self.notes)
        self.notes_view.setWordWrap(True)
        self.notes_view.setAlternatingRowColors(True)
        self.notes_view.setSpacing(3)
        self.notes_status = QLabel(self)
        self.notes_status.setObjectName("notes-status")
        self.notes_status.setWordWrap(True)
        self._build()
        self.answer_button.clicked.connect(self._answer_current)
        self.pending_view.activated.connect(self._answer)
        self.pending_view.doubleClicked.connect(self._answer)
        self.project.currentIndexChanged.connect(self._project_changed)
        self.set_pending([])

    def _build(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.pending_caption, 1)
        top.addWidget(self.answer_button)
        notes_row = QHBoxLayout()
        notes_caption = QLabel("Agent notes for &project", self)
        notes_caption.setBuddy(self.project)
        notes_row.addWidget(notes_caption)
        notes_row.addWidget(self.project, 1)
        explainer = QLabel(NOTES_CAPTION, self)
        explainer.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.pending_view, 1)
        layout.addLayout(notes_row)
        layout.addWidget(explainer)
        layout.addWidget(self.notes_view, 2)
        layout.addWidget(self.notes_status)

    def set_pending(self, items: list[dict[str, str]]) -> None:
        self.pending.set_items(items)
        count = len(items)
        self.pending_caption.setText(
            f"Waiting for you ({count:,})" if count else "No decisions are waiting for you."
        )
        self.answer_button.setEnabled(bool(count))
        if count:
            self.pending_view.setCurrentIndex(self.pending.index(0))

    def set_projects(self, projects: list[tuple[str, str]], current: str) -> None:
        """(project_id, alias) pairs; keeps the chosen project when it is still listed."""
        chosen = str(self.project.currentData() or current)
        self.project.blockSignals(True)
        self.project.clear()
        for project_id, alias in projects:
            self.project.addItem(f"{alias or project_id} ({short_id(project_id)})", project_id)
        index = self.project.findData(chosen)
        self.project.setCurrentIndex(index if index >= 0 else 0)
        self.project.blockSignals(False)
        self._project_changed()

    def set_notes(self, notes: list[AgentNote], damaged_lines: int = 0) -> None:
        self.notes.set_notes(notes)
        text = "" if notes else "No agent notes recorded for this project."
        if damaged_lines:
            text += f" {count_text(damaged_lines, 'damaged line')} skipped."
        self.notes_status.setText(text.strip())

    def current_project(self) -> str:
        return str(self.project.currentData() or "")

    @Slot()
    def _project_changed(self) -> None:
        project_id = self.current_project()
        if project_id:
            self.notes_project_changed.emit(project_id)
        else:
            self.set_notes([])

    @Slot()
    def _answer_current(self) -> None:
        self._answer(self.pending_view.currentIndex())

    @Slot(QModelIndex)
    def _answer(self, index: QModelIndex) -> None:
        if index.isValid():
            self.answer_requested.emit(str(index.data(PendingModel.DecisionIdRole)))
