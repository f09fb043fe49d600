"""`mcp`, `hook`, `setup` and `notes`: the commands coding agents and their clients run.

Imports of the MCP SDK and the hooks happen inside the handlers: every CLI start (and a hook
runs before every tool call) would otherwise pay for loading them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from app.cli.exit_codes import OK
from core.messages.wording import count

if TYPE_CHECKING:  # loading the journal's code is what the hook's quick check avoids
    from core.journal import Journal

HOOK_CLIENTS = ("claude-code", "codex", "gemini", "copilot", "cursor", "qwen", "opencode")
SETUP_CLIENTS = (
    "claude-code",
    "codex",
    "cursor",
    "gemini",
    "vscode",
    "copilot",
    "qwen",
    "opencode",
)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serves MCP on stdio (`app.mcp.front` answers the listing before the journal loads)."""
    from app.mcp.front import Options, serve

    return serve(Options(args.journal, args.workspace))


def cmd_hook(args: argparse.Namespace) -> int:
    """Opens the journal only when the quick check cannot answer (see `app.hooks.entry`)."""
    from app.hooks.entry import run

    return run(args.journal, args.client)


def cmd_setup(journal: Journal, args: argparse.Namespace) -> int:
    """Shows, writes or checks one client's entries; exit code 1 when `--check` finds a gap."""
    from app.setup_clients.runner import run_setup

    return run_setup(journal.root if args.journal else None, args)


def cmd_notes(journal: Journal, args: argparse.Namespace) -> int:
    from core.agents.notes import NoteStore

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
        print(
            f"decision-journal: {count(listing.damaged_lines, 'unreadable line')}", file=sys.stderr
        )
    return OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("mcp", help="serve the MCP tools on stdio (clients start this)")
    p.add_argument("--workspace", help="project root (default: CLAUDE_PROJECT_DIR or cwd)")
    p.set_defaults(handler=cmd_mcp, opens_journal=False)

    p = sub.add_parser("hook", help="a client's PreToolUse hook (reads JSON on stdin)")
    p.add_argument("client", choices=HOOK_CLIENTS)
    p.set_defaults(handler=cmd_hook, opens_journal=False)

    p = sub.add_parser("setup", help="register the MCP server (and hooks) with a client")
    p.add_argument("client", choices=SETUP_CLIENTS)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--print", dest="mode", action="store_const", const="print", help="show")
    mode.add_argument("--write", dest="mode", action="store_const", const="write", help="merge")
    mode.add_argument(
        "--check",
        dest="mode",
        action="store_const",
        const="check",
        help="report what is missing (Codex: whether it trusts the hook); exit 1 if anything is",
    )
    p.add_argument("--scope", choices=("user", "project"), default="user")
    p.add_argument("--project-dir", default=os.getcwd(), help="for --scope project (cwd)")
    p.add_argument(
        "--trust-hook",
        action="store_true",
        help="codex, with --write: trust our hook through Codex itself (as /hooks does)",
    )
    p.add_argument("--codex", metavar="PROGRAM", help="the Codex program (default: codex on PATH)")
    p.set_defaults(handler=cmd_setup, mode="print")

    p = sub.add_parser("notes", help="agent notes for a workspace (newest first)")
    p.add_argument("--workspace", default=os.getcwd())
    p.add_argument("--goal")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--json", action="store_true")
    p.add_argument("--add", metavar="DECISION", help="append a note instead of listing")
    p.add_argument("--why", help="with --add: why")
    p.set_defaults(handler=cmd_notes)
