"""Entry point of the `decision-journal` command; subcommands live in their own modules."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from app.cli.exit_codes import INVALID, guarded
from core import __version__
from core.journal import Journal

# Each module exposes register(subparsers); handlers take (journal, args) and return an exit code.
COMMAND_MODULES = ("journal_cmds", "profile_cmds", "app_cmds", "capture_cmds", "agent_cmds")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="decision-journal",
        description="Ask the human at implementation forks; keep a private journal of decisions.",
    )
    parser.add_argument(
        "--journal",
        metavar="DIR",
        help="journal directory (overrides DECISION_JOURNAL_HOME and the per-user default)",
    )
    parser.add_argument("--version", action="version", version=f"decision-journal {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"app.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        print(f"\nJournal: {Journal.open(args.journal).root}")
        return INVALID if args.command else 0
    journal = Journal.open(args.journal)
    return guarded(lambda: int(args.handler(journal, args)))


if __name__ == "__main__":
    sys.exit(main())
