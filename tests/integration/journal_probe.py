"""Run as `python -m tests.integration.journal_probe STATE_FILE ARGS…`: the real app
(`decision-journal ARGS…`, e.g. `--journal J app --show`) plus a timer that writes what its
journal window shows (the list's caption and rows, the scope menu) to STATE_FILE as JSON, so
an end-to-end test can watch the window without touching it (see test_journal_live_xvfb)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.cli.main import main as cli_main
from app.main_app import APP_ID

PROBE_MS = 100


def _write_state(state: Path) -> None:
    from app.gui.journal.window import JournalWindow  # loaded by the app

    for widget in QApplication.topLevelWidgets():
        if not isinstance(widget, JournalWindow) or not widget.isVisible():
            continue
        model = widget.model
        combo = widget.filter_bar.scope
        shown = {
            "caption": widget.caption.text(),
            "ids": [model.index(n, 0).data(model.DecisionIdRole) for n in range(model.rowCount())],
            "scopes": [combo.itemText(n) for n in range(combo.count())],
        }
        partial = state.with_suffix(".part")
        partial.write_text(json.dumps(shown), encoding="utf-8")
        os.replace(partial, state)


def main() -> int:
    state = Path(sys.argv[1])
    app = QApplication([APP_ID])
    timer = QTimer(app)
    timer.timeout.connect(lambda: _write_state(state))
    timer.start(PROBE_MS)
    return cli_main(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
