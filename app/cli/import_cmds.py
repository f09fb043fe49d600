"""Import commands: `import SOURCE` from other tools (with --watch), and `confirm` of imports."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from app.cli.app_notice import tell_app_records_changed
from app.cli.exit_codes import INVALID, OK, print_error
from core.errors import InvalidDecision
from core.gocompat.gotime import GoTime
from core.importers import KINDS, make_importer
from core.importers.base import ImportOptions, ImportProgress, ImportReport
from core.importers.confirm import Reviser, confirm_batch, unconfirmed_imports
from core.importers.detect import detect_kind
from core.importers.engine import run_import
from core.importers.sources.claude_code import default_source
from core.importers.sources.decider_policy import ExclusionPolicy
from core.importers.watch import DEFAULT_INTERVAL, interval_problem, watch
from core.journal import Journal
from core.messages.wording import number
from core.record.models import DecisionRecord

_BAR = 24
_SHOWN = 10


def parse_since(text: str) -> GoTime:
    """YYYY-MM-DD (midnight UTC) or a full RFC 3339 time."""
    value = text.strip()
    try:
        return GoTime.parse(value if "T" in value else f"{value}T00:00:00Z")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--since expects YYYY-MM-DD, got {text!r}") from exc


class ProgressBar:
    """A one-line bar on a terminal; silent when the stream is not a terminal (scripts, CI)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.drawn = False

    def __call__(self, tick: ImportProgress) -> None:
        if not self.enabled:
            return
        fraction = tick.fraction
        filled = int(_BAR * fraction) if fraction is not None else 0
        bar = "#" * filled + "-" * (_BAR - filled)
        of = f"/{number(tick.total)}" if tick.total is not None else ""
        self.stream.write(
            f"\r{tick.kind} [{bar}] {number(tick.done)}{of}  read {number(tick.read)}, "
            f"imported {number(tick.imported)}"
        )
        self.stream.flush()
        self.drawn = True
        if tick.finished:
            self.stream.write("\n")
            self.drawn = False


def _summary(report: ImportReport) -> str:
    written = ", ".join(f"{number(n)} {k}" for k, n in sorted(report.written.items()) if n)
    prefix = "dry run: would have " if report.dry_run else ""
    line = (
        f"{report.kind}: {prefix}read {number(report.read)}, imported {number(report.imported)}, "
        f"unchanged {number(report.unchanged)}, skipped {number(len(report.skipped))}, "
        f"conflicts {number(len(report.conflicts))}, errors {number(len(report.errors))}"
    )
    suffix = " (cancelled)" if report.cancelled else ""
    return line + (f" ({written})" if written else "") + suffix


def print_report(report: ImportReport, out: TextIO, err: TextIO) -> None:
    print(_summary(report), file=out)
    if report.kind == "json":  # the line scripts of the first `import FILE` already parse
        print(
            f"inserted {report.imported}, unchanged {report.unchanged}, "
            f"conflicting {len(report.conflicts)}, invalid {len(report.errors)}",
            file=out,
        )
    for reason, count in report.skipped_by_reason():
        print(f"  skipped {number(count)}: {reason}", file=out)
    for conflict in report.conflicts[:_SHOWN]:
        print(f"conflict: {conflict.key}: {conflict.message}", file=err)
    for error in report.errors[:_SHOWN]:
        print_error(f"{error.where}: {error.message}", err)
    hidden = max(0, len(report.conflicts) - _SHOWN) + max(0, len(report.errors) - _SHOWN)
    if hidden:
        print(f"... and {number(hidden)} more (use --json for every item)", file=err)


def _policy(args: argparse.Namespace) -> ExclusionPolicy:
    policy = ExclusionPolicy.of(args.human_only, args.personal_data)
    if args.policy:
        try:
            policy = policy.merged(ExclusionPolicy.from_file(Path(args.policy)))
        except (OSError, ValueError) as exc:
            raise InvalidDecision(f"cannot read --policy: {exc}", field="policy") from exc
    return policy


def _source_and_kind(args: argparse.Namespace) -> tuple[Path, str]:
    if args.source is None:
        if args.kind not in (None, "claude-code"):
            raise InvalidDecision(f"import --from {args.kind} needs a SOURCE", field="source")
        return default_source(), "claude-code"
    source = Path(args.source).expanduser()
    if not source.exists():
        raise InvalidDecision(f"import source {source} does not exist", field="source")
    return source, args.kind or detect_kind(source)


