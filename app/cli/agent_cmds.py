"""`mcp`, `hook`, `setup` and `notes`: the commands coding agents and their clients run.

Imports of the MCP SDK and the hooks happen inside the handlers: every CLI start (and a hook
runs before every tool call) would otherwise pay for loading them.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.exit_codes import OK

if TYPE_CHECKING:  # loading the journal's code is what the hook's quick check avoids
    from core.journal import Journal

HOOK_CLIENTS = ("claude-code", "codex")
SETUP_CLIENTS = ("claude-code", "codex", "cursor", "gemini", "vscode")


def cmd_mcp(journal: Journal, args: argparse.Namespace) -> int:
    from app.mcp.server import run

    workspace = os.path.abspath(args.workspace) if args.workspace else None
    return run(journal, workspace=workspace)


def cmd_hook(args: argparse.Namespace) -> int:
    """Opens the journal only when the quick check cannot answer (see `app.hooks.quick`)."""
    from app.hooks.quick import STDIN_MAX, nothing_to_do
    from core.location import resolve_journal_dir

    event = sys.stdin.read(STDIN_MAX)
    root = resolve_journal_dir(args.journal)
    answers_questions = args.client == "claude-code"
    if nothing_to_do(root, event, answers_questions=answers_questions):
        return OK
    from app.hooks import claude_code, codex
    from app.hooks.pretool import main_stdio
    from core.journal import Journal

    module = claude_code if answers_questions else codex
    journal = Journal(root)
    return main_stdio(lambda _i, o, e: module.run(journal, io.StringIO(event), o, e))


def cmd_setup(journal: Journal, args: argparse.Namespace) -> int:
    from app.setup_clients import plan
    from app.setup_clients.command import find_launcher
    from app.setup_clients.context import SetupContext
    from app.setup_clients.files import apply_edit

    ctx = SetupContext(
        scope=args.scope,
        home=Path.home(),
        project_dir=Path(os.path.abspath(args.project_dir)),
        launcher=find_launcher(),
        journal=str(journal.root) if args.journal else None,
    )
    edits, notes = plan(args.client, ctx)
    if not args.write:
        for edit in edits:
            print(f"# merge into {edit.path}\n{edit.snippet}\n")
        print("Run again with --write to merge these entries (a backup is written first).")
    else:
        for edit in edits:
            result = apply_edit(edit)
            if not result.changes:
                print(f"unchanged {result.path}")
                continue
            backup = f" (backup: {result.backup})" if result.backup else " (new file)"
            print(f"updated {result.path}: {', '.join(result.changes)}{backup}")
    for note in notes:
        print(f"note: {note}")
    return OK


def cmd_notes(journal: Journal, args: argparse.Namespace) -> int:
    from core.notes import NoteStore

    workspace = os.path.abspath(args.workspace)
    store = NoteStore(journal.root)
    if args.add:
        note = store.append(
            workspace=workspace,
            decision=args.add,
            why=args.why or "",
            goal=args.goal or "",
            session_id=f"cli-{os.getppid()}",
            agent="cli",
        )
        print(note.id)
        return OK
    notes, listing = store.recent(workspace, goal=args.goal or "", limit=args.limit)
    if args.json:
        print(json.dumps([n.to_dict() for n in notes], ensure_ascii=False, indent=2))
    else:
        for note in notes:
            goal = f" [{note.goal}]" if note.goal else ""
            print(f"{note.created_at}{goal} {note.decision} -- {note.why}")
        if not notes:
            print("No agent notes for this workspace.")
    if listing.damaged_lines:
        print(f"decision-journal: {listing.damaged_lines} unreadable line(s)", file=sys.stderr)
    return OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("mcp", help="serve the MCP tools on stdio (clients start this)")
    p.add_argument("--workspace", help="project root (default: CLAUDE_PROJECT_DIR or cwd)")
    p.set_defaults(handler=cmd_mcp)

    p = sub.add_parser("hook", help="a client's PreToolUse hook (reads JSON on stdin)")
    p.add_argument("client", choices=HOOK_CLIENTS)
    p.set_defaults(handler=cmd_hook, opens_journal=False)

    p = sub.add_parser("setup", help="register the MCP server (and hooks) with a client")
    p.add_argument("client", choices=SETUP_CLIENTS)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--print", dest="write", action="store_false", help="show (default)")
    mode.add_argument("--write", dest="write", action="store_true", help="merge into files")
    p.add_argument("--scope", choices=("user", "project"), default="user")
    p.add_argument("--project-dir", default=os.getcwd(), help="for --scope project (cwd)")
    p.set_defaults(handler=cmd_setup, write=False)

    p = sub.add_parser("notes", help="agent notes for a workspace (newest first)")
    p.add_argument("--workspace", default=os.getcwd())
    p.add_argument("--goal")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--json", action="store_true")
    p.add_argument("--add", metavar="DECISION", help="append a note instead of listing")
    p.add_argument("--why", help="with --add: why")
    p.set_defaults(handler=cmd_notes)
