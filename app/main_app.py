"""`decision-journal app`: the resident tray application for one journal."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QTimer, Slot
from PySide6.QtWidgets import QApplication, QMessageBox, QSystemTrayIcon

from app import autostart
from app.capture_controller import CaptureController
from app.frozen import report_startup
from app.gui.widgets.icons import app_icon
from app.ipc.server import IpcServer
from app.records_watch import RecordsWatch
from app.sync_service import SyncService
from app.transcript_watch import TranscriptWatcher
from app.tray import TrayController, WaitingItem
from app.workers import WorkerPool
from core.capture.machine import CaptureService
from core.capture.pending import PendingStore, pending_items
from core.capture.proposal import ParsedProposal
from core.decider.principles import PrinciplesKeeper
from core.decider.service import UsualChoice, decider_for, principle_sources, record_lookup
from core.ipc.client import IpcClient
from core.ipc.runtime_paths import socket_path
from core.journal import Journal, catch_up, warm_up
from core.messages.wording import count as count_of
from core.record.redaction import redact_text
from core.store.location import default_journal_dir
from core.sync.schedule import SyncTiming

if TYPE_CHECKING:
    from app.gui.journal.sync_status import ConflictOpener
    from app.gui.journal.window import JournalWindow

log = logging.getLogger(__name__)

TRAY_WAIT_MS = 5000
WATCH_SETTING = "tray/import_claude_code_answers"
USUAL_SETTING = "capture/show_usual_choice"
APP_ID = "decision-journal"
"""Program name, WM_CLASS (instance and class) and desktop file name, however we started."""
NOTIFY_SETTLE_MS = 300
"""How long a new window has to become active before we decide whether to notify."""


def app_settings() -> QSettings:
    """The same settings store as the journal window's (organization and application names)."""
    return QSettings("decision-journal", "Decision Journal")


TRAY_POLL_MS = 250
JOURNAL_WARM_MS = 2000
"""After start, when the journal window is built hidden (see `_warm_up`)."""


def _install_excepthook() -> None:
    """An unexpected error shows a report the user can copy instead of vanishing silently.

    The report and the log line pass through the redactor first: an error message can quote
    the input that caused it, and that input may hold a credential someone typed.
    """

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        text = redact_text("".join(traceback.format_exception(kind, value, tb)))[0]
        log.error("unexpected error:\n%s", text)
        if QApplication.instance() is not None:
            summary = redact_text(str(value))[0] or kind.__name__
            box = QMessageBox(QMessageBox.Icon.Critical, "Decision Journal", summary)
            box.setInformativeText("An unexpected error occurred. Your journal is unchanged.")
            box.setDetailedText(text)
            box.open()
            _keep.append(box)

    sys.excepthook = hook


_keep: list[QObject] = []


def journal_name(root: Path) -> str:
    """How the tray names a journal other than the default one ("" for the default): its
    folder with the home folder as "~", so two journals named alike still differ."""
    path = Path(os.path.abspath(root))
    if path == Path(os.path.abspath(default_journal_dir())):
        return ""
    home = Path.home()
    with contextlib.suppress(ValueError):
        return str(Path("~") / path.relative_to(home))
    return str(path)


