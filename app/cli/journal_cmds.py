"""Journal commands: list, show, history, edit, delete, restore, doctor.

`import` lives in `import_cmds` (every source kind, canonical JSON arrays included), `export`
in `export_cmds`."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli import render
from app.cli.exit_codes import DAMAGED, OK, WRONG_STATE, print_error
from app.cli.filter_args import add_filters, add_limit, filter_from
from app.cli.redact_cmds import add_arguments as add_redact_arguments
from app.cli.repair_cmds import add_arguments as add_repair_arguments
from core.errors import SyncConflictPending
from core.messages import runbook
from core.messages.wording import count, join_words, number
from core.store.location import check_journal_root, journal_root_problem

if TYPE_CHECKING:  # the rest loads in the commands that use it: list and show stay light
    from core.doctor import WriteProbe
    from core.journal import Journal
    from core.record.models import DecisionRecord
    from core.store.correction_notes import CorrectionNote
    from core.sync.conflicts import Conflict
    from core.sync.resolution import Revision

SETTLE_HINT = (
    "choose one first with `sync resolve {id} --keep local|remote`, or repeat with "
    "--settle-conflict to make this change settle it (the version on the other machine is "
    "then set aside)"
)
SETTLE_HELP = (
    "if the decision waits for a choice of version after a sync, settle that conflict with "
    "this change: the current version is kept, the other set aside (without it, the command "
    "refuses with exit code 7)"
)


def _print_json(value: object) -> None:
    from core.gocompat.gojson import dumps_indented

    sys.stdout.write(dumps_indented(value))


def _sync_conflicts(journal: Journal) -> dict[str, Conflict]:
    """The decisions that wait for a choice of version after a sync, by id. core.sync loads
    only for a journal that has any (the folder exists once a sync found one)."""
    if not (journal.root / CONFLICTS_FOLDER).is_dir():
        return {}
    from core.sync.conflicts import list_conflicts

    return {c.record_id: c for c in list_conflicts(journal.root)}


CONFLICTS_FOLDER = "sync-conflicts"
"""`core.sync.paths.CONFLICTS`, named here so that `list` and `show` need not load core.sync."""


def cmd_list(journal: Journal, args: argparse.Namespace) -> int:
    index = journal.index
    ids = index.query_ids(filter_from(journal, args))
    shown = ids[: args.limit] if args.limit else ids
    for issue in index.issues():
        print(
            f"decision-journal: warning: unreadable record {issue.path}: {issue.error} "
            f"({runbook.see('unreadable-record')})",
            file=sys.stderr,
        )
    # Both outputs are written as the index's rows are read, chunk by chunk: the table from
    # the list columns, --json from the cached compact JSON; neither builds a record model.
    if args.json:
        from core.bulk.indented_json import indented_array  # every field, as stored

        compacts = itertools.chain.from_iterable(index.iter_compact(shown))
        sys.stdout.flush()
        sys.stdout.buffer.writelines(indented_array(compacts))
    elif shown:
        conflicted = _sync_conflicts(journal)

        def cells() -> Iterator[list[str]]:
            for chunk in index.iter_rows(shown):
                yield from (render.list_cells(row, conflicted) for row in chunk)

        for line in render.table_lines(render.LIST_HEADERS, cells):
            print(line)
        if len(shown) < len(ids):
            print(f"\n{number(len(shown))} of {count(len(ids), 'decision')}, newest first.")
    else:
        print("No decisions match.")
    return OK


def cmd_show(journal: Journal, args: argparse.Namespace) -> int:
    if args.json:
        _print_json(journal.store.get(args.id).to_go_dict())
        return OK
    # The index's row when it proves the file unchanged since its strict read, else that read.
    record = journal.index.current_shape(args.id) or journal.store.get(args.id)
    print(render.details(record, _sync_conflicts(journal).get(record.id)))
    return OK


def cmd_history(journal: Journal, args: argparse.Namespace) -> int:
    revisions = journal.store.history(args.id)
    if not revisions:
        journal.store.get(args.id)
    if args.json:
        _print_json([r.to_go_dict() for r in revisions])
        return OK
    from core.store.correction_notes import CorrectionNotes

    notes = CorrectionNotes(journal.root).read(args.id)
    rows = [
        [str(r.revision), render.when(r), r.status, r.selected_label(), _note(notes, r.revision)]
        for r in revisions
    ]
    print(render.table(("REV", "UPDATED", "STATUS", "SELECTED", "WHY CORRECTED"), rows))
    return OK


def _note(notes: dict[int, CorrectionNote], revision: int) -> str:
    """The revision's "why corrected" note on one line, with its author when known."""
    note = notes.get(revision)
    if note is None:
        return ""
    text = " ".join(note.note.split())
    return f"{text} (by {note.author})" if note.author else text


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _rejection(text: str) -> tuple[str, str]:
    """One `--reject OPTION_ID=TEXT`; argparse reports a value without `=` as a usage error."""
    option_id, sep, reason = text.partition("=")
    if not sep or not option_id.strip():
        raise argparse.ArgumentTypeError(
            f"expected OPTION_ID=TEXT (the rejected option's id, '=', why it was not chosen), "
            f"got {text!r}"
        )
    return option_id.strip(), reason


