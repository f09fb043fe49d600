"""Entry point of the `decision-journal` command; subcommands live in their own modules.

Why the imports at the top are so few: clients run `decision-journal hook …` before every
tool call of every agent, and that path must cost little more than the interpreter's start
(`bench/hook_bench.py`). The parser, the exit-code table and the core errors load only once
the word is not `hook`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

TYPE_CHECKING = False  # typing itself costs the hook a few milliseconds to import

if TYPE_CHECKING:
    import argparse
    from typing import Any

# Each module exposes register(subparsers); handlers take (journal, args) and return an exit code.
COMMANDS = {
    "journal_cmds": ("list", "show", "history", "edit", "delete", "restore", "doctor"),
    "export_cmds": ("export",),
    "profile_cmds": ("profile",),
    "app_cmds": ("app",),
    "capture_cmds": ("ask", "pending", "status"),
    "agent_cmds": ("hook", "mcp", "notes", "setup"),
    "import_cmds": ("import", "confirm"),
    "outcome_cmds": ("outcome", "outcome-stats", "recall"),
    "help_cmds": ("help",),
    "sync_cmds": ("sync",),
    "decider_cmds": ("modes", "overrule", "principles"),
}
"""The commands each module registers (a test holds this equal to what they register).

Why name them here: a command loads only its own module, and the others (importers, the app's
commands, the capture flow) are a noticeable part of a CLI start (bench/CHANGES.md). The hook, which
runs before every tool call, also cannot be broken by an unrelated module this way. Help, and a word
that is no command, list the commands from `SUMMARIES` and load none of them.
"""
COMMAND_MODULES = tuple(COMMANDS)
SUMMARIES = {
    "list": "list decisions, newest first",
    "show": "show one decision",
    "history": "every revision of one decision",
    "edit": "correct a decision (compare-and-swap)",
    "delete": "soft-delete a decision (history is kept)",
    "restore": "restore a soft-deleted decision",
    "doctor": "check records, history chains, permissions and locks",
    "export": "export decisions (JSON, MADR, Markdown log or CSV)",
    "profile": "derived preference rules (evidence, not commands)",
    "app": "start the tray app (or bring the running one forward)",
    "ask": "ask the human to decide (a proposal or {decision_id})",
    "status": "is the app running, where, and what is pending",
    "pending": "decisions waiting for an answer",
    "mcp": "serve the MCP tools on stdio (clients start this)",
    "hook": "a client's PreToolUse hook (reads JSON on stdin)",
    "setup": "register the MCP server (and hooks) with a client",
    "notes": "agent notes for a workspace (newest first)",
    "import": "import decisions from another tool (kind detected, or --from KIND)",
    "confirm": "confirm imported records as your own decisions",
    "outcome": "report what happened after a decision (appends a signal; never edits the record)",
    "outcome-stats": "how often recommendations are accepted; per-rule outcome scores",
    "recall": "ranked search over past decisions and agent notes",
    "help": "the runbook: what each fail-closed error means and how to fix it",
    "sync": "one journal on several machines through a git remote, end-to-end encrypted",
    "modes": "each decision kind's mode (ask or auto), its predictions and agreement",
    "overrule": "correct an answer the profile gave for you",
    "principles": "principle docs for agents to read",
}
"""Each command's line in `--help`, in the order the modules register them (a test holds this
equal to their own help texts): `--help`, `help` and a word that is no command list every command
from this table, without loading the modules that register them."""
_MODULE_OF = {word: module for module, words in COMMANDS.items() for word in words}


def _command_word(argv: Sequence[str]) -> str:
    """The command word; "" when there is none, or when the top-level help is asked for first
    (`-h list` prints the help of every command)."""
    words = iter(argv)
    for word in words:
        if word == "--journal":
            next(words, None)
        elif word in ("-h", "--help"):
            return ""
        elif not word.startswith("-"):
            return word
    return ""


def build_parser(
    modules: Sequence[str] = COMMAND_MODULES, *, listing: bool = False, word: str = ""
) -> argparse.ArgumentParser:
    """The parser with the commands of `modules`; with `listing`, every command as a bare
    entry of `SUMMARIES` instead (enough for the help and for an unknown word's error); with
    `word`, of the modules' commands only that one (see `_OnlyWord`)."""
    import argparse  # not on the hook's path
    import importlib
    from typing import cast

    from app.cli.exit_codes import COMMAND_OUTCOMES, exit_codes_help
    from core import __version__

    parser = argparse.ArgumentParser(
        prog="decision-journal",
        description="Ask the human at implementation forks; keep a private journal of decisions.",
        epilog=exit_codes_help({**COMMAND_OUTCOMES, CLOSED_PIPE: CLOSED_PIPE_HELP}),
    )
    parser.add_argument(
        "--journal",
        metavar="DIR",
        help="journal directory (overrides DECISION_JOURNAL_HOME and the per-user default)",
    )
    parser.add_argument("--version", action="version", version=f"decision-journal {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if listing:
        for command, summary in SUMMARIES.items():
            # Never parsed with (a known word builds its real parser), so without its own -h,
            # which would cost most of the help's parser (bench/CHANGES.md).
            sub.add_parser(command, help=summary, add_help=False)
        return parser
    if word:
        sub = cast("argparse._SubParsersAction[argparse.ArgumentParser]", _OnlyWord(sub, word))
    for name in modules:
        importlib.import_module(f"app.cli.{name}").register(sub)
    return parser


class _OnlyWord:
    """The subparsers action as a module's `register` sees it when the command word is known:
    that word's parser is built, and the module's other commands are configured on `_Unbuilt`
    stand-ins. Why: a parser and its arguments cost a noticeable part of a read-only command's
    start (bench/CHANGES.md), and this run parses one command."""

    def __init__(self, sub: argparse._SubParsersAction[argparse.ArgumentParser], word: str) -> None:
        self._sub = sub
        self._word = word

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser | _Unbuilt:
        return self._sub.add_parser(name, **kwargs) if name == self._word else _UNBUILT


class _Unbuilt:
    """The parser of a command this run does not parse: every call that configures it (its
    arguments, groups, defaults and sub-commands) is accepted, and builds nothing."""

    def __getattr__(self, name: str) -> Callable[..., _Unbuilt]:
        return self._accept

    def _accept(self, *args: object, **kwargs: object) -> _Unbuilt:
        return self


_UNBUILT = _Unbuilt()


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:  # what argparse's version action prints, without the parser
        from core import __version__

        print(f"decision-journal {__version__}")
        return 0
    word = _command_word(arguments)
    if word == "hook":  # before every tool call: no parser (app.hooks.entry)
        from app.hooks.entry import parse_argv

        hook = parse_argv(arguments)
        if hook is not None:
            return _run_hook(*hook)
    if word == "mcp":  # a client waits for the tool list: no parser, no journal before it
        from app.mcp.front import parse_argv as mcp_options
        from app.mcp.front import serve

        options = mcp_options(arguments)
        if options is not None:
            return serve(options)
    from app.cli.exit_codes import INVALID, guarded
    from app.cli.redacted_output import redact_stderr

    redact_stderr()  # usage errors and tracebacks may quote what the user typed

    module = _MODULE_OF.get(word)
    parser = build_parser((module,), word=word) if module else build_parser(listing=True)
    if argv is None:  # the program itself; a test that calls main(argv) keeps its collector
        _freeze_startup()
    args = parser.parse_args(arguments)
    if not getattr(args, "opens_journal", True):
        # The hook opens the journal itself, and only when it has something to check.
        return guarded(_quiet_on_closed_pipe(lambda: int(args.handler(args))))
    from core.journal import Journal  # here: the hook above must not wait for it to load

    if getattr(args, "handler", None) is None:
        parser.print_help()
        print(f"\nJournal: {Journal.open(args.journal).root}")
        return INVALID if args.command else 0
    journal = Journal.open(args.journal)

    def run() -> int:
        if not getattr(args, "checks_journal_itself", False):  # doctor and app report it
            from core.store.location import check_journal_root

            check_journal_root(journal.root)  # a file there: one line and exit 6, not ENOTDIR
        return int(args.handler(journal, args))

    return guarded(_quiet_on_closed_pipe(run))


def _freeze_startup() -> None:
    """Leaves what the imports and the parser made out of every later collection.

    Why: those objects live until the process ends, and each full collection the command's
    own work triggers, and the interpreter's last ones at exit, would walk them all again: a
    noticeable part of a short command (bench/CHANGES.md). What the command itself makes (the
    journal's files, the index's connection) is collected, and closed, as before.
    """
    import gc

    gc.freeze()


CLOSED_PIPE = 141
"""The exit code of a command whose reader closed its output early (`| head -1`): what a
shell reports for one ended by SIGPIPE, as git's commands are."""
CLOSED_PIPE_HELP = "the output was closed (| head)"


def _quiet_on_closed_pipe(run: Callable[[], int]) -> Callable[[], int]:
    """run, ending quietly with `CLOSED_PIPE` when stdout's reader went away: the rest of the
    output has nowhere to go, and is no error to report."""

    def wrapped() -> int:
        try:
            code = run()
            sys.stdout.flush()  # here, not at exit, where a closed pipe prints a traceback
        except BrokenPipeError:
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # the exit's own flush then goes nowhere
            os.close(devnull)
            return CLOSED_PIPE
        return code

    return wrapped


def _run_hook(journal: str | None, client: str) -> int:
    """`guarded(run)` for the hook, loading the error mapping only when something failed."""
    from app.hooks.entry import run

    try:
        return run(journal, client)
    except Exception as exc:
        from app.cli.exit_codes import report_error
        from core.errors import JournalError

        if isinstance(exc, JournalError | OSError):
            return report_error(exc)
        raise


if __name__ == "__main__":
    sys.exit(main())
