"""Shared builders for the journal window tests: journals on disk, windows, leak checks.

Why a module instead of conftest fixtures: the journal tests own their files, and each test
file declares its two-line fixtures over `open_window`, so what a test starts is visible in it.
Every window is shut down at the end, and the checks below fail a test that leaves a timer
running, a worker busy or a top-level window visible.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QEventLoop, QSettings, Qt, QTimer, QUrl
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.gui.journal.requests import FilterState
from app.gui.journal.window import JournalWindow
from app.gui.journal.window_settings import remember_filters as store_filters
from core.gocompat.gotime import GoTime
from core.journal import Journal
from core.record.codec import encode_record
from core.record.models import DecisionRecord, Option, Provenance, RejectedReason
from core.record.normalize import normalize_record
from core.record.redact_record import redact_record
from core.record.validation import validate_record
from core.store.safefs import atomic_write, ensure_private_dir

BASE_NS = 1_760_000_000 * 1_000_000_000
MINUTE_NS = 60 * 1_000_000_000
PROJECT_A = "project-00000000000000aa"
PROJECT_B = "project-00000000000000bb"


def record(number: int, **overrides: Any) -> DecisionRecord:
    """A complete record; `number` orders them (higher is newer) and names them."""
    updated = GoTime(BASE_NS + number * MINUTE_NS)
    base = DecisionRecord(
        schema_version=1,
        id=f"decision-test-{number:04d}",
        revision=1,
        created_at=updated,
        updated_at=updated,
        session_id="session-1",
        project_id=PROJECT_A,
        project_alias="alpha",
        workspace="/home/user/src/alpha",
        domains=["storage"],
        languages=["python"],
        decision_kind="storage_backend",
        risk_level="medium",
        problem=f"Choose the storage layout number {number}",
        options=[
            Option(id="per-record", label="Per-record JSON", description="One file each"),
            Option(id="single", label="Single document", description="One file for all"),
            Option(id="sqlite", label="SQLite database", description="One database file"),
        ],
        recommended_option_id="single",
        selected_option_id="per-record",
        selection_reason_raw="independent files avoid lost updates",
        rejected_reasons=[
            RejectedReason(option_id="single", reason="global rewrite bottleneck", source="user"),
            RejectedReason(option_id="sqlite", reason="harder to inspect by hand", source="user"),
        ],
        evidence_refs=["core/store.py:10"],
        tags=["layout"],
        detector_confidence=0.91,
        status="completed",
        provenance=Provenance(options="model", selection="user", rationale="user"),
    )
    for option in base.options:
        option.recommended = option.id == base.recommended_option_id
    made = base.model_copy(update=overrides)
    if made.is_deleted and made.deleted_at is None:
        made.deleted_at = made.updated_at
    return made


def write_records(journal: Journal, records: list[DecisionRecord]) -> None:
    """Writes revision-1 files with chosen timestamps, as the store would have written them."""
    ensure_private_dir(journal.root, journal.store.records_dir)
    for item in records:
        prepared = redact_record(normalize_record(item))
        validate_record(prepared)
        path = journal.store.record_path(prepared.id)
        atomic_write(journal.root, path, encode_record(prepared))


def make_journal(root: Path, records: list[DecisionRecord]) -> Journal:
    journal = Journal(root)
    write_records(journal, records)
    return journal


class UrlSpy:
    """Stands in for QDesktopServices.openUrl, so no file manager opens during tests;
    `opens=False` answers as openUrl does on a desktop without one."""

    def __init__(self, *, opens: bool = True) -> None:
        self.urls: list[QUrl] = []
        self.opens = opens

    def __call__(self, url: QUrl) -> bool:
        self.urls.append(url)
        return self.opens


def settings_at(path: Path) -> QSettings:
    return QSettings(str(path), QSettings.Format.IniFormat)


def remember_filters(path: Path, journal: Journal, state: FilterState) -> Path:
    """Writes the filters a window of this journal would have saved; returns the file."""
    settings = settings_at(path)
    store_filters(settings, journal.root, state)
    settings.sync()
    return path


_FALLBACK_SETTINGS = tempfile.mkdtemp(prefix="dj-test-settings-")
"""Where default-constructed QSettings go after a test redirected them: never the user's."""


def _set_settings_path(directory: str) -> None:
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, directory)


@contextlib.contextmanager
def redirected_settings(directory: Path) -> Iterator[None]:
    """QSettings made without a path (organization/application) land under directory."""
    _set_settings_path(str(directory))
    try:
        yield
    finally:
        _set_settings_path(_FALLBACK_SETTINGS)


