"""`app`: start (or bring forward) the tray application. Qt is imported only here."""

from __future__ import annotations

import argparse

from core.journal import Journal


def cmd_app(journal: Journal, args: argparse.Namespace) -> int:
    from app.main_app import run_app

    return run_app(journal, show=args.show)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("app", help="start the tray app (or bring the running one forward)")
    p.add_argument("--show", action="store_true", help="open the journal window")
    p.set_defaults(handler=cmd_app)
