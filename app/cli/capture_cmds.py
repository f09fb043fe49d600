"""`ask`, `status` and `pending`: capture from scripts and terminals, no Qt imported here.

`status` and `pending` read `pending/` and probe the socket; the capture flow `ask` runs lives
in `app.cli.ask_flow`, loaded by `ask` alone."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.exit_codes import OK
from core import __version__
from core.messages.wording import count, number, span
from core.record.fields import number_rule, rule

if TYPE_CHECKING:
    from core.journal import Journal

PENDING_DIR = "pending"
"""`core.capture.pending.PENDING_DIR`, named here so that listing needs no pending store."""
PROPOSAL_FORMAT = "docs/agents.md#present_implementation_decision"


def cmd_ask(journal: Journal, args: argparse.Namespace) -> int:
    from app.cli.ask_flow import ask

    return ask(journal, args)


def _pending_items(journal: Journal) -> list[dict[str, Any]]:
    """`core.capture.pending.pending_items`, from the pending index when it provably describes
    the pending files (`core.capture.pending_index.listed`): then neither the pending store nor
    the proposal's models load."""
    from core.capture.pending_index import listed

    entries = listed(journal.root / PENDING_DIR)
    if entries is not None:
        from core.bulk.pending_lookup import pending_rows

        return pending_rows(entries, time.time_ns())
    from core.capture.pending import pending_items

    return pending_items(journal.pending)


def _app_is_running(path: Path) -> bool:
    """`core.ipc.client.app_is_running`; the client and its protocol load only when the socket
    exists (without it the probe can only answer "not running")."""
    if not os.path.lexists(path):
        return False
    from core.ipc.client import app_is_running

    return app_is_running(path)


def cmd_status(journal: Journal, args: argparse.Namespace) -> int:
    from core.ipc.runtime_paths import socket_path

    path = socket_path(journal.root)
    items = _pending_items(journal)
    status = {
        "app_running": _app_is_running(path),
        "socket": str(path),
        "journal": str(journal.root),
        "version": __version__,
        "pending": items,
    }
    if args.json:
        print(json.dumps(status, ensure_ascii=False, indent=2))
        return OK
    state = "running" if status["app_running"] else "not running"
    print(f"Decision Journal {__version__}: app {state}")
    print(f"Journal: {journal.root}\nSocket:  {path}")
    print(f"Pending decisions: {number(len(items))}")
    return OK


def _age(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def cmd_pending(journal: Journal, args: argparse.Namespace) -> int:
    items = _pending_items(journal)
    if args.json:
        print(json.dumps(items, ensure_ascii=False, indent=2))
        return OK
    if not items:
        print("No decisions are pending.")
        return OK
    from app.cli.render import ellipsize, table

    rows = [
        [
            i["decision_id"],
            i["stage"],
            _age(int(i["age_seconds"])),
            i["project_alias"],
            ellipsize(i["problem"], 50),
        ]
        for i in items
    ]
    print(table(("ID", "STAGE", "AGE", "PROJECT", "PROBLEM"), rows))
    return OK


_OPTIONS = span(rule("options").least, rule("options").most)
_CONFIDENCE = number_rule("detector_confidence").span()
ASK_DESCRIPTION = f"""\
Ask the human to choose between {_OPTIONS} approaches, in the tray app's window (started when a
display exists), else in this terminal; without either the decision is saved as pending.

The input is one JSON object, either a new proposal:

  {{"problem": "How should records be stored?",
   "decision_kind": "storage-layout",
   "detector_confidence": 0.8,
   "options": [
     {{"id": "per-record-json", "label": "One JSON file per record",
      "description": "records/<id>.json, written atomically", "recommended": true}},
     {{"id": "single-json", "label": "One JSON document",
      "description": "every record in one file"}}]}}

  required: problem ({count(rule("problem").most, "byte")}), decision_kind,
  detector_confidence ({_CONFIDENCE}), options ({_OPTIONS}, each with id, label and
  description; exactly one recommended);
  optional: risk_level, header, domains, languages, evidence_refs, pros/cons per option

or a resume of a decision that is still pending: {{"decision_id": "decision-..."}}.
One decision may be pending per workspace: a new proposal there waits for it."""

ASK_EPILOG = f"""\
The result is JSON on stdout: status "recorded" (exit 0) with the choice and reasons, or
"pending" (exit 3) with the decision id to resume with. An invalid proposal exits 2 and lists
every violation; another decision pending in the workspace exits 3 with its id.
Every field and limit: {PROPOSAL_FORMAT}"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "ask",
        help="ask the human to decide (a proposal or {decision_id})",
        description=ASK_DESCRIPTION,
        epilog=ASK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", nargs="?", default="-", help="proposal JSON file, or - for stdin")
    p.add_argument("--workspace", default=os.getcwd(), help="project directory (default: cwd)")
    p.add_argument("--session", default=f"cli-{os.getppid()}", help="agent session id")
    p.add_argument("--agent", default="", help="who is asking, shown in the window")
    p.add_argument("--no-app", action="store_true", help="never start the tray app")
    p.add_argument("--no-terminal", action="store_true", help="never prompt in the terminal")
    p.set_defaults(handler=cmd_ask)

    p = sub.add_parser("status", help="is the app running, where, and what is pending")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("pending", help="decisions waiting for an answer")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_pending)
