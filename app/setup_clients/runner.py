"""What `decision-journal setup CLIENT` does in each mode: show, write, or check.

`--check` changes nothing: it reports each file that lacks our entries (what `--write` would
change) and, for Codex, whether Codex will actually run the hook, so gating is never silently
off. Every problem is one line naming the file and what to do; any problem makes the exit
code non-zero.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.setup_clients import codex, plan
from app.setup_clients.codex_app_server import CodexUnavailable
from app.setup_clients.codex_trust import find_codex, inspect, unlisted
from app.setup_clients.command import find_launcher, shared_launcher
from app.setup_clients.context import SetupContext
from app.setup_clients.files import FileEdit, SetupError, apply_edit, pending_changes

OK = 0
CHECK_FAILED = 1
"""`--check` (or `--trust-hook`) found something that keeps gating from working."""

Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class CodexOptions:
    """How to reach Codex for the trust check: its program, and whether to grant trust."""

    program: str | None = None
    grant: bool = False


def show(edits: list[FileEdit], say: Say) -> None:
    for edit in edits:
        say(f"# merge into {edit.path}\n{edit.snippet}\n")
    say("Run again with --write to merge these entries (a backup is written first).")


def write(edits: list[FileEdit], say: Say) -> None:
    for edit in edits:
        result = apply_edit(edit)
        if not result.changes:
            say(f"unchanged {result.path}")
            continue
        backup = f" (backup: {result.backup})" if result.backup else " (new file)"
        say(f"updated {result.path}: {', '.join(result.changes)}{backup}")


def check(edits: list[FileEdit]) -> list[str]:
    """One problem per file that `--write` would change."""
    problems = []
    for edit in edits:
        changes = pending_changes(edit)
        if changes:
            problems.append(
                f"{edit.path} is not set up: --write would change it ({'; '.join(changes)})"
            )
    return problems


def codex_trust(ctx: SetupContext, options: CodexOptions, *, required: bool) -> list[str]:
    """Problems that keep Codex from running our hook; with `options.grant`, trusts it first.

    When Codex cannot be asked, that is a problem only if `required` (`--check`,
    `--trust-hook`); a plain `--write` then leaves it to the printed note.
    """
    hooks = codex.hooks_file(ctx)
    if check([edit for edit in codex.edits(ctx) if edit.path == hooks]):
        return [f"{hooks} does not hold the decision-journal hook: run setup codex --write"]
    program = find_codex(options.program)
    if program is None:
        if not required:
            return []
        return [
            "cannot ask Codex whether it runs the hook: `codex` is not on PATH "
            "(pass --codex PROGRAM)"
        ]
    configured = {hooks: unlisted(hooks, ctx.home)}
    try:
        report = inspect(program, str(ctx.project_dir), configured, grant=options.grant)
    except CodexUnavailable as exc:
        return [f"cannot ask Codex whether it runs the hook: {exc}"] if required else []
    return report.problems


def run_setup(journal: Path | None, args: argparse.Namespace) -> int:
    """`setup CLIENT` with the parsed arguments; `journal` when `--journal` pinned one."""
    if args.trust_hook and (args.client != "codex" or args.mode != "write"):
        raise SetupError("--trust-hook goes with `setup codex --write`; nothing was written")
    launcher = shared_launcher() if args.scope == "project" else find_launcher()
    ctx = SetupContext(
        scope=args.scope,
        home=Path.home(),
        project_dir=Path(os.path.abspath(args.project_dir)),
        launcher=launcher,
        journal=str(journal) if journal is not None else None,
    )
    edits, notes = plan(args.client, ctx)
    problems: list[str] = []
    if args.mode == "write":
        write(edits, print)
    elif args.mode == "check":
        problems = check(edits)
    else:
        show(edits, print)
    if args.client == "codex" and args.mode != "print" and not problems:
        options = CodexOptions(args.codex, grant=args.trust_hook)
        required = args.mode == "check" or args.trust_hook
        trust = codex_trust(ctx, options, required=required)
        if not trust and (required or find_codex(args.codex)):
            print(f"ok: Codex runs the decision-journal hook from {codex.hooks_file(ctx)}")
        problems += trust if required else []
        for problem in [] if required else trust:
            print(f"warning: {problem}")
    for note in notes:
        print(f"note: {note}")
    for problem in problems:
        print(f"problem: {problem}")
    if args.mode == "check" and not problems:
        print(f"ok: {args.client} is set up")
    return CHECK_FAILED if problems else OK
