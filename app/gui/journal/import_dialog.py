"""The import dialog: bring decisions in from other tools, with a dry run, progress and Cancel.

Why the dialog owns no thread and no importer: it asks the bridge to detect a source and to
run an import (`JournalBridge.detect_source`, `start_import`), and everything comes back as the
bridge's signals, so nothing touches the disk on the GUI thread. The engine reports progress on
the worker thread; the bridge's `import_progressed` reaches the dialog through a queued
connection, so the bar is only ever updated on the GUI thread. One dialog lives as long as the
window, so a late result always finds it; an answer for another source or run is dropped.
Kinds are listed by what they are ("MADR or ADR folder"), never by their internal ids;
"Auto-detect" is the default and decides when the import starts, so a source typed by hand
needs no detour through the list.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QDir, QSize, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.requests import ImportOutcome, ImportRequest
from app.gui.widgets.palette import adopt
from app.gui.widgets.screen_fit import fit_to_screen
from core.importers import KINDS
from core.importers.base import ImportProgress, ImportReport

if TYPE_CHECKING:
    from app.gui.journal.bridge import JournalBridge

EXPLAINER = (
    "Imports decisions, notes and outcome signals from another tool. Imported decisions are "
    "searchable at once but count as your preferences only after you confirm them. Running the "
    "same import again adds nothing."
)
DETECTING = "Detecting the kind of source…"
UNDETECTED = "Could not tell the kind of this source; choose it in Kind."
AUTO = ""
AUTO_TEXT = "Auto-detect"
KIND_NAMES = {
    "json": (
        "Decision Journal export (JSON array)",
        "A JSON array of our own records, such as a private export",
    ),
    "claude-code": (
        "Claude Code sessions",
        "Answered AskUserQuestion questions in ~/.claude/projects session logs",
    ),
    "decisions-md": (
        "decisions.md decision log",
        "A Markdown decision log with Date / Decision / Reason tables",
    ),
    "madr": ("MADR or ADR folder", "A folder of MADR 2/3/4 or Nygard architecture decisions"),
    "goal-jsonl": (
        "Agent goal journal (JSON lines)",
        "Agents' goal decision journals: decision, why, evidence, goal, time; become notes",
    ),
    "memory-journal": (
        "Learning-journal events (NDJSON)",
        "Outcome signals on the decisions the events name; other events become notes",
    ),
    "decider": ("Owner-decision ledger (SQLite)", "The decider SQLite ledger, v1 and v2 rows"),
    "kernforge": ("Another journal folder", "A journal directory in the KernForge format"),
}
"""Each import kind's name in the dialog and its tooltip; the ids stay in the CLI."""


def kind_name(kind: str) -> str:
    return KIND_NAMES.get(kind, (kind, ""))[0]


SKIPS_SHOWN = 20
REPORT_HEIGHT = 180


def report_text(report: ImportReport) -> str:
    """The report as the user reads it: every count, then why items were skipped or failed."""
    verb = "Would import" if report.dry_run else "Imported"
    written = ", ".join(
        f"{count:,} {name}" for name, count in sorted(report.written.items()) if count
    )
    lines = [
        f"{'Dry run: nothing was written. ' if report.dry_run else ''}"
        f"{'Cancelled before the end. ' if report.cancelled else ''}".strip(),
        f"Read: {report.read:,}",
        f"{verb}: {report.imported:,}" + (f" ({written})" if written else ""),
        f"Unchanged: {report.unchanged:,}",
        f"Skipped: {len(report.skipped):,}",
    ]
    for reason, count in report.skipped_by_reason()[:SKIPS_SHOWN]:
        lines.append(f"  {count:,} × {reason}")
    lines.append(f"Conflicts: {len(report.conflicts):,}")
    for conflict in report.conflicts[:SKIPS_SHOWN]:
        lines.append(f"  {conflict.target or conflict.key}: {conflict.message}")
    lines.append(f"Errors: {len(report.errors):,}")
    for error in report.errors[:SKIPS_SHOWN]:
        lines.append(f"  {error.where}: {error.message}")
    return "\n".join(line for line in lines if line)


