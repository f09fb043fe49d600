"""Entry point of the `decision-journal` command; subcommands live in their own modules."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from app.cli.exit_codes import INVALID, guarded
from core import __version__

# Each module exposes register(subparsers); handlers take (journal, args) and return an exit code.
COMMAND_MODULES = (
    "journal_cmds",
    "profile_cmds",
    "app_cmds",
    "capture_cmds",
    "agent_cmds",
    "import_cmds",
    "outcome_cmds",
)


# Agents run these before every tool call: they load only their own module, which keeps them
# fast and means a broken unrelated module can never make the gating hook fail open.
FAST_PATHS = {"hook": ("agent_cmds",), "mcp": ("agent_cmds",)}


def _command_word(argv: Sequence[str]) -> str:
    words = iter(argv)
    for word in words:
        if word == "--journal":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return ""


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
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
    for name in modules:
        importlib.import_module(f"app.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(FAST_PATHS.get(_command_word(arguments), COMMAND_MODULES))
    args = parser.parse_args(arguments)
    if not getattr(args, "opens_journal", True):
        # The hook opens the journal itself, and only when it has something to check.
        return guarded(lambda: int(args.handler(args)))
    from core.journal import Journal  # here: the hook above must not wait for it to load

    if getattr(args, "handler", None) is None:
        parser.print_help()
        print(f"\nJournal: {Journal.open(args.journal).root}")
        return INVALID if args.command else 0
    journal = Journal.open(args.journal)
    return guarded(lambda: int(args.handler(journal, args)))


if __name__ == "__main__":
    sys.exit(main())