def _rejections(pairs: list[tuple[str, str]]) -> dict[str, str] | None:
    return dict(pairs) if pairs else None


def cmd_edit(journal: Journal, args: argparse.Namespace) -> int:
    from core.record.corrections import Correction, apply_correction, precheck

    correction = Correction(
        selected_option_id=args.select,
        custom_selection=args.custom,
        selection_reason=args.reason,
        rejected_reasons=_rejections(args.reject),
        tags=_split(args.tags),
        domains=_split(args.domains),
        decision_kind=args.kind,
        risk_level=args.risk,
        project_alias=args.alias,
    )
    precheck(correction)
    done = _revise(
        journal, args, lambda r: apply_correction(r, correction), "correcting", args.note or ""
    )
    if done is None:
        return WRONG_STATE
    record = done.record
    why = f" (why corrected: {done.note})" if done.note else ""
    print(f"Saved {record.id} as revision {record.revision}{why}.")
    return _after(journal, done)


def cmd_delete(journal: Journal, args: argparse.Namespace) -> int:
    from core.store.decisions import mark_deleted

    if journal.store.get(args.id).is_deleted:
        return _wrong_state(f"decision {args.id} is already deleted; nothing to delete")
    done = _revise(journal, args, mark_deleted, "soft-deleting")
    if done is None:
        return WRONG_STATE
    record = done.record
    print(f"Deleted {record.id} (revision {record.revision}); restore it with `restore`.")
    return _after(journal, done)


def cmd_restore(journal: Journal, args: argparse.Namespace) -> int:
    current = journal.store.get(args.id)
    if not current.is_deleted:
        return _wrong_state(
            f"decision {args.id} is not deleted ({current.status}, revision "
            f"{current.revision}); only a deleted decision can be restored"
        )
    from core.store.decisions import mark_restored

    done = _revise(journal, args, mark_restored, "restoring")
    if done is None:
        return WRONG_STATE
    record = done.record
    print(f"Restored {record.id} as revision {record.revision}.")
    return _after(journal, done)


def _revise(
    journal: Journal,
    args: argparse.Namespace,
    change: Callable[[DecisionRecord], None],
    how: str,
    note: str = "",
) -> Revision | None:
    """The change through the conflict rule; None (after saying why) when a sync conflict
    waits and `--settle-conflict` was not given. `how` is one of `core.sync.resolution`'s
    CORRECTING, DELETING, RESTORING (imported here, not at start: the read commands share
    this module and need none of sync)."""
    from core.sync.resolution import revise, this_machine

    try:
        return revise(
            journal.store,
            args.id,
            args.expected_revision,
            change,
            here=this_machine(journal.store),
            settle=args.settle_conflict,
            note=note,
            how=how,
        )
    except SyncConflictPending as exc:
        hint = SETTLE_HINT.format(id=args.id)
        _wrong_state(f"{exc}; {hint} ({runbook.see(exc.runbook_anchor)})")
        return None


def _after(journal: Journal, done: Revision) -> int:
    """What the change settled or could not save, then the running app is told."""
    from core.sync.resolution import this_machine

    settled = done.settled
    if settled is not None:
        print(
            f"This settled its sync conflict: the version written on {settled.name} is kept; "
            + ("`sync now` shares it." if this_machine(journal.store) else "nothing to share.")
        )
        if not settled.cleared:
            print(
                "Another version arrived meanwhile; `sync status` lists it and "
                "`sync resolve` settles it."
            )
    if done.note_warning:
        print(f"decision-journal: warning: {done.note_warning}", file=sys.stderr)
    from app.cli.app_notice import tell_app_records_changed

    tell_app_records_changed(journal)
    return OK


def _wrong_state(message: str) -> int:
    print_error(message)
    return WRONG_STATE


def cmd_reindex(journal: Journal, args: argparse.Namespace) -> int:
    """Drops the search index and reads every record file again."""
    report = journal.index.read_all_files()
    if args.json:
        issues = [{"path": i.path, "error": i.error} for i in report.unreadable]
        summary = {"journal": str(journal.root), "indexed": report.added + report.changed}
        print(json.dumps({**summary, "seconds": round(report.seconds, 3), "unreadable": issues}))
        return DAMAGED if report.unreadable else OK
    for issue in report.unreadable:
        print(f"{issue.path}: {issue.error} ({runbook.see('unreadable-record')})")
    indexed = count(report.added + report.changed, "record")
    print(f"Reindexed {indexed} in {report.seconds:.2f} s.")
    return DAMAGED if report.unreadable else OK


