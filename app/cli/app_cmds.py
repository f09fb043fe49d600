"""`app`: start (or bring forward) the tray application. Qt is imported only here."""

from __future__ import annotations

import argparse
import os

from app.cli.exit_codes import DAMAGED, INVALID, print_error, report_error
from app.launch import display_available
from core.errors import JournalNotAFolder, describe
from core.journal import Journal
from core.messages import runbook
from core.store.location import journal_root_problem

NO_DISPLAY = (
    "no display to show the tray app on (DISPLAY and WAYLAND_DISPLAY "
    "are unset). Run it in your desktop session; agents can still save decisions as pending "
    f"({runbook.see('app-not-running')})."
)


def cmd_app(journal: Journal, args: argparse.Namespace) -> int:
    shown = display_available() or bool(os.environ.get("QT_QPA_PLATFORM"))
    problem = journal_root_problem(journal.root)
    if problem is not None:  # in a window too: started from a menu, nobody reads stderr
        error = JournalNotAFolder(problem, path=str(journal.root))
        report_error(error)
        if shown:
            from app.main_app import show_startup_error

            show_startup_error(str(describe(error)))
        return DAMAGED
    if not shown:
        print_error(NO_DISPLAY)
        return INVALID
    from app.main_app import run_app
    from core.bulk.parallel_read import use_start_method

    # Qt and the app's worker threads make forking unsafe: reading processes start afresh.
    use_start_method("spawn")
    return run_app(journal, show=args.show)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("app", help="start the tray app (or bring the running one forward)")
    p.add_argument("--show", action="store_true", help="open the journal window")
    p.set_defaults(handler=cmd_app, checks_journal_itself=True)
