"""Journal commands: list, show, history, edit, delete, restore, export, doctor.

`import` lives in `import_cmds` (every source kind, canonical JSON arrays included)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from app.cli import render
from app.cli.app_notice import tell_app_records_changed
from app.cli.exit_codes import DAMAGED, INVALID, OK
from core.corrections import Correction, apply_correction, precheck
from core.doctor import WriteProbe, check_journal, probe_capture_writes, write_findings
from core.exporters import FORMATS, export, render_single
from core.filters import ListFilter
from core.gojson import dumps_indented
from core.gotime import GoTime
from core.index_filter import IndexFilter
from core.journal import Journal
from core.wording import join_words


def _print_json(value: object) -> None:
    sys.stdout.write(dumps_indented(value))


def _add_filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", default="", help="project ID (project-…)")
    parser.add_argument("--domain", default="")
    parser.add_argument("--kind", default="", help="decision kind")
    parser.add_argument("--status", default="", choices=["", "completed", "corrected", "deleted"])
    parser.add_argument(
        "--query",
        default="",
        help="words in the problem, options, reasons, summary, tags or domains; all must match, "
        "the last one as a prefix",
    )
    parser.add_argument("--include-deleted", action="store_true")


def _filter_from(args: argparse.Namespace, limit: int = 0) -> ListFilter:
    return ListFilter(
        project_id=args.project,
        domain=args.domain,
        decision_kind=args.kind,
        status=args.status,
        query=args.query,
        include_deleted=args.include_deleted or args.status == "deleted",
        limit=limit,
    )


def cmd_list(journal: Journal, args: argparse.Namespace) -> int:
    index = journal.index
    records = index.records(
        index.query_ids(IndexFilter.from_list_filter(_filter_from(args, args.limit)))
    )
    for issue in index.issues():
        print(
            f"decision-journal: warning: unreadable record {issue.path}: {issue.error} "
            "(see docs/runbook.md#unreadable-record)",
            file=sys.stderr,
        )
    if args.json:
        _print_json([r.to_go_dict() for r in records])
    elif records:
        print(render.table(render.LIST_HEADERS, render.list_rows(records)))
    else:
        print("No decisions match.")
    return OK


def cmd_show(journal: Journal, args: argparse.Namespace) -> int:
    record = journal.store.get(args.id)
    if args.json:
        _print_json(record.to_go_dict())
    else:
        print(render.details(record))
    return OK


def cmd_history(journal: Journal, args: argparse.Namespace) -> int:
    revisions = journal.store.history(args.id)
    if not revisions:
        journal.store.get(args.id)
    if args.json:
        _print_json([r.to_go_dict() for r in revisions])
        return OK
    rows = [
        [
            str(r.revision),
            r.updated_at.format() if r.updated_at else "",
            r.status,
            r.selected_label(),
        ]
        for r in revisions
    ]
    print(render.table(("REV", "UPDATED", "STATUS", "SELECTED"), rows))
    return OK


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _rejections(pairs: list[str]) -> dict[str, str] | None:
    if not pairs:
        return None
    out = {}
    for pair in pairs:
        option_id, sep, reason = pair.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError(f"--reject expects OPTION_ID=TEXT, got {pair!r}")
        out[option_id.strip()] = reason
    return out


def cmd_edit(journal: Journal, args: argparse.Namespace) -> int:
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
    record = journal.store.revise(
        args.id, args.expected_revision, lambda r: apply_correction(r, correction)
    )
    print(f"Saved {record.id} as revision {record.revision}.")
    tell_app_records_changed(journal)
    return OK


def cmd_delete(journal: Journal, args: argparse.Namespace) -> int:
    record = journal.store.soft_delete(args.id, args.expected_revision)
    print(f"Deleted {record.id} (revision {record.revision}); restore it with `restore`.")
    tell_app_records_changed(journal)
    return OK


def cmd_restore(journal: Journal, args: argparse.Namespace) -> int:
    record = journal.store.restore(args.id, args.expected_revision)
    print(f"Restored {record.id} as revision {record.revision}.")
    tell_app_records_changed(journal)
    return OK


def cmd_export(journal: Journal, args: argparse.Namespace) -> int:
    records = journal.index.list_records(IndexFilter.from_list_filter(_filter_from(args)))
    stamp = GoTime.now().compact_stamp()
    if args.format == "madr":
        if args.output == "-":
            print("decision-journal: error: madr writes a folder; give -o DIR", file=sys.stderr)
            return INVALID
        written = export(
            "madr", records, Path(args.output or f"decisions-{stamp}"), include_private=args.private
        )
        print(f"{os.path.abspath(written[-1].parent)} ({len(written) - 1} decisions)")
        return OK
    if args.output == "-":
        sys.stdout.buffer.write(render_single(args.format, records, include_private=args.private))
        return OK
    default = f"decisions-{stamp}.{_EXTENSIONS[args.format]}"
    target = Path(args.output or default)
    written = export(
        args.format, records, target.parent, file_name=target.name, include_private=args.private
    )
    print(os.path.abspath(written[0]))
    return OK


_EXTENSIONS = {"json": "json", "markdown": "md", "csv": "csv"}


def cmd_reindex(journal: Journal, args: argparse.Namespace) -> int:
    """Drops the search index and reads every record file again."""
    report = journal.index.rebuild()
    if args.json:
        issues = [{"path": i.path, "error": i.error} for i in report.unreadable]
        summary = {"journal": str(journal.root), "indexed": report.added + report.changed}
        print(json.dumps({**summary, "seconds": round(report.seconds, 3), "unreadable": issues}))
        return DAMAGED if report.unreadable else OK
    for issue in report.unreadable:
        print(f"{issue.path}: {issue.error} (see docs/runbook.md#unreadable-record)")
    print(f"Reindexed {report.added + report.changed} record(s) in {report.seconds:.2f} s.")
    return DAMAGED if report.unreadable else OK


def cmd_doctor(journal: Journal, args: argparse.Namespace) -> int:
    if args.reindex:
        return cmd_reindex(journal, args)
    probes = probe_capture_writes(journal.root)
    findings = check_journal(journal.store) + write_findings(probes)
    if args.json:
        summary = {"journal": str(journal.root), "findings": [f.as_dict() for f in findings]}
        print(json.dumps({**summary, "capture": [p.as_dict() for p in probes]}))
        return DAMAGED if findings else OK
    for finding in findings:
        print(f"{finding.path}: {finding.problem} (see docs/runbook.md#{finding.runbook})")
    print(_capture_line(probes))
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
    _add_filters(p)
    p.add_argument("--limit", type=int, default=0)
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

    p = sub.add_parser("edit", help="correct a decision (compare-and-swap)")
    p.add_argument("id")
    p.add_argument("--expected-revision", type=int, required=True)
    choice = p.add_mutually_exclusive_group()
    choice.add_argument("--select", metavar="OPTION_ID")
    choice.add_argument("--custom", metavar="TEXT")
    p.add_argument("--reason")
    p.add_argument("--reject", action="append", default=[], metavar="OPTION_ID=TEXT")
    p.add_argument("--kind")
    p.add_argument("--risk")
    p.add_argument("--domains", metavar="A,B")
    p.add_argument("--tags", metavar="A,B")
    p.add_argument("--alias")
    p.set_defaults(handler=cmd_edit)

    for name, handler, text in (
        ("delete", cmd_delete, "soft-delete a decision (history is kept)"),
        ("restore", cmd_restore, "restore a soft-deleted decision"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("id")
        p.add_argument("--expected-revision", type=int, required=True)
        p.set_defaults(handler=handler)

    p = sub.add_parser("export", help="export decisions (JSON, MADR, Markdown log or CSV)")
    p.add_argument("--private", action="store_true", help="keep private local metadata")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="json",
        help="json: one array; madr: a folder of MADR 4.0 files; markdown: one decisions.md log; "
        "csv: one row per decision",
    )
    _add_filters(p)
    p.add_argument("-o", "--output", help="file to write ('-' for stdout); a folder for madr")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("doctor", help="check records, history chains, permissions and locks")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--reindex", action="store_true", help="rebuild the search index from the records"
    )
    p.set_defaults(handler=cmd_doctor)
