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

from app.setup_clients import CLIENTS, codex, copilot, opencode, plan, qwen
from app.setup_clients.codex_app_server import CodexUnavailable
from app.setup_clients.codex_trust import find_codex, inspect, unlisted
from app.setup_clients.command import find_launcher, shared_launcher
from app.setup_clients.context import SetupContext
from app.setup_clients.copilot_trust import folder_problem as copilot_folder_problem
from app.setup_clients.files import (
    FileEdit,
    SetupError,
    apply_edit,
    pending_changes,
    refuse_links_out_of,
)
from app.setup_clients.gemini_trust import folder_problem
from app.setup_clients.qwen_trust import folder_problem as qwen_folder_problem

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
    configured = {hooks: unlisted(hooks, project=ctx.scope == "project")}
    try:
        report = inspect(program, str(ctx.project_dir), configured, grant=options.grant)
    except CodexUnavailable as exc:
        return [f"cannot ask Codex whether it runs the hook: {exc}"] if required else []
    return report.problems


def gemini_trust(ctx: SetupContext) -> list[str]:
    """The folder `gemini` would start in must be trusted, or it runs no hook at all."""
    problem = folder_problem(ctx.project_dir, ctx.home, os.environ)
    return [problem] if problem else []


def hook_problems(ctx: SetupContext, args: argparse.Namespace, *, required: bool) -> list[str]:
    """What keeps the client from running our hook (after `--write`, or for `--check`)."""
    if args.client == "codex":
        problems = codex_trust(ctx, CodexOptions(args.codex, args.trust_hook), required=required)
        if not problems and (required or find_codex(args.codex)):
            print(f"ok: Codex runs the decision-journal hook from {codex.hooks_file(ctx)}")
        return problems
    if args.client == "gemini":
        return gemini_trust(ctx)
    if args.client == "copilot" and ctx.scope == "project":
        user_dir = copilot.user_config_dir(ctx.home)
        problem = copilot_folder_problem(ctx.project_dir, user_dir, os.environ)
        return [problem] if problem else []
    if args.client == "opencode":
        problem = opencode.plugins_off(os.environ)
        return [problem] if problem else []
    if args.client == "qwen":
        problem = qwen_folder_problem(ctx.project_dir, qwen.user_dir(ctx.home), os.environ)
        return [problem] if problem else []
    return []


def context(journal: Path | None, args: argparse.Namespace) -> SetupContext:
    launcher = shared_launcher() if args.scope == "project" else find_launcher()
    return SetupContext(
        scope=args.scope,
        home=Path.home(),
        project_dir=Path(os.path.abspath(args.project_dir)),
        launcher=launcher,
        journal=str(journal) if journal is not None else None,
    )


def run_setup(journal: Path | None, args: argparse.Namespace) -> int:
    """`setup CLIENT` with the parsed arguments; `journal` when `--journal` pinned one.

    Returns:
        0, or `CHECK_FAILED` when `--check` (or `--trust-hook`) found a problem; after a plain
        `--write`, what keeps the hook from running is printed as a warning.
    """
    if args.trust_hook and (args.client != "codex" or args.mode != "write"):
        raise SetupError("--trust-hook goes with `setup codex --write`; nothing was written")
    ctx = context(journal, args)
    edits, notes = plan(args.client, ctx)
    required = args.mode == "check" or args.trust_hook
    problems: list[str] = []
    warnings: list[str] = []
    trust_note: str = getattr(CLIENTS[args.client], "TRUST_NOTE", "")
    if args.mode == "write":
        if ctx.scope == "project":
            refuse_links_out_of(edits, ctx.project_dir)
        write(edits, print)
        found = hook_problems(ctx, args, required=required)
        (problems if required else warnings).extend(found)
        if not found and (required or find_codex(args.codex)):
            trust_note = ""  # the client itself just said it runs the hook
    elif args.mode == "check":
        problems = check(edits) or hook_problems(ctx, args, required=True)
    else:
        show(edits, print)
    if trust_note:
        notes = (trust_note, *notes)
    shown_notes = [] if args.mode == "check" else [f"note: {note}" for note in notes]
    for line in [*shown_notes, *(f"warning: {warning}" for warning in warnings)]:
        print(ctx.own_calls(line))
    for problem in problems:
        print(f"problem: {ctx.own_calls(problem)}")
    if args.mode == "check" and not problems:
        print(f"ok: {args.client} is set up")
    return CHECK_FAILED if problems else OK