class ImportDialog(QDialog):
    """Signals:
    import_finished(object): the `ImportReport` of a finished (or cancelled) run.
    import_failed(str): the message of a run that failed.
    """

    import_finished = Signal(object)
    import_failed = Signal(str)

    def __init__(self, bridge: JournalBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        adopt(self)
        self.setObjectName("import-dialog")
        self.setWindowTitle("Import decisions")
        self._bridge = bridge
        self._cancel: threading.Event | None = None
        self._running = False
        self._detect_for = ""
        self.report: ImportReport | None = None
        explainer = QLabel(EXPLAINER, self)
        explainer.setWordWrap(True)
        self.source = QLineEdit(self)
        self.source.setObjectName("import-source")
        self.source.setAccessibleName("Source file or folder")
        self.source.setPlaceholderText("A file or a folder to import")
        self.file_button = QPushButton("&File…", self)
        self.file_button.setObjectName("import-choose-file")
        self.folder_button = QPushButton("F&older…", self)
        self.folder_button.setObjectName("import-choose-folder")
        for button in (self.file_button, self.folder_button):
            button.setAutoDefault(False)
        self.kind = QComboBox(self)
        self.kind.setObjectName("import-kind")
        self.kind.setAccessibleName("Kind of source")
        self.kind.addItem(AUTO_TEXT, AUTO)
        self.kind.setItemData(
            0, "Decide from the source when the import starts", Qt.ItemDataRole.ToolTipRole
        )
        for kind in KINDS:
            name, tip = KIND_NAMES.get(kind, (kind, ""))
            self.kind.addItem(name, kind)
            self.kind.setItemData(self.kind.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.detected_kind = ""
        self.detected = QLabel(self)
        self.detected.setObjectName("import-detected")
        self.detected.setWordWrap(True)
        self.dry_run = QCheckBox("&Dry run (report what would happen, write nothing)", self)
        self.dry_run.setObjectName("import-dry-run")
        self.progress = QProgressBar(self)
        self.progress.setObjectName("import-progress")
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.hide()
        self.status = QLabel(self)
        self.status.setObjectName("import-status")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.report_view = QPlainTextEdit(self)
        self.report_view.setObjectName("import-report")
        self.report_view.setAccessibleName("Import report")
        self.report_view.setReadOnly(True)
        self.report_view.setMinimumHeight(REPORT_HEIGHT)
        self.report_view.hide()
        self.buttons = QDialogButtonBox(self)
        self.start_button = QPushButton("&Start import", self)
        self.start_button.setObjectName("import-start")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel &import", self)
        self.cancel_button.setObjectName("import-cancel")
        self.buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.cancel_button.hide()  # adding a button to the box shows it
        self._build(explainer)
        self._connect()
        self._refresh()

    def _build(self, explainer: QLabel) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(explainer)
        source_row = QHBoxLayout()
        source_label = QLabel("&Source", self)
        source_label.setBuddy(self.source)
        source_row.addWidget(source_label)
        source_row.addWidget(self.source, 1)
        source_row.addWidget(self.file_button)
        source_row.addWidget(self.folder_button)
        layout.addLayout(source_row)
        kind_row = QHBoxLayout()
        kind_label = QLabel("&Kind", self)
        kind_label.setBuddy(self.kind)
        kind_row.addWidget(kind_label)
        kind_row.addWidget(self.kind)
        kind_row.addWidget(self.detected, 1)
        layout.addLayout(kind_row)
        layout.addWidget(self.dry_run)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.report_view, 1)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(560)
        fit_to_screen(self, QSize(640, max(self.sizeHint().height(), layout.heightForWidth(640))))

    def _connect(self) -> None:
        bridge = self._bridge
        bridge.import_progressed.connect(self._progressed, Qt.ConnectionType.QueuedConnection)
        bridge.import_finished.connect(self._ended)
        bridge.source_detected.connect(self._detected)
        bridge.source_undetected.connect(self._undetected)
        self.source.textChanged.connect(self._refresh)
        self.source.editingFinished.connect(self._source_edited)
        self.file_button.clicked.connect(lambda: self._choose(folder=False))
        self.folder_button.clicked.connect(lambda: self._choose(folder=True))
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.buttons.rejected.connect(self.reject)

    # the source --------------------------------------------------------------------------------

    @Slot()
    def _refresh(self) -> None:
        self.start_button.setEnabled(bool(self.source.text().strip()) and not self._running)
        for widget in (self.source, self.file_button, self.folder_button, self.kind, self.dry_run):
            widget.setEnabled(not self._running)

    def _choose(self, *, folder: bool) -> None:
        start = self.source.text().strip() or QDir.homePath()
        chooser = QFileDialog(self, "Import from", start)
        chooser.setObjectName("import-chooser")
        if folder:
            chooser.setFileMode(QFileDialog.FileMode.Directory)
            chooser.setOption(QFileDialog.Option.ShowDirsOnly, True)
        else:
            chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        chooser.fileSelected.connect(self.set_source)
        chooser.finished.connect(chooser.deleteLater)
        chooser.open()

    @Slot(str)
    def set_source(self, path: str) -> None:
        """Sets the source and detects its kind in a worker."""
        self.source.setText(path)
        self._detect(path)

    @Slot()
    def _source_edited(self) -> None:
        text = self.source.text().strip()
        if text and text != self._detect_for:
            self._detect(text)

    def _detect(self, text: str) -> None:
        self._detect_for = text
        self.detected.setText(DETECTING)
        self._bridge.detect_source(text)

    @Slot(str, str)
    def _detected(self, text: str, kind: str) -> None:
        if text == self._detect_for:
            self.detected_kind = kind
            self.detected.setText(f"Detected: {kind_name(kind)}")

    @Slot(str, str)
    def _undetected(self, text: str, message: str) -> None:
        if text == self._detect_for:
            self.detected_kind = ""
            self.detected.setText(f"{UNDETECTED} ({message})")

    # running -----------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._running

    @Slot()
    def start(self) -> None:
        if self._running or not self.start_button.isEnabled():
            return
        source = Path(self.source.text().strip()).expanduser()
        chosen = str(self.kind.currentData() or AUTO)
        cancel = threading.Event()
        request = ImportRequest(source, chosen, self.dry_run.isChecked(), cancel)
        self._cancel = cancel
        self._running = True
        self.report = None
        self.progress.setRange(0, 0)  # busy until the importer knows its total
        self.progress.show()
        self.report_view.clear()
        self.report_view.hide()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        what = kind_name(chosen) if chosen else "decisions"
        self.status.setText(f"Importing {what} from {source.name or source}…")
        self._refresh()
        self.cancel_button.setFocus(Qt.FocusReason.OtherFocusReason)  # the inputs are disabled
        self._bridge.start_import(request)

    @Slot()
    def cancel(self) -> None:
        if self._cancel is not None and self._running:
            self._cancel.set()
            self.cancel_button.setEnabled(False)
            self.status.setText("Cancelling…")

    @Slot(object)
    def _progressed(self, tick: ImportProgress) -> None:
        if not self._running:
            return
        fraction = tick.fraction
        if fraction is not None:
            self.progress.setRange(0, 100)
            self.progress.setValue(round(fraction * 100))
        elif tick.finished:
            self.progress.setRange(0, 100)
            self.progress.setValue(100)
        self.status.setText(f"Read {tick.read:,}, imported {tick.imported:,}…")

    @Slot(object)
    def _ended(self, outcome: ImportOutcome) -> None:
        """The end of this dialog's run (another run's outcome is not ours and is dropped)."""
        if not self._running or outcome.cancel is not self._cancel:
            return
        self._running = False
        self.cancel_button.hide()
        self._refresh()
        if outcome.report is not None:
            self._finished(outcome.report)
        else:
            self._failed(outcome)

    def _finished(self, report: ImportReport) -> None:
        self.report = report
        if not report.cancelled:
            self.progress.setRange(0, 100)
            self.progress.setValue(100)
        self.status.setText("Import cancelled." if report.cancelled else "Import finished.")
        self.report_view.setPlainText(report_text(report))
        self.report_view.show()
        # the report grows the dialog, never past the free area, and keeps its buttons on it
        fit_to_screen(self, QSize(self.width(), max(self.height(), self.sizeHint().height())))
        self.start_button.setDefault(False)
        self.report_view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.import_finished.emit(report)

    def _failed(self, outcome: ImportOutcome) -> None:
        self.progress.hide()
        reason = UNDETECTED if outcome.unknown_source else outcome.error
        message = f"Import failed: {reason}"
        self.status.setText(message)
        self.import_failed.emit(message)

    def reject(self) -> None:
        """Closing while an import runs cancels it after the current item."""
        self.cancel()
        super().reject()
