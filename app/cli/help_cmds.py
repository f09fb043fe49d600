"""`help runbook [ENTRY]`: the runbook that ships with the app, one entry or the list.

Why a command: every error names its runbook entry as `decision-journal help runbook ENTRY`,
which works wherever the app is installed; a path into a source tree does not.
"""

from __future__ import annotations

import argparse
import sys

from app.cli.exit_codes import INVALID, OK, print_error
from core.messages import runbook


def cmd_help(args: argparse.Namespace) -> int:
    if args.topic is None:  # `help` alone: the commands, as `--help` shows them
        from app.cli.main import build_parser  # here: main imports this module

        build_parser(listing=True).print_help()
        return OK
    if args.entry is None:
        return _list_entries()
    try:
        text = runbook.entry(args.entry)
    except runbook.UnknownEntry as exc:
        print_error(exc)
        return INVALID
    sys.stdout.write(text)
    print(f"\n(from {runbook.installed_path()}#{args.entry})")
    return OK


def _list_entries() -> int:
    print(f"Runbook: {runbook.installed_path()}")
    print(f"Print one entry with `{runbook.HELP_COMMAND} ENTRY`. Entries:")
    for anchor in runbook.entries():
        print(f"  {anchor}")
    return OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "help",
        help="the runbook: what each fail-closed error means and how to fix it",
        description="Prints an entry of the runbook that ships with the app (every error "
        "message names one), or lists the entries and where the file is installed.",
    )
    p.add_argument(
        "topic", nargs="?", choices=("runbook",), help="what to show help on (default: commands)"
    )
    p.add_argument("entry", nargs="?", help="the runbook entry (as named in an error message)")
    p.set_defaults(handler=cmd_help, opens_journal=False)