def cmd_doctor(journal: Journal, args: argparse.Namespace) -> int:
    from app.cli.redact_cmds import cmd_redact
    from app.cli.repair_cmds import cmd_repair, print_findings, unsealed_line
    from core.doctor import (
        check_health,
        free_space_findings,
        probe_capture_writes,
        write_findings,
    )

    if args.reindex or args.redact or args.repair:
        check_journal_root(journal.root)  # plain doctor reports it as a finding instead
    if args.reindex:
        return cmd_reindex(journal, args)
    if args.redact:
        return cmd_redact(journal, args)
    if args.repair:
        return cmd_repair(journal, args)
    from core.sync.health import check_sync  # git and age: only for doctor

    health = check_health(journal.store)
    # A journal path that is a file has no folder to probe: its finding says everything.
    unusable = journal_root_problem(journal.root) is not None
    probes = [] if unusable else probe_capture_writes(journal.root)
    sync = check_sync(journal.root) if not unusable else None
    findings = health.findings + write_findings(probes)
    if sync is not None:
        findings += free_space_findings(journal.root) + sync.findings
    if args.json:
        summary = {"journal": str(journal.root), "findings": [f.as_dict() for f in findings]}
        extra = {
            "unsealed_history_revisions": health.unsealed,
            "sync": sync.remote_line if sync is not None else "",
            "sync_machines": sync.machine_lines if sync is not None else [],
        }
        print(json.dumps({**summary, "capture": [p.as_dict() for p in probes], **extra}))
        return DAMAGED if findings else OK
    print_findings(findings)
    if health.unsealed:
        print(unsealed_line(health.unsealed))
    if probes:
        print(_capture_line(probes))
    if sync is not None and sync.remote_line:
        print(sync.remote_line)
    for line in sync.machine_lines if sync is not None else []:
        print(line)
    if not findings:
        print(f"Journal {journal.root} is healthy.")
    return DAMAGED if findings else OK


def _folders(probes: list[WriteProbe]) -> str:
    return join_words([f"{Path(p.directory).name}/" for p in probes])


def _capture_line(probes: list[WriteProbe]) -> str:
    """One line saying whether the next decision can be saved, and how that was tested."""
    failed = [p for p in probes if not p.ok]
    if failed:
        return f"Capture cannot save decisions: writing failed for {_folders(failed)} (see above)."
    line = f"Capture can write: a test file was created and removed for {_folders(probes)}."
    later = [p for p in probes if not p.exists]
    if later:
        names = _folders(later)
        where = join_words(sorted({p.probed for p in later}))
        line += f" Not created yet: {names} (tested in {where}; the first decision creates them)."
    return line


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("list", help="list decisions, newest first")
    add_filters(p)
    add_limit(p, "list")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("show", help="show one decision")
    p.add_argument("id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("history", help="every revision of one decision")
    p.add_argument("id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_history)

    p = sub.add_parser(
        "edit",
        help="correct a decision (compare-and-swap)",
        description="Correct a decision: the record gets a new revision and the old one stays "
        "in its history. Only the options given change.",
    )
    p.add_argument("id", help="the decision's id (decision-…), as list shows it")
    p.add_argument(
        "--expected-revision",
        type=int,
        required=True,
        metavar="N",
        help="the revision you are correcting (show or list --json gives it); if the record "
        "changed since, nothing is written and the exit code is 4",
    )
    choice = p.add_mutually_exclusive_group()
    choice.add_argument(
        "--select", metavar="OPTION_ID", help="choose another of the listed approaches, by id"
    )
    choice.add_argument("--custom", metavar="TEXT", help="choose an approach of your own")
    p.add_argument("--reason", metavar="TEXT", help="why the chosen approach was chosen")
    p.add_argument(
        "--reject",
        action="append",
        default=[],
        type=_rejection,
        metavar="OPTION_ID=TEXT",
        help="why an option was not chosen (repeat per option)",
    )
    p.add_argument("--kind", metavar="KIND", help="the decision kind (storage-layout, …)")
    p.add_argument("--risk", metavar="RISK", help="low, medium, high or critical")
    p.add_argument("--domains", metavar="A,B", help="replace the domains (comma-separated)")
    p.add_argument("--tags", metavar="A,B", help="replace the tags (comma-separated)")
    p.add_argument("--alias", metavar="TEXT", help="the project's display name")
    p.add_argument(
        "--note",
        metavar="TEXT",
        help="why corrected (optional): kept with this revision beside the journal, listed by "
        "history",
    )
    p.add_argument("--settle-conflict", action="store_true", help=SETTLE_HELP)
    p.set_defaults(handler=cmd_edit)

    for name, handler, text in (
        ("delete", cmd_delete, "soft-delete a decision (history is kept)"),
        ("restore", cmd_restore, "restore a soft-deleted decision"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("id")
        p.add_argument("--expected-revision", type=int, required=True)
        p.add_argument("--settle-conflict", action="store_true", help=SETTLE_HELP)
        p.set_defaults(handler=handler)

    p = sub.add_parser("doctor", help="check records, history chains, permissions and locks")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--reindex", action="store_true", help="rebuild the search index from the records"
    )
    add_redact_arguments(p)
    add_repair_arguments(p)
    p.set_defaults(handler=cmd_doctor, checks_journal_itself=True)