def open_window(
    qtbot: QtBot, journal: Journal, settings_file: Path, **options: Any
) -> JournalWindow:
    """A presented window that has shown its first page."""
    spy = options.pop("open_url", None) or UrlSpy()
    window = JournalWindow(journal, settings=settings_at(settings_file), open_url=spy, **options)
    with qtbot.waitSignal(window.scope_counted, timeout=10_000):
        window.present()
    return window


def build_module_window(journal: Journal, settings_file: Path, **options: Any) -> JournalWindow:
    """A window for every test of a module (`reused` gives each test its turn): built, shown
    until its first page is counted, then hidden. Call from a module-scoped fixture that
    depends on `qapp`, and `shut_down_module_window` it afterwards."""
    spy = options.pop("open_url", None) or UrlSpy()
    window = JournalWindow(journal, settings=settings_at(settings_file), open_url=spy, **options)
    loop = QEventLoop()
    window.scope_counted.connect(loop.quit)
    QTimer.singleShot(10_000, loop.quit)
    window.present()
    loop.exec()
    window.scope_counted.disconnect(loop.quit)
    assert window.model.counted, "the module's window never counted its first page"
    window.close()
    _settle(window)
    return window


@contextlib.contextmanager
def reused(qtbot: QtBot, window: JournalWindow) -> Iterator[JournalWindow]:
    """One test's turn with a module's window, as if it had built its own: shown on the
    default filter with the newest decision selected and the summaries in the language it
    opened with; afterwards its dialogs are closed, it is hidden and its jobs are done, so
    the leak guard checks the test as before. Tests that write to the journal, or choose
    settings a window is built with, keep their own window."""
    language = window.property("dj-initial-summary") or window.summary_language()
    window.setProperty("dj-initial-summary", language)
    window.summary_actions[str(language)].trigger()
    window.list_view.selectionModel().clear()
    window.list_view.scrollToTop()
    window.show_record(None)
    window.tabs.setCurrentIndex(0)
    window.filter_bar.set_state(FilterState())
    with qtbot.waitSignal(window.scope_counted, timeout=10_000):
        window.present()  # reopened on "Current project": the list loads again
    try:
        yield window
    finally:
        window.close()
        _settle(window)


def _settle(window: JournalWindow) -> None:
    """Every job the window queued has finished and its answer has been delivered."""
    for _ in range(3):
        window.bridge.wait_idle()
        QApplication.processEvents()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def shut_down(qtbot: QtBot, *windows: JournalWindow) -> None:
    """Closes windows, waits for their workers, and fails on anything left running."""
    for window in windows:
        window.shutdown()
    qtbot.wait(10)
    running = [
        timer.objectName() or repr(timer)
        for window in windows
        for timer in window.findChildren(QTimer)
        if timer.isActive()
    ]
    visible = [
        w.objectName() or repr(w)
        for w in QApplication.topLevelWidgets()
        if w.isVisible() and _belongs_to(w, windows)
    ]
    for window in windows:
        window.deleteLater()
    qtbot.wait(10)
    assert not running, f"timers still running: {running}"
    assert not visible, f"top-level windows still open: {visible}"
    alive = [
        thread.name
        for window in windows
        for thread in [window.bridge.profile_worker._thread]
        if window.bridge._owns_worker and thread is not None and thread.is_alive()
    ]
    assert not alive, f"profile workers still running: {alive}"


def _belongs_to(widget: QWidget, windows: tuple[JournalWindow, ...]) -> bool:
    """A window itself, or a dialog parented (at any depth) to one of them."""
    current: QWidget | None = widget
    while current is not None:
        if any(current is window for window in windows):
            return True
        current = current.parentWidget()
    return False


def press(
    widget: QWidget, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
) -> None:
    """A key press as a keyboard delivers it: to the focused widget of the active window."""
    target = QApplication.focusWidget() or widget
    QTest.keyClick(target, key, modifier)


def confirmation(qtbot: QtBot, window: JournalWindow) -> QMessageBox:
    box = window.findChild(QMessageBox, "confirm-box")
    assert box is not None
    qtbot.waitUntil(box.isVisible)
    qtbot.waitUntil(box.isActiveWindow)
    return box


def answer(qtbot: QtBot, window: JournalWindow, box: QMessageBox, verb: str) -> None:
    """Presses the confirmation's button with its keyboard focus, then waits for the save."""
    button = next(b for b in box.findChildren(QPushButton) if b.text().replace("&", "") == verb)
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000):
        button.setFocus()
        press(button, Qt.Key.Key_Space)
