"""`sync`: one journal on several machines through a git remote, end-to-end encrypted.

A thin layer over `core.sync`: it reads the pairing string, prints one clear line per outcome
and maps sync failures to the CLI's exit codes; every failure names its runbook entry. Offline
is not a failure: `sync now` says it will retry and exits 0. A running app is told after every
command that changes the journal or whether it syncs, so it syncs (or stops) at once.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable
from typing import TextIO

from app.cli.app_notice import tell_app_records_changed
from app.cli.exit_codes import (
    CONFLICT,
    DAMAGED,
    OK,
    UNEXPECTED,
    WRONG_STATE,
    exit_codes_help,
    print_error,
    report_error,
)
from app.cli.render import local_time
from core.errors import (
    CONFLICT_ENTRY,
    INTERRUPTED_ENTRY,
    OFFLINE_ENTRY,
    PEER_QUIET_ENTRY,
    REFUSED_ENTRY,
    SET_UP_ENTRY,
    LockCancelled,
    SyncError,
)
from core.gocompat.gotime import GoTime
from core.journal import Journal
from core.messages import runbook
from core.messages.wording import count
from core.sync import conflicts
from core.sync.crypto import SyncKey
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.peers import machine_line, quiet_text
from core.sync.report import OFFLINE, ROLLBACK, Refusal, SyncReport, entries_of
from core.sync.resolution import resolve_conflict, this_machine
from core.sync.status import sync_status

KEY_WARNING = (
    "WARNING: this pairing string opens every file this journal ever pushed. Keep it in a "
    "password manager; anyone holding it and the remote can read your decisions. Without it "
    "a lost machine's journal cannot be read back from the remote."
)
SYNC_OUTCOMES: dict[int, str] = {
    OK: "synced, or offline: it retries",
    CONFLICT: "conflicts wait: `sync status` lists them",
    DAMAGED: "files the remote sent were refused, each named, and the rest applied",
    WRONG_STATE: "`sync off` with commits not yet pushed, `export-key` of a plain remote",
}
"""The codes `sync` returns without an error class; `register` lists them with those the sync
errors declare (`exit_codes_help`)."""
NAME_HELP = "this machine's name in status and conflicts (default: its host name)"
REFUSALS_SHOWN = 20
"""Refusals printed by `sync now`; `sync status --json` lists the first hundred."""


def _engine(journal: Journal) -> SyncEngine:
    return SyncEngine(journal.root, interactive=sys.stdin.isatty())


def _run(action: Callable[[], int]) -> int:
    """Runs a sync action; a sync failure is one stderr line (and what it refused before it
    stopped) and its exit code."""
    try:
        return action()
    except SyncError as exc:  # each declares its exit code (listed in `sync --help`)
        code = report_error(exc)
        _print_refusals(getattr(getattr(exc, "report", None), "refused", []), file=sys.stderr)
        return code
    except LockCancelled as exc:  # another sync (the app's, another terminal's) ran long
        _refuse(f"{exc}; another sync is running", INTERRUPTED_ENTRY)
        return UNEXPECTED


def _refuse(message: str, entry: str) -> None:
    print_error(f"{message} ({runbook.see(entry)})")


def _finish(journal: Journal, report: SyncReport, *, set_up: bool = False) -> int:
    """Prints the outcome and refreshes this machine's caches from what arrived; a running
    app is told when files arrived, and after `init` or `join` (`set_up`) so it starts
    syncing."""
    if report.received:
        journal.index.read_changed_files()
        journal.profile.rebuild()
    if report.received or set_up:
        tell_app_records_changed(journal)
    if report.result == OFFLINE:
        print(
            f"Sync: offline, will retry ({report.detail or 'remote unreachable'}); "
            f"local changes are committed and wait ({runbook.see(OFFLINE_ENTRY)})."
        )
        return OK
    if report.refused:
        print(
            f"Synced with refusals: {_what_moved(report, set_up=set_up)}; "
            f"{report.applied} applied, {count(len(report.refused), 'file')} refused "
            f"({'; '.join(runbook.see(e) for e in entries_of(report.refused))}):"
        )
        _print_refusals(report.refused)
    else:
        print(f"Synced: {_what_moved(report, set_up=set_up)}.")
    waiting = conflicts.list_conflicts(journal.root)
    for record_id in report.new_conflicts:
        print(f"Conflict: {record_id} was changed on two machines; both versions are kept.")
    if waiting:
        print(
            f"Waiting: {count(len(waiting), 'conflict')}; `decision-journal sync status` lists "
            "them, `sync resolve ID --keep local|remote` settles one "
            f"({runbook.see(CONFLICT_ENTRY)})."
        )
        return CONFLICT
    return DAMAGED if report.refused else OK


def _print_refusals(refusals: list[Refusal], *, file: TextIO = sys.stdout) -> None:
    for refusal in refusals[:REFUSALS_SHOWN]:
        print(f"  refused {refusal.line()}", file=file)
    if len(refusals) > REFUSALS_SHOWN:
        print(f"  … and {len(refusals) - REFUSALS_SHOWN:,} more (`sync status --json`)", file=file)


def _what_moved(report: SyncReport, *, set_up: bool = False) -> str:
    """Files sent and received; commits pushed when some waited from an earlier sync (one
    that was offline or failed), which "0 files sent" would leave unsaid. `init` and `join`
    push their own first commit, which waited for nothing."""
    sent = f"{count(report.sent, 'file')} sent"
    if set_up:
        return f"{sent}, {count(report.received, 'file')} received"
    if report.waited and any(refusal.kind == ROLLBACK for refusal in report.refused):
        # the remote went back: these commits had been pushed, and go out again
        again = f"{count(report.waited, 'commit')} pushed again (the remote had lost them)"
        sent = again if not report.sent else f"{sent} (and {again})"
    elif report.waited and not report.sent:
        sent = f"{count(report.waited, 'waiting commit')} pushed (from an earlier sync)"
    elif report.waited:
        sent += f" (and {count(report.waited, 'waiting commit')} from an earlier sync)"
    return f"{sent}, {count(report.received, 'file')} received"


def cmd_init(journal: Journal, args: argparse.Namespace) -> int:
    def run() -> int:
        report = _engine(journal).init(
            args.remote,
            encrypt=not args.no_encrypt,
            key_file=args.key_file or "",
            name=args.name or "",
        )
        if not args.no_encrypt:
            print(
                "Sync key created and stored; run `decision-journal sync export-key` once "
                "and keep the pairing string safe: a lost key means a remote nobody can read."
            )
        return _finish(journal, report, set_up=True)

    return _run(run)


def _read_pairing(args: argparse.Namespace) -> SyncKey | None:
    """The key from --key-file, or the pairing string on stdin (not echoed on a terminal)."""
    if args.key_file:
        return load_key(KeyLocation("file", "", args.key_file))
    if sys.stdin.isatty():
        text = getpass.getpass(
            "Paste the pairing string from `sync export-key` (empty for a plain remote): "
        ).strip()
    else:
        text = sys.stdin.readline().strip()
    return SyncKey.parse(text) if text else None


def cmd_join(journal: Journal, args: argparse.Namespace) -> int:
    def run() -> int:
        key = _read_pairing(args)
        report = _engine(journal).join(
            args.remote, key=key, key_file=args.key_file or "", name=args.name or ""
        )
        return _finish(journal, report, set_up=True)

    return _run(run)


def cmd_now(journal: Journal, args: argparse.Namespace) -> int:
    return _run(lambda: _finish(journal, _engine(journal).sync()))


def cmd_name(journal: Journal, args: argparse.Namespace) -> int:
    def run() -> int:
        engine = _engine(journal)
        name = engine.rename(args.name)
        shared = "; the next sync tells the other machines" if engine.config().encrypted else ""
        print(f"This machine ({engine.config().machine}) is now named {name!r}{shared}.")
        tell_app_records_changed(journal)
        return OK

    return _run(run)


def cmd_status(journal: Journal, args: argparse.Namespace) -> int:
    def run() -> int:
        status = sync_status(_engine(journal))
        if args.json:
            print(json.dumps(status, ensure_ascii=False, indent=2))
            return OK
        for line in _status_lines(status):
            print(line)
        return OK

    return _run(run)


def _status_lines(status: dict[str, object]) -> list[str]:
    if not status["configured"]:
        return ["Sync: off (`decision-journal sync init --remote URL` to start)."]
    lines = [
        f"Sync: {status['state']}",
        f"Remote: {status['remote']} ({'age-encrypted' if status['encrypted'] else 'plain'})",
        f"Key: {status['key_storage']}",
        f"Machine: {status['machine_name']} ({status['machine']}; `sync name NAME` renames it)",
        f"Last sync: {_last_sync(str(status['last_sync_at']))} ({status['last_result'] or '-'})",
        f"Waiting to push: {count(int(status['pending_commits']), 'commit')}",  # type: ignore[call-overload]
    ]
    here = status["machine"]
    for peer in status.get("machines", []):  # type: ignore[attr-defined]
        line = machine_line(peer, _last_sync)
        lines.append(line[:1].upper() + line[1:])
    for peer in status.get("machines", []):  # type: ignore[attr-defined]
        if peer["quiet_seconds"]:
            lines.append(f"Warning: {quiet_text(peer)} ({runbook.see(PEER_QUIET_ENTRY)})")
    if status["last_error"]:
        lines.append(f"Last error: {status['last_error']}")
    if status["refused_count"]:
        kept = [Refusal.from_dict(raw) for raw in status["refusals"]]  # type: ignore[attr-defined]
        see = "; ".join(runbook.see(e) for e in entries_of(kept) or [REFUSED_ENTRY])
        lines.append(
            f"Refused: {count(int(status['refused_count']), 'file')} the remote sent, at "  # type: ignore[call-overload]
            f"{_last_sync(str(status['refused_at']))} ({see})"
        )
        lines += [f"  {refusal.line()}" for refusal in kept[:REFUSALS_SHOWN]]
    for item in status["conflicts"]:  # type: ignore[attr-defined]
        versions = ", ".join(
            f"{info['name'] or machine} ({machine}{', this machine' if machine == here else ''})"
            f" revisions {info['revisions']}"
            for machine, info in item["versions"].items()
        )
        lines.append(f"Conflict {item['id']} from revision {item['fork_revision']}: {versions}")
    return lines


def _last_sync(stamp: str) -> str:
    """The last sync's time on the user's clock, as the rest of the CLI shows times."""
    if not stamp:
        return "never"
    moment = GoTime.parse_or_none(stamp)
    return local_time(moment) if moment is not None else stamp


def cmd_off(journal: Journal, args: argparse.Namespace) -> int:
    def run() -> int:
        engine = _engine(journal)
        status = sync_status(engine)
        if status["pending_commits"] and not args.force:
            _refuse(
                f"{count(status['pending_commits'], 'local commit')} not yet on the remote; "
                "`sync now` first, or `sync off --force`",
                SET_UP_ENTRY,
            )
            return WRONG_STATE
        engine.off(forget_key=args.forget_key)
        tell_app_records_changed(journal)
        kept = "removed from" if args.forget_key else "kept in"
        print(f"Sync is off; the journal is unchanged and the key is {kept} its store.")
        return OK

    return _run(run)


def cmd_export_key(journal: Journal, args: argparse.Namespace) -> int:
    def run() -> int:
        engine = _engine(journal)
        if not engine.config().encrypted:
            _refuse("this journal syncs without encryption: there is no key", SET_UP_ENTRY)
            return WRONG_STATE
        print(KEY_WARNING, file=sys.stderr)
        print(load_key(engine.config().key_location).secret)
        return OK

    return _run(run)


def cmd_resolve(journal: Journal, args: argparse.Namespace) -> int:
    def run() -> int:
        here = this_machine(journal.store)  # "" after `sync off`: the folder stays behind
        done = resolve_conflict(journal.store, args.id, args.keep, here)
        record = done.record
        shares = "; `sync now` shares it" if here else ""
        print(
            f"Resolved {record.id}: the version written on {done.name} ({done.machine}) is "
            f"revision {record.revision}{shares}."
        )
        if not done.cleared:
            print(
                "Another version arrived while resolving; `sync status` lists it and "
                "`sync resolve` settles it."
            )
        tell_app_records_changed(journal)
        return OK

    return _run(run)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sync",
        help="one journal on several machines through a git remote, end-to-end encrypted",
        epilog=exit_codes_help(SYNC_OUTCOMES, family=SyncError, title="sync exit codes"),
    )
    words = p.add_subparsers(dest="sync_command", metavar="ACTION", required=True)

    q = words.add_parser("init", help="first machine: push this journal to an empty remote")
    q.add_argument("--remote", required=True, metavar="URL")
    q.add_argument("--no-encrypt", action="store_true", help="push plain files (not advised)")
    q.add_argument(
        "--key-file", metavar="PATH", help="keep the key in PATH (0600), not the keyring"
    )
    q.add_argument("--name", metavar="NAME", help=NAME_HELP)
    q.set_defaults(handler=cmd_init)

    q = words.add_parser("join", help="another machine: sync with a remote `sync init` made")
    q.add_argument("--remote", required=True, metavar="URL")
    q.add_argument(
        "--key-file", metavar="PATH", help="read the key from PATH (0600) and keep it there"
    )
    q.add_argument("--name", metavar="NAME", help=NAME_HELP)
    q.set_defaults(handler=cmd_join)

    q = words.add_parser("name", help="name this machine (shown in status and conflicts)")
    q.add_argument("name", metavar="NAME", help="1 to 40 printable characters")
    q.set_defaults(handler=cmd_name)

    q = words.add_parser("now", help="sync once now")
    q.set_defaults(handler=cmd_now)

    q = words.add_parser("status", help="state, last sync, key storage and conflicts")
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=cmd_status)

    q = words.add_parser("off", help="stop syncing (the journal and the remote stay as they are)")
    q.add_argument("--force", action="store_true", help="even with commits not yet pushed")
    q.add_argument("--forget-key", action="store_true", help="also delete the key from the keyring")
    q.set_defaults(handler=cmd_off)

    q = words.add_parser("export-key", help="print the pairing string (for `sync join`)")
    q.set_defaults(handler=cmd_export_key)

    q = words.add_parser(
        "resolve", help="settle a sync conflict: keep one version as a new revision"
    )
    q.add_argument("id")
    q.add_argument("--keep", required=True, metavar="local|remote|MACHINE")
    q.set_defaults(handler=cmd_resolve)