class TrayApp(QObject):
    """Wires the socket server, the capture controller, the tray and the workers together."""

    def __init__(
        self,
        journal: Journal,
        *,
        tray_available: bool | None = None,
        sync_timing: SyncTiming | None = None,
    ) -> None:
        super().__init__()
        self.journal = journal
        self.pending = PendingStore(journal.root)
        self.workers = WorkerPool(self)
        self.decider = decider_for(journal)
        journal.store.add_listener(self.decider)  # a correction of an automatic answer overrules
        self.capture = CaptureService(journal.store, self.pending, decider=self.decider)
        self.show_usual_choice = bool(app_settings().value(USUAL_SETTING, True, type=bool))
        self.controller = CaptureController(
            self.capture, self.pending, self.workers, self, usual_choice=self._usual_choice
        )
        self.server = IpcServer(journal.root, self.controller, self)
        self.tray: TrayController | None = None
        self.profile_worker = journal.start_profile_worker()
        self.profile_worker.add_observer(
            PrinciplesKeeper(journal.root, lambda: principle_sources(journal))
        )
        self.journal_window: JournalWindow | None = None
        self._conflicts: ConflictOpener | None = None
        self.transcripts = TranscriptWatcher(journal)
        self.transcripts.imported.connect(self._notify_imported)
        self._tray_available = tray_available
        self._tray_waited_ms = 0
        self.controller.pending_changed.connect(self.refresh_waiting)
        self.controller.decision_asked.connect(self._notify_asked)
        self.controller.journal_requested.connect(self.show_journal)
        self.controller.journal_changed.connect(self.catch_up)
        self.sync = SyncService(journal.root, timing=sync_timing, parent=self)
        journal.store.add_listener(self.sync.listener)
        self.controller.journal_changed.connect(self.sync.note_external_change)
        self.sync.records_arrived.connect(self.catch_up)
        self.records_watch = RecordsWatch(journal.root, self)
        self.records_watch.changed.connect(self.catch_up)  # writers that tell nobody
        # a fresh journal's folder appears with its first waiting decision: watch it from then
        self.controller.pending_changed.connect(self.records_watch.start)
        self.sync.conflicts_found.connect(self._notify_conflicts)
        self.sync.error_started.connect(self._notify_sync_error)

    def start(self) -> bool:
        """Returns False when another instance already serves this journal."""
        if not self.server.listen():
            return False
        self._attach_tray()
        self.refresh_waiting()
        self.records_watch.start()
        QTimer.singleShot(JOURNAL_WARM_MS, self._warm_up)
        self.sync.start()
        return True

    def _attach_tray(self) -> None:
        available = (
            QSystemTrayIcon.isSystemTrayAvailable()
            if self._tray_available is None
            else self._tray_available
        )
        if available:
            self._create_tray()
        elif self._tray_available is None and self._tray_waited_ms < TRAY_WAIT_MS:
            # Desktops start autostart programs before their panel: wait a little for the tray.
            self._tray_waited_ms += TRAY_POLL_MS
            QTimer.singleShot(TRAY_POLL_MS, self._attach_tray)
        else:
            log.info("no system tray: capture windows will appear directly")

    def _create_tray(self) -> None:
        watching = bool(app_settings().value(WATCH_SETTING, False, type=bool))
        root = self.journal.root
        tray = TrayController(
            autostart_enabled=autostart.is_enabled(root),
            transcript_watch_enabled=watching,
            usual_choice_enabled=self.show_usual_choice,
            journal_name=journal_name(root),
            parent=self,
        )
        tray.transcript_watch_toggled.connect(self._set_transcript_watch)
        tray.usual_choice_toggled.connect(self._set_usual_choice)
        tray.overrule_requested.connect(self.overrule)
        tray.automatic_opened.connect(self.show_decision)
        self.controller.answered_for_person.connect(tray.answered_for_you)
        tray.decision_requested.connect(self.controller.open_pending)
        tray.autostart_toggled.connect(
            lambda enabled: autostart.set_enabled(enabled, journal_root=root)
        )
        tray.quit_requested.connect(self.quit)
        tray.journal_requested.connect(self.show_journal)
        tray.rebuild_requested.connect(self.profile_worker.request_rebuild)
        tray.sync_requested.connect(self.sync.sync_now)
        tray.conflicts_requested.connect(self.show_conflict)
        tray.sync_help_requested.connect(self.show_sync_help)
        tray.set_sync_view(self.sync.view)
        self.sync.view_changed.connect(tray.set_sync_view)
        tray.show()
        report_startup("tray-visible")
        self.tray = tray
        self.refresh_waiting()
        self.transcripts.set_enabled(watching)

    @Slot(bool)
    def _set_usual_choice(self, enabled: bool) -> None:
        app_settings().setValue(USUAL_SETTING, enabled)
        self.show_usual_choice = enabled

    def _usual_choice(self, proposal: ParsedProposal) -> UsualChoice | None:
        """Runs in a worker: the line is read from the profile and the records on disk."""
        if not self.show_usual_choice:
            return None
        return self.decider.usual_choice(proposal, record_lookup(self.journal.store))

    @Slot(str)
    def overrule(self, decision_id: str) -> None:
        """The journal window at the automatic answer, with its correction open: changing the
        choice there overrules the profile and counts toward setting the kind back to ask."""
        window = self._journal_window()
        window.present()
        window.open_decision(decision_id, edit=True)

    @Slot(str)
    def show_decision(self, decision_id: str) -> None:
        """The journal window at one decision (an automatic answer's "Open")."""
        window = self._journal_window()
        window.present()
        window.open_decision(decision_id)

    @Slot(bool)
    def _set_transcript_watch(self, enabled: bool) -> None:
        app_settings().setValue(WATCH_SETTING, enabled)
        self.transcripts.set_enabled(enabled)

    @Slot(int)
    def _notify_imported(self, count: int) -> None:
        if self.tray is not None:
            added = count_of(count, "answered question")
            self.tray.notify("Imported from Claude Code", f"{added} added")

    @Slot()
    def refresh_waiting(self) -> None:
        self.workers.submit(lambda: pending_items(self.pending), self._show_waiting)

    def _show_waiting(self, items: list[dict[str, str]]) -> None:
        if self.tray is None:
            return
        self.tray.set_waiting(
            [
                WaitingItem(i["decision_id"], i["problem"], i["project_alias"], i["stage"])
                for i in items
            ]
        )

    @Slot()
    def show_journal(self) -> None:
        """Opens (or raises) the journal window; it is created once and then kept."""
        self._journal_window().present()

    @Slot(str)
    def show_conflict(self, decision_id: str) -> None:
        """A sync conflict picked in the tray or the status bar: the decision and its history,
        where both versions are shown."""
        self._journal_window()
        assert self._conflicts is not None
        self._conflicts.open(decision_id)

    @Slot(str)
    def show_sync_help(self, entry: str) -> None:
        """A sync error picked in the tray or the status bar: its runbook entry, after the
        error's own message."""
        from app.gui.journal.sync_status import show_runbook_entry  # noqa: PLC0415

        view = self.sync.view
        _keep.append(show_runbook_entry(None, entry, view.detail if view.entry == entry else ""))

    @Slot(object)
    def _notify_conflicts(self, record_ids: tuple[str, ...]) -> None:
        if self.tray is not None:
            title = count_of(len(record_ids), "sync conflict")
            self.tray.notify(title, "Changed on two machines; both versions are kept.")

    @Slot(str, str)
    def _notify_sync_error(self, entry: str, message: str) -> None:
        if self.tray is not None:
            self.tray.notify("Sync stopped", f"{message} (decision-journal help runbook {entry})")

    @Slot()
    def catch_up(self) -> None:
        """Another process changed records (it said so, a sync brought them, or the records
        folder changed): the index and the profile catch up in a worker, and an open window
        reloads what changed."""
        if self.journal_window is not None:
            self.journal_window.bridge.read_changed_files()
        else:
            self.workers.submit(
                lambda: catch_up(self.journal.index, self.profile_worker), lambda _report: None
            )

    @Slot()
    def _warm_up(self) -> None:
        """Soon after start: builds the window hidden and warms the index, so the first open
        shows its first page at once instead of importing, building and reconciling first;
        and then, once the index is current, rebuilds a profile that no longer matches the
        journal (or was never built)."""
        if self.journal_window is None:
            self._journal_window().prepare()
        self.workers.submit(
            lambda: warm_up(self.journal.index, self.profile_worker), lambda _none: None
        )

    def _journal_window(self) -> JournalWindow:
        if self.journal_window is None:
            from app.gui.journal.window import JournalWindow  # noqa: PLC0415  # keeps start fast

            window = JournalWindow(self.journal, profile_worker=self.profile_worker)
            window.answer_requested.connect(self.controller.open_pending)
            self.controller.pending_changed.connect(window.refresh_waiting)
            self._add_sync_status(window)
            self.journal_window = window
        return self.journal_window

    def _add_sync_status(self, window: JournalWindow) -> None:
        """Sync's state in the window's status bar, left of the profile's."""
        from app.gui.journal.sync_status import (  # noqa: PLC0415  # with the window
            ConflictOpener,
            SyncStatusButton,
        )

        button = SyncStatusButton(window)
        window.statusBar().insertPermanentWidget(0, button)
        button.set_view(self.sync.view)
        self.sync.view_changed.connect(button.set_view)
        button.sync_requested.connect(self.sync.sync_now)
        button.conflicts_requested.connect(self.show_conflict)
        button.help_requested.connect(self.show_sync_help)
        self._conflicts = ConflictOpener(window)

    @Slot(str, str)
    def _notify_asked(self, project: str, problem: str) -> None:
        """Once the new window had time to become active: the tray tells only if the person
        is not looking at one of our windows (the new one, or one they type in)."""
        title = f"Decision needed{f' in {project}' if project else ''}"

        def tell() -> None:
            if self.tray is not None:
                self.tray.notify(title, problem)

        QTimer.singleShot(NOTIFY_SETTLE_MS, self, tell)

    @Slot()
    def quit(self) -> None:
        """Pending decisions are already on disk; quitting loses nothing. What the person
        answered reaches the disk first, then every waiting agent gets its decision back."""
        self.workers.wait_idle()
        self.controller.release_on_quit()
        self.server.close()
        self.records_watch.stop()
        self.sync.stop()
        if self.journal_window is not None:
            self.journal_window.shutdown()
        self.transcripts.stop()
        self.workers.wait_idle()
        self.profile_worker.stop()
        if self.tray is not None:
            self.tray.notifier.close_all()  # an "Overrule" button nobody would hear
        QApplication.quit()