def cmd_import(journal: Journal, args: argparse.Namespace) -> int:
    if args.watch and (problem := interval_problem(args.interval)):
        raise InvalidDecision(f"--interval {problem}", field="interval")
    source, kind = _source_and_kind(args)
    bar = ProgressBar(sys.stderr)
    cancel = threading.Event()
    options = ImportOptions(dry_run=args.dry_run, since=args.since, progress=bar, cancel=cancel)
    policy = _policy(args)
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())  # Ctrl-C stops cleanly
    try:
        if args.watch:
            report = _watch(
                journal,
                source,
                kind=kind,
                options=options,
                interval=args.interval,
                policy=policy,
                quiet=args.json,
            )
        else:
            report = run_import(journal, make_importer(kind, policy=policy), source, options)
    finally:
        signal.signal(signal.SIGINT, previous)
    if report.imported and not report.dry_run:
        tell_app_records_changed(journal)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print_report(report, sys.stdout, sys.stderr)
    return INVALID if report.errors else OK


def _watch(
    journal: Journal,
    source: Path,
    *,
    kind: str,
    options: ImportOptions,
    interval: float,
    policy: ExclusionPolicy,
    quiet: bool,
) -> ImportReport:
    total = ImportReport(kind=kind, source=str(source), dry_run=options.dry_run)

    def on_pass(report: ImportReport) -> None:
        total.absorb(report)
        if report.imported and not report.dry_run:
            tell_app_records_changed(journal)
        if not quiet and (report.imported or report.errors or report.conflicts):
            print_report(report, sys.stdout, sys.stderr)
            sys.stdout.flush()

    if not quiet:
        print(f"Watching {source} for new answers (Ctrl-C stops).", flush=True)
    quiet_options = ImportOptions(
        dry_run=options.dry_run, since=options.since, progress=None, cancel=options.cancel
    )
    try:
        watched = watch(
            journal,
            source,
            kind=kind,
            options=quiet_options,
            interval=interval,
            on_pass=on_pass,
            policy=policy,
        )
        total.cancelled = watched.cancelled
    except KeyboardInterrupt:
        total.cancelled = True
    if not quiet:
        print("Stopped watching; in total:")
    return total


def _through_conflict_rule(journal: Journal) -> Reviser:
    """A confirmation is a correction: one of a decision that waits for a choice of version
    after a sync is refused (`sync resolve` first), as `edit` without --settle-conflict is."""
    from core.sync.resolution import revise, this_machine  # loaded only to confirm

    store = journal.store
    here = this_machine(store)

    def write(
        record_id: str, expected: int, change: Callable[[DecisionRecord], None]
    ) -> DecisionRecord:
        return revise(store, record_id, expected, change, here=here).record

    return write


def cmd_confirm(journal: Journal, args: argparse.Namespace) -> int:
    ids = list(args.ids)
    if args.all:
        ids += [r.id for r in unconfirmed_imports(journal.store, args.kind or "")]
    if not ids:
        print("Nothing to confirm.")
        return OK
    revise = _through_conflict_rule(journal)
    report = confirm_batch(journal.store, dict.fromkeys(ids), revise=revise)
    if report.confirmed:
        tell_app_records_changed(journal)
    if args.json:
        print(
            json.dumps(
                {
                    "confirmed": report.confirmed,
                    "already": report.already,
                    "failed": [{"id": i, "error": e} for i, e in report.failed],
                }
            )
        )
    else:
        print(
            f"confirmed {number(len(report.confirmed))}, already confirmed "
            f"{number(len(report.already))}, failed {number(len(report.failed))}"
        )
        for record_id, error in report.failed:
            print(f"failed: {record_id}: {error}", file=sys.stderr)
    return INVALID if report.failed else OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import",
        help="import decisions from another tool (kind detected, or --from KIND)",
        description="Imports are idempotent: a second run adds nothing. Imported records are "
        "marked `imported` and are not preference evidence until confirmed (`confirm`).",
    )
    p.add_argument(
        "source", nargs="?", help="file or folder (default for claude-code: ~/.claude/projects)"
    )
    p.add_argument("--from", dest="kind", choices=KINDS, help="source kind (default: detected)")
    p.add_argument("--dry-run", action="store_true", help="report what would happen; write nothing")
    p.add_argument("--since", type=parse_since, metavar="DATE", help="skip items dated before")
    p.add_argument("--watch", action="store_true", help="keep importing new items as they appear")
    p.add_argument("--interval", type=float, default=DEFAULT_INTERVAL, help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.add_argument(
        "--human-only",
        action="append",
        default=[],
        metavar="INITIATIVE",
        help="decider: an initiative whose rows are never imported",
    )
    p.add_argument(
        "--personal-data",
        action="append",
        default=[],
        metavar="PATTERN",
        help="decider: a word (or /regex/i) marking rows as personal data",
    )
    p.add_argument("--policy", metavar="FILE", help="decider: JSON exclusion policy file")
    p.set_defaults(handler=cmd_import)

    p = sub.add_parser("confirm", help="confirm imported records as your own decisions")
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--all", action="store_true", help="every unconfirmed imported record")
    p.add_argument("--from", dest="kind", choices=KINDS, help="with --all: only this source")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_confirm)
