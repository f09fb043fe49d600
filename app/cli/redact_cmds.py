"""`decision-journal doctor --redact`: rewrites records that hold secrets newer patterns find,
and the pending decisions, drafts, notes, correction notes and outcome logs that do.

The work is `core.store.redaction_sweep`; this adapter lists what it found, asks before changing
anything (``--yes`` for scripts), and reports what it rewrote. History revisions are only
rewritten in place with ``--purge-history``, because history is otherwise immutable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.exit_codes import CONFLICT, INVALID, OK, print_error
from core.errors import JournalError, RevisionConflict
from core.messages import runbook
from core.messages.wording import count

if TYPE_CHECKING:  # loaded by the command, not by every `doctor`, `list` or `show` that parses
    from core.journal import Journal
    from core.store.redaction_sweep import Survey, Unredacted


def cmd_redact(journal: Journal, args: argparse.Namespace) -> int:
    from core.store.redaction_sweep import find_unredacted, rewritable

    survey = find_unredacted(journal.store)
    if not args.json:
        _print_survey(survey, purge=args.purge_history)
    rewritable_others = [o for o in survey.others if rewritable(journal.root, o)]
    if not survey.current and not rewritable_others and not (args.purge_history and survey.history):
        if args.json:
            print(json.dumps(_summary(journal, survey, [], [], rebuilt=False)))
        return OK
    if not args.yes and not _confirmed(survey, args, len(rewritable_others)):
        return INVALID if not sys.stdin.isatty() or args.json else OK
    return _rewrite(journal, survey, args)


def _rewrite(journal: Journal, survey: Survey, args: argparse.Namespace) -> int:
    from app.cli.app_notice import tell_app_records_changed
    from core.index.scrub import scrub_index
    from core.store.redaction_sweep import (
        find_unredacted,
        purge_history,
        redact_current,
        redact_other_file,
        rewritable,
    )

    rewritten: list[dict[str, object]] = []
    conflicts = 0
    for item in survey.current:
        try:
            record = redact_current(journal.store, item)
        except RevisionConflict as exc:
            conflicts += 1
            print(f"decision-journal: warning: {exc}; run doctor --redact again", file=sys.stderr)
            continue
        rewritten.append({"id": record.id, "revision": record.revision})
    others: list[str] = []
    for other in survey.others:
        if not rewritable(journal.root, other):
            continue
        try:
            if redact_other_file(journal.root, Path(other.path)):
                others.append(other.path)
        except (JournalError, OSError) as exc:
            print(f"decision-journal: warning: {other.path}: {exc}", file=sys.stderr)
    purged: list[dict[str, object]] = []
    if args.purge_history:
        # After the rewrites: each moved the old current revision, secret included, to history.
        for record_id in sorted(
            {item.record_id for item in find_unredacted(journal.store).history}
        ):
            purged.append({"id": record_id, "revisions": purge_history(journal.store, record_id)})
    report = scrub_index(journal.index)
    tell_app_records_changed(journal)
    if args.json:
        summary = _summary(journal, survey, rewritten, purged, rebuilt=True)
        summary["other_files_rewritten"] = others
        print(json.dumps(summary))
    else:
        _print_outcome(journal, rewritten, purged, report.added + report.changed)
        for path in others:
            print(f"Rewrote {path} with its secrets redacted.")
    return CONFLICT if conflicts else OK


def _print_survey(survey: Survey, *, purge: bool) -> None:
    for problem in survey.problems:
        print(f"{problem.path}: {problem.error} ({runbook.see('unreadable-record')})")
    for item in survey.found:
        print(_line(item))
    for other in survey.others:
        print(f"{other.path}: {', '.join(other.patterns)}")
    if not survey.found:
        print("No record or history revision holds text the current patterns redact.")
        return
    if survey.history and not purge:
        print(
            f"{count(len(survey.history), 'history revision')} keep their secret: history is "
            "not rewritten unless you add --purge-history."
        )


def _line(item: Unredacted) -> str:
    where = "history revision" if item.in_history else "revision"
    names = ", ".join(item.patterns) or "redaction of already-named patterns"
    return f"{item.record_id} {where} {item.revision}: {names}"


def _confirmed(survey: Survey, args: argparse.Namespace, others: int) -> bool:
    plan = f"rewrite {count(len(survey.current), 'record')} as a new revision"
    if others:
        plan += f" and redact {count(others, 'other file')} in place"
    if args.purge_history:
        plan += " and rewrite history revisions in place"
    if args.json or not sys.stdin.isatty():
        print_error(
            f"doctor --redact would {plan}; add --yes to confirm when not asked at a terminal"
        )
        return False
    answer = input(f"{plan[0].upper()}{plan[1:]} and rebuild the search index? [y/N] ")
    if answer.strip().lower() in {"y", "yes"}:
        return True
    print("Nothing was changed.")
    return False


def _print_outcome(
    journal: Journal,
    rewritten: list[dict[str, object]],
    purged: list[dict[str, object]],
    indexed: int,
) -> None:
    for row in rewritten:
        print(f"Rewrote {row['id']} as revision {row['revision']}.")
    for row in purged:
        revisions = row["revisions"]
        assert isinstance(revisions, list)
        listed = ", ".join(str(number) for number in revisions)
        print(f"Purged {row['id']} history revisions {listed} in place.")
    print(f"Rebuilt the search index of {journal.root} from {count(indexed, 'record')}.")


def _summary(
    journal: Journal,
    survey: Survey,
    rewritten: list[dict[str, object]],
    purged: list[dict[str, object]],
    *,
    rebuilt: bool,
) -> dict[str, object]:
    found = [
        {
            "id": item.record_id,
            "revision": item.revision,
            "history": item.in_history,
            "patterns": list(item.patterns),
        }
        for item in survey.found
    ]
    return {
        "journal": str(journal.root),
        "found": found,
        "rewritten": rewritten,
        "purged": purged,
        "index_rebuilt": rebuilt,
        "other_files": [{"path": o.path, "patterns": list(o.patterns)} for o in survey.others],
        "problems": [{"path": p.path, "error": p.error} for p in survey.problems],
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The doctor options of this command."""
    parser.add_argument(
        "--redact",
        action="store_true",
        help="find records, pending decisions, drafts, notes and outcome logs holding secrets "
        "that newer patterns recognise and rewrite them",
    )
    parser.add_argument("--yes", action="store_true", help="with --redact: rewrite without asking")
    parser.add_argument(
        "--purge-history",
        action="store_true",
        help="with --redact: also rewrite old history revisions in place (history is "
        "otherwise never changed)",
    )