def forward_show(journal_root: Path) -> None:
    with IpcClient(socket_path(journal_root), timeout=5.0) as client:
        client.call("app.show", {"view": "journal"})


def startup_error_box(message: str) -> QMessageBox:
    """The window a tray app that cannot start shows instead of a tray icon over nothing: the
    error as the CLI prints it (with its runbook entry), so a start from the desktop's menu,
    where nobody reads stderr, still says what is wrong."""
    box = QMessageBox(QMessageBox.Icon.Critical, "Decision Journal", message)
    box.setInformativeText("Decision Journal did not start. Nothing was read or written.")
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    return box


def show_startup_error(message: str) -> None:
    """Shows `startup_error_box` and waits until it is closed."""
    app = QApplication.instance() or QApplication([APP_ID])
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_ID)
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())
    startup_error_box(message).exec()


def run_app(journal: Journal, *, show: bool = False) -> int:
    # argv[0] becomes the WM_CLASS instance on X11 and the application name its class, so
    # `python -m app.cli.main app`, the frozen binary and the autostart entry all group as
    # one program whose desktop file is decision-journal.desktop.
    app = QApplication.instance() or QApplication([APP_ID])
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_ID)
    app.setDesktopFileName(APP_ID)
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(app_icon())
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _install_excepthook()
    tray_app = TrayApp(journal)
    signal.signal(signal.SIGTERM, lambda *_: QTimer.singleShot(0, tray_app.quit))
    # Python runs signal handlers only between bytecodes; Qt's loop sits in C++, so a tiny
    # timer hands control back often enough for SIGTERM to close the socket cleanly.
    wakeup = QTimer(tray_app)
    wakeup.timeout.connect(lambda: None)
    wakeup.start(250)
    if not tray_app.start():
        forward_show(journal.root)
        print("Decision Journal is already running for this journal; brought it forward.")
        return 0
    print(f"Decision Journal is running for {journal.root}", flush=True)
    if show:
        QTimer.singleShot(0, tray_app.show_journal)
    return app.exec()
