"""The export dialog: the current filtered records as JSON, MADR, decisions.md or CSV.

Why the private JSON needs an explicit acknowledgement: the privacy-reduced export drops the
workspace path, session IDs and evidence references, but the private one keeps them, and a
file shared by mistake cannot be unshared. Exports run in a worker with progress and Cancel;
an exporter writes all or nothing, so a cancelled export leaves no half-written folder. When
it finishes, the folder opens in the file manager.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QDir, QSize, QStandardPaths, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.export_formats import FORMATS, ExportFormat
from app.gui.journal.formatting import count_text
from app.gui.journal.requests import ExportOutcome, ExportRequest
from app.gui.widgets.indicators import use_clear_indicators
from app.gui.widgets.palette import adopt, warning_colour
from app.gui.widgets.screen_fit import fit_to_screen
from app.gui.widgets.show_folder import show_folder
from core.gocompat.gotime import GoTime
from core.index.query import IndexFilter
from core.messages.language import ENGLISH

if TYPE_CHECKING:
    from app.gui.journal.bridge import JournalBridge

PRIVATE_WARNING = (
    "Private export may contain local paths, session identifiers and evidence references. "
    "It cannot restore text that was redacted when it was written. Review the file before "
    "sharing it."
)
ACKNOWLEDGE_TEXT = "I understand that this file contains private local metadata"
EXPLAINER = (
    "Exports the current records of the journal's filter (no revision history, no profile). "
    "Export refuses to run while any record file is unreadable. Review the output before "
    "sharing either mode: it holds rationales, timestamps and IDs and is not anonymous."
)


def default_directory() -> Path:
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(found or QDir.homePath())


class ExportDialog(QDialog):
    """Signals:
    export_finished(object): the `ExportOutcome` of a completed export.
    """

    export_finished = Signal(object)

    def __init__(
        self,
        bridge: JournalBridge,
        flt: IndexFilter,
        count: int,
        parent: QWidget | None = None,
        *,
        open_url: Callable[[QUrl], object] | None = None,
        directory: Path | None = None,
        language: str = ENGLISH,
    ) -> None:
        super().__init__(parent)
        self._language = language  # of the CSV's summaries: the window's View choice
        adopt(self)
        self.setObjectName("export-dialog")
        self.setWindowTitle("Export decisions")
        self._bridge = bridge
        self._filter = flt
        self._open_url = open_url
        self._cancel: threading.Event | None = None
        self._running = False
        self.outcome: ExportOutcome | None = None
        self.not_opened: QMessageBox | None = None
        """The box that said no file manager opened the folder (None when one did)."""
        self.format_group = QButtonGroup(self)
        self.format_buttons: dict[str, QRadioButton] = {}
        explainer = QLabel(EXPLAINER, self)
        explainer.setWordWrap(True)
        self.scope_label = QLabel(self)
        self.scope_label.setObjectName("export-scope")
        self.include_deleted = QCheckBox("Include &soft-deleted decisions", self)
        self.include_deleted.setObjectName("export-include-deleted")
        self.include_deleted.setChecked(flt.include_deleted)
        self.warning = QLabel(PRIVATE_WARNING, self)
        self.warning.setObjectName("export-warning")
        self.warning.setWordWrap(True)
        font = self.warning.font()
        font.setBold(True)
        self.warning.setFont(font)
        self.acknowledge = QCheckBox(ACKNOWLEDGE_TEXT, self)
        self.acknowledge.setObjectName("export-acknowledge")
        self.folder = QLineEdit(str(directory or default_directory()), self)
        self.folder.setObjectName("export-folder")
        self.folder.setAccessibleName("Destination folder")
        self.browse = QPushButton("C&hoose…", self)
        self.target_label = QLabel(self)
        self.target_label.setObjectName("export-target")
        self.target_label.setWordWrap(True)
        self.target_label.setTextFormat(Qt.TextFormat.PlainText)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("export-progress")
        self.progress.hide()
        self.status = QLabel(self)
        self.status.setObjectName("export-status")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons = QDialogButtonBox(self)
        self.export_button = QPushButton("&Export", self)
        self.export_button.setObjectName("export-run")
        self.export_button.setDefault(True)
        self.cancel_button = QPushButton("&Cancel export", self)
        self.cancel_button.setObjectName("export-cancel")
        self.cancel_button.hide()
        self.open_button = QPushButton("Show in &folder", self)
        self.open_button.setObjectName("export-open")
        self.open_button.hide()
        self.buttons.addButton(self.export_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.cancel_button.hide()  # adding a button to the box shows it
        self.open_button.hide()
        self._build(explainer, count)
        self._connect()
        self.format_buttons[FORMATS[0].key].setChecked(True)
        self._refresh()

    def _build(self, explainer: QLabel, count: int) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(explainer)
        self.scope_label.setText(
            f"Scope: the {count_text(count, 'decision')} matching the journal's filter."
        )
        layout.addWidget(self.scope_label)
        layout.addWidget(self.include_deleted)
        format_caption = QLabel("Format", self)
        layout.addWidget(format_caption)
        for fmt in FORMATS:
            button = QRadioButton(fmt.title, self)
            button.setObjectName(f"format-{fmt.key}")
            button.setToolTip(fmt.description)
            self.format_group.addButton(button)
            self.format_buttons[fmt.key] = button
            layout.addWidget(button)
        layout.addWidget(self.warning)
        layout.addWidget(self.acknowledge)
        folder_row = QHBoxLayout()
        folder_label = QLabel("&Destination folder", self)
        folder_label.setBuddy(self.folder)
        folder_row.addWidget(folder_label)
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(self.browse)
        layout.addLayout(folder_row)
        layout.addWidget(self.target_label)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        use_clear_indicators(*self.format_buttons.values(), self.include_deleted, self.acknowledge)
        # top to bottom, as read (the formats were made after the fields below them)
        chain = [
            self.include_deleted,
            *self.format_buttons.values(),
            self.acknowledge,
            self.folder,
            self.browse,
            *self.buttons.buttons(),
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)
        self.setMinimumWidth(520)
        self.resize(640, self.sizeHint().height())

    def _fit_height(self) -> None:
        """Word-wrapped labels: the height the layout needs at this width, or text is clipped;
        grows when the private export's warning appears and shrinks when it goes, never past
        the screen's free area."""
        layout = self.layout()
        if layout is None:
            return
        self.ensurePolished()  # the style's margins and font decide the wrapped height
        layout.activate()
        needed = max(layout.totalMinimumSize().height(), layout.heightForWidth(self.width()))
        if needed == self.height():
            return
        self.setMinimumHeight(0)  # or the dialog could not shrink back
        fit_to_screen(self, QSize(self.width(), needed))
        self.setMinimumHeight(self.height())

    def _connect(self) -> None:
        self.format_group.buttonToggled.connect(self._refresh)
        self.acknowledge.toggled.connect(self._refresh)
        self.folder.textChanged.connect(self._refresh)
        self.browse.clicked.connect(self._choose_folder)
        self.export_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button.clicked.connect(self._open_folder)
        self.buttons.rejected.connect(self.reject)
        self._bridge.export_progressed.connect(self._progressed)
        self._bridge.export_finished.connect(self._finished)

    # state -------------------------------------------------------------------------------------

    def selected_format(self) -> ExportFormat:
        for fmt in FORMATS:
            if self.format_buttons[fmt.key].isChecked():
                return fmt
        return FORMATS[0]

    def choose(self, key: str) -> None:
        self.format_buttons[key].setChecked(True)

    def target_path(self, when: GoTime | None = None) -> Path:
        """Where an export started now would go (the name's stamp is the export's time)."""
        name = self.selected_format().target_name(when or GoTime.now())
        return Path(self.folder.text()).expanduser() / name

    @Slot()
    def _refresh(self) -> None:
        fmt = self.selected_format()
        tinted = self.warning.palette()
        tinted.setColor(QPalette.ColorRole.WindowText, warning_colour(self.palette()))
        self.warning.setPalette(tinted)
        self.warning.setVisible(fmt.private)
        self.acknowledge.setVisible(fmt.private)
        allowed = (not fmt.private or self.acknowledge.isChecked()) and bool(
            self.folder.text().strip()
        )
        self.export_button.setEnabled(allowed and not self._running)
        kind = "folder" if fmt.folder else "file"
        now = GoTime.now()
        shown = fmt.target_name(now).replace(now.compact_stamp(), "<UTC date-time>")
        folder = Path(self.folder.text()).expanduser()
        self.target_label.setText(f"Writes a new {kind}, {shown}, in {folder}")
        self._fit_height()  # the warning came or went, or a line wrapped anew

    @Slot()
    def _choose_folder(self) -> None:
        chooser = QFileDialog(self, "Export to folder", self.folder.text())
        chooser.setFileMode(QFileDialog.FileMode.Directory)
        chooser.setOption(QFileDialog.Option.ShowDirsOnly, True)
        chooser.fileSelected.connect(self.folder.setText)
        chooser.finished.connect(chooser.deleteLater)
        chooser.open()

    # running -----------------------------------------------------------------------------------

    @Slot()
    def start(self) -> None:
        if self._running or not self.export_button.isEnabled():
            return
        fmt = self.selected_format()
        flt = IndexFilter(
            **{
                **{name: getattr(self._filter, name) for name in self._filter.__slots__},
                "include_deleted": self.include_deleted.isChecked(),
            }
        )
        self._cancel = threading.Event()
        request = ExportRequest(
            flt,
            fmt,
            Path(self.folder.text()).expanduser(),
            GoTime.now(),
            self._cancel,
            self._language,
        )
        self._running = True
        self.outcome = None
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.open_button.hide()
        self.status.setText("Exporting…")
        self._refresh()
        self._bridge.export(request)

    @Slot()
    def cancel(self) -> None:
        if self._cancel is not None and self._running:
            self._cancel.set()
            self.status.setText("Cancelling…")

    @Slot(int, int)
    def _progressed(self, done: int, total: int) -> None:
        if self._running:
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)

    @Slot(object)
    def _finished(self, outcome: ExportOutcome) -> None:
        if not self._running or outcome.cancel is not self._cancel:
            return
        self._running = False
        self.outcome = outcome
        self.cancel_button.hide()
        self.progress.setVisible(outcome.ok)
        if outcome.ok:
            self.progress.setRange(0, 1)
            self.progress.setValue(1)
            self.status.setText(
                f"Exported {count_text(outcome.count, 'decision')} to {outcome.path}"
            )
            self.open_button.show()
            self._open_folder()
        else:
            self.status.setText(outcome.message)
        self._refresh()
        self.export_finished.emit(outcome)

    @Slot()
    def _open_folder(self) -> None:
        if self.outcome is None or self.outcome.path is None:
            return
        folder = self.outcome.path if self.outcome.path.is_dir() else self.outcome.path.parent
        opener = self._open_url
        if opener is not None:
            self.not_opened = show_folder(folder, opener, self)

    def reject(self) -> None:
        """Closing while an export runs cancels it; the exporter leaves nothing behind."""
        self.cancel()
        super().reject()
