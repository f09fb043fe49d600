"""Exports from the dialog in every format, the private-export warning, cancel, fail-closed."""

from __future__ import annotations

import csv
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.gui.journal.decision_details import SUMMARY_ENGLISH, SUMMARY_KOREAN
from app.gui.journal.export_dialog import ExportDialog
from app.gui.journal.export_formats import FORMATS
from app.gui.journal.window import JournalWindow
from core import exporters
from core.exporters.naming import export_name
from core.gocompat.gotime import GoTime
from core.journal import Journal
from core.record.summary import summary_in
from tests.app.support.journal_support import (
    UrlSpy,
    build_module_window,
    make_journal,
    open_window,
    press,
    record,
    reused,
    shut_down,
)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]


def _journal(root: Path) -> Journal:
    return make_journal(root, [record(1), record(2), record(3, status="deleted")])


@pytest.fixture(scope="module")
def module_journal(tmp_path_factory: pytest.TempPathFactory) -> Journal:
    """Read by the tests that share the module's window; none writes to it."""
    return _journal(tmp_path_factory.mktemp("export") / "journal")


@pytest.fixture(scope="module")
def module_spy() -> UrlSpy:
    return UrlSpy()


@pytest.fixture(scope="module")
def module_window(
    qapp: QApplication,
    module_journal: Journal,
    module_spy: UrlSpy,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[JournalWindow]:
    """One window for the module's exports: each test gets it through `window`."""
    settings = tmp_path_factory.mktemp("export-settings") / "settings.ini"
    window = build_module_window(module_journal, settings, open_url=module_spy)
    yield window
    window.shutdown()
    window.deleteLater()


@pytest.fixture
def journal(module_journal: Journal) -> Journal:
    return module_journal


@pytest.fixture
def spy(module_spy: UrlSpy) -> UrlSpy:
    module_spy.urls.clear()
    return module_spy


@pytest.fixture
def window(qtbot: QtBot, module_window: JournalWindow, spy: UrlSpy) -> Iterator[JournalWindow]:
    with reused(qtbot, module_window) as window:
        yield window


def open_dialog(qtbot: QtBot, window: JournalWindow, folder: Path) -> ExportDialog:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press(
        window,
        Qt.Key.Key_E,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = window.findChild(ExportDialog)
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    dialog.folder.setText(str(folder))
    return dialog


def run_export(qtbot: QtBot, dialog: ExportDialog) -> None:
    with qtbot.waitSignal(dialog.export_finished, timeout=10_000):
        dialog.export_button.click()


def only(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, found
    return found[0]


def test_privacy_reduced_json(
    qtbot: QtBot, window: JournalWindow, tmp_path: Path, spy: UrlSpy
) -> None:
    dialog = open_dialog(qtbot, window, tmp_path / "out")
    assert dialog.scope_label.text() == "Scope: the 2 decisions matching the journal's filter."
    assert not dialog.warning.isVisible()
    run_export(qtbot, dialog)
    path = only(tmp_path / "out", "decision-journal-json-2*.json")
    data = json.loads(path.read_text())
    assert [item["id"] for item in data] == ["decision-test-0002", "decision-test-0001"]
    assert "workspace" not in data[0] and "session_id" not in data[0]
    assert dialog.status.text() == f"Exported 2 decisions to {path}"
    assert [url.toLocalFile() for url in spy.urls] == [str(tmp_path / "out")]
    assert dialog.progress.value() == dialog.progress.maximum()


def test_private_json_needs_an_explicit_acknowledgement(
    qtbot: QtBot, window: JournalWindow, tmp_path: Path
) -> None:
    dialog = open_dialog(qtbot, window, tmp_path / "out")
    dialog.choose("json-private")
    assert dialog.warning.isVisible()
    assert "local paths" in dialog.warning.text()
    assert not dialog.export_button.isEnabled()
    dialog.acknowledge.setChecked(True)
    assert dialog.export_button.isEnabled()
    dialog.include_deleted.setChecked(True)
    run_export(qtbot, dialog)
    data = json.loads(only(tmp_path / "out", "decision-journal-json-private-*.json").read_text())
    assert len(data) == 3
    assert data[0]["workspace"] == "/home/user/src/alpha"


def test_madr_folder(qtbot: QtBot, window: JournalWindow, tmp_path: Path, spy: UrlSpy) -> None:
    dialog = open_dialog(qtbot, window, tmp_path / "out")
    dialog.choose("madr")
    assert "Writes a new folder, decision-journal-madr-<UTC date-time>, in " in (
        dialog.target_label.text()
    )
    run_export(qtbot, dialog)
    folder = only(tmp_path / "out", "decision-journal-madr-*")
    markdown = sorted(p.name for p in folder.glob("*.md"))
    assert len(markdown) >= 2
    assert spy.urls[-1].toLocalFile() == str(folder)


def test_decisions_md(qtbot: QtBot, window: JournalWindow, tmp_path: Path) -> None:
    dialog = open_dialog(qtbot, window, tmp_path / "out")
    dialog.choose("markdown")
    run_export(qtbot, dialog)
    text = only(tmp_path / "out", "decision-journal-markdown-*.md").read_text()
    assert "Choose the storage layout number 2" in text


def test_csv(qtbot: QtBot, window: JournalWindow, tmp_path: Path) -> None:
    dialog = open_dialog(qtbot, window, tmp_path / "out")
    dialog.choose("csv")
    run_export(qtbot, dialog)
    with only(tmp_path / "out", "decision-journal-csv-*.csv").open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert len(rows) == 3  # header and two decisions


def test_every_format_is_offered() -> None:
    assert [f.key for f in FORMATS] == ["json", "json-private", "madr", "markdown", "csv"]


def test_cancel_leaves_nothing_behind(
    qtbot: QtBot,
    window: JournalWindow,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spy: UrlSpy,
) -> None:
    started = threading.Event()
    real_export = exporters.export

    def slow_export(*args: Any, **kwargs: Any) -> list[Path]:
        started.set()
        cancel: threading.Event = kwargs["cancel"]
        assert cancel.wait(10)
        return real_export(*args, **kwargs)

    monkeypatch.setattr(exporters, "export", slow_export)
    dialog = open_dialog(qtbot, window, tmp_path / "out")
    dialog.export_button.click()
    assert dialog.cancel_button.isVisible()
    assert started.wait(10)
    with qtbot.waitSignal(dialog.export_finished, timeout=10_000):
        dialog.cancel_button.click()
    assert dialog.status.text() == "Export cancelled; nothing was written."
    assert not list((tmp_path / "out").glob("kernforge-*"))
    assert spy.urls == []


def test_export_fails_closed_on_an_unreadable_record(qtbot: QtBot, tmp_path: Path) -> None:
    journal = _journal(tmp_path / "journal")  # written to: not the module's journal
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        (journal.store.records_dir / "decision-broken.json").write_text("{")
        dialog = open_dialog(qtbot, window, tmp_path / "out")
        run_export(qtbot, dialog)
        assert dialog.status.text().startswith("Export failed: ")
        assert "unreadable record" in dialog.status.text()
        assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    finally:
        shut_down(qtbot, window)


def test_names_come_from_the_shared_builder_and_never_replace_a_file(tmp_path: Path) -> None:
    when = GoTime(1_760_000_000 * 1_000_000_000)
    formats = {fmt.key: fmt for fmt in FORMATS}
    for key, fmt in formats.items():
        assert fmt.target_name(when) == export_name(fmt.exporter, when, private=fmt.private), key
    json_format = formats["json"]
    taken = tmp_path / json_format.target_name(when)
    taken.write_text("[]")
    assert json_format.free_name(tmp_path, when) == taken.name.replace(".json", "-2.json")
    madr = formats["madr"]
    (tmp_path / madr.target_name(when)).mkdir()
    assert madr.free_name(tmp_path, when) == f"{madr.target_name(when)}-2"


@pytest.mark.parametrize("language", [SUMMARY_ENGLISH, SUMMARY_KOREAN])
def test_the_csv_summaries_are_in_the_language_the_view_menu_shows_first(
    qtbot: QtBot, window: JournalWindow, journal: Journal, tmp_path: Path, language: str
) -> None:
    window.summary_actions[language].trigger()
    dialog = open_dialog(qtbot, window, tmp_path / "out")
    dialog.choose("csv")
    run_export(qtbot, dialog)
    with only(tmp_path / "out", "decision-journal-csv-*.csv").open(newline="") as handle:
        rows = {row["id"]: row["summary"] for row in csv.DictReader(handle)}
    for record_id, summary in rows.items():
        assert summary == summary_in(journal.store.get(record_id), language)
    korean = [s for s in rows.values() if "때문에" in s]
    assert korean == ([] if language == SUMMARY_ENGLISH else list(rows.values()))


def test_without_a_choice_the_summaries_follow_the_locale(
    qtbot: QtBot, journal: Journal, tmp_path: Path
) -> None:
    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Korean, QLocale.Country.SouthKorea))
    try:
        window = open_window(qtbot, journal, tmp_path / "fresh.ini")
        try:
            assert window.summary_language() == SUMMARY_KOREAN
            assert window.summary_actions[SUMMARY_KOREAN].isChecked()
        finally:
            shut_down(qtbot, window)
    finally:
        QLocale.setDefault(before)
