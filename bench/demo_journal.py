"""A small, realistic demo journal (three projects) and a launcher that opens the journal window.

Used for screenshots and manual checks, never by the app:

    python -m bench.demo_journal [--dark] [--view journal|profile|waiting|history|edit|export]
    python -m bench.demo_journal --write DIR   # only write the demo journal (`make demo`)

The journal has a few dozen decisions across three projects, corrected ones with history,
soft-deleted ones, a custom "Other" answer, a redacted rationale, one pending decision, agent
notes, and a profile whose rules come from repeated choices.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.gocompat.gotime import GoTime
from core.journal import Journal
from core.record.codec import encode_record
from core.record.corrections import Correction, apply_correction
from core.record.identity import evidence_fingerprint, project_identity, task_fingerprint
from core.record.models import DecisionRecord, Option, Provenance, RejectedReason
from core.record.normalize import normalize_record
from core.record.redact_record import redact_record
from core.record.validation import validate_record
from core.store.decisions import derive_record_id
from core.store.safefs import atomic_write, ensure_private_dir

PROJECTS = {
    "decision-journal": "/home/mina/src/decision-journal",
    "payments-api": "/home/mina/src/payments-api",
    "field-notes": "/home/mina/src/field-notes",
}
DAY_NS = 86_400 * 1_000_000_000
NOW_NS = 1_764_400_000 * 1_000_000_000  # late November 2025


@dataclass(frozen=True)
class Fork:
    """One kind of fork that comes up again and again, with its stable options."""

    kind: str
    domains: tuple[str, ...]
    problems: tuple[str, ...]
    options: tuple[tuple[str, str, str, str, str], ...]  # id, label, description, pro, con
    recommended: str
    chosen_because: dict[str, str]
    rejected_because: dict[str, str]


FORKS = (
    Fork(
        kind="error_handling",
        domains=("api", "reliability"),
        problems=(
            "How should the settlement client report a declined card to its callers?",
            "Report partial upload failures from the sync worker",
            "Surface validation failures from the webhook parser",
            "How should the record store report a revision conflict?",
            "Propagate lock timeouts from the export command",
            "Report unreadable attachments in the notes importer",
        ),
        options=(
            (
                "typed-results",
                "Typed result values",
                "Return Ok/Err values callers must inspect",
                "Failures are visible in signatures",
                "More boilerplate at call sites",
            ),
            (
                "exceptions",
                "Exceptions with a small hierarchy",
                "Raise typed exceptions from one base class",
                "Idiomatic in Python",
                "Easy to forget to catch",
            ),
            (
                "error-codes",
                "Integer error codes",
                "Return codes like the C API",
                "Cheap across FFI",
                "Loses context",
            ),
        ),
        recommended="exceptions",
        chosen_because={
            "typed-results": "callers cannot ignore a failure and the type checker shows each case",
            "exceptions": "the callers are few and a typed exception keeps the happy path short",
            "error-codes": "the value crosses a C boundary where exceptions cannot",
        },
        rejected_because={
            "typed-results": "every call site would need unwrapping for a failure that is rare",
            "exceptions": "a forgotten except clause crashes the worker in production",
            "error-codes": "codes lose the message and the field that failed",
        },
    ),
    Fork(
        kind="storage_backend",
        domains=("storage",),
        problems=(
            "Where should offline drafts live on the device?",
            "Choose the canonical cross-project decision storage layout",
            "Persist idempotency keys for payment retries",
            "Store the search index for large journals",
        ),
        options=(
            (
                "sqlite-wal",
                "SQLite in WAL mode",
                "One database file, write-ahead logging",
                "Crash-safe and fast reads",
                "Single writer",
            ),
            (
                "json-files",
                "One JSON file per item",
                "Plain files in a private directory",
                "Trivially inspectable",
                "Slow to scan at scale",
            ),
            (
                "postgres",
                "Shared Postgres table",
                "Central database with migrations",
                "Queries across hosts",
                "Needs a server",
            ),
        ),
        recommended="sqlite-wal",
        chosen_because={
            "sqlite-wal": "one file survives crashes and reads stay fast while a writer works",
            "json-files": "one file per item merges cleanly in git and a person can read it",
            "postgres": "retries arrive on several hosts and must see one another's keys",
        },
        rejected_because={
            "sqlite-wal": "a binary database file cannot be merged or reviewed in git",
            "json-files": "scanning thousands of files on every query is too slow",
            "postgres": "a server is too much to run for a single-user desktop tool",
        },
    ),
    Fork(
        kind="concurrency",
        domains=("ui", "reliability"),
        problems=(
            "Keep the journal window responsive while exporting",
            "Run image thumbnailing without freezing the editor",
            "Refresh exchange rates without blocking checkout",
        ),
        options=(
            (
                "worker-pool",
                "Worker pool with result signals",
                "Submit work to a pool and deliver results to the UI thread",
                "Never blocks the UI",
                "Callbacks must check staleness",
            ),
            (
                "asyncio",
                "asyncio event loop",
                "Integrate an asyncio loop with the UI loop",
                "Structured concurrency",
                "Two loops to keep in sync",
            ),
            (
                "inline",
                "Do it inline",
                "Run the work on the UI thread",
                "Simplest code",
                "Freezes the window",
            ),
        ),
        recommended="asyncio",
        chosen_because={
            "worker-pool": "results arrive on the UI thread and the UI never waits",
            "asyncio": "the work is network-bound and structured cancellation helps",
            "inline": "the work takes milliseconds, so a thread would only add risk",
        },
        rejected_because={
            "worker-pool": "a pool is more machinery than a few network calls need",
            "asyncio": "bridging two event loops adds failure modes we do not need",
            "inline": "a long export would freeze the window",
        },
    ),
    Fork(
        kind="api_shape",
        domains=("api",),
        problems=(
            "Shape of the refunds endpoint for partial refunds",
            "Paginate the notes listing endpoint",
            "Expose journal search to agents",
        ),
        options=(
            (
                "cursor",
                "Opaque cursors",
                "Return a cursor token for the next page",
                "Stable under inserts",
                "Cannot jump to page N",
            ),
            (
                "offset",
                "Offset and limit",
                "Classic page numbers",
                "Easy to reason about",
                "Skips or repeats rows under inserts",
            ),
        ),
        recommended="cursor",
        chosen_because={
            "cursor": "new items never shift a page the client is reading",
            "offset": "the listing is small and clients want to jump to a page number",
        },
        rejected_because={
            "cursor": "clients need page numbers and the data barely changes",
            "offset": "rows shift under concurrent inserts and clients see duplicates",
        },
    ),
    Fork(
        kind="testing",
        domains=("build",),
        problems=(
            "Test the capture window's keyboard contract",
            "Verify webhook signature handling",
            "Check the sync conflict resolver",
        ),
        options=(
            (
                "real-widgets",
                "Drive real widgets",
                "qtbot with real key events",
                "Tests what users do",
                "Slower",
            ),
            ("mocks", "Mock the toolkit", "Replace widgets with fakes", "Fast", "Tests the mocks"),
            (
                "snapshot",
                "Golden screenshots",
                "Compare rendered images",
                "Catches visual drift",
                "Brittle across fonts",
            ),
        ),
        recommended="real-widgets",
        chosen_because={
            "real-widgets": "only real key events prove the keyboard contract",
            "mocks": "the logic under test does not touch the toolkit at all",
            "snapshot": "the risk is visual drift that no assertion would catch",
        },
        rejected_because={
            "real-widgets": "driving widgets is slow for logic that needs no window",
            "mocks": "mocked widgets would pass while the real dialog is broken",
            "snapshot": "font differences between machines make golden images flaky",
        },
    ),
)

# (project, fork index, problem index, chosen option id or custom text, confidence)
PLAN: tuple[tuple[str, int, int, str, float], ...] = (
    ("payments-api", 0, 0, "typed-results", 0.93),
    ("field-notes", 0, 1, "typed-results", 0.88),
    ("payments-api", 0, 2, "typed-results", 0.91),
    ("decision-journal", 0, 3, "typed-results", 0.95),
    ("decision-journal", 0, 4, "typed-results", 0.9),
    ("field-notes", 0, 5, "exceptions", 0.86),
    ("field-notes", 1, 0, "sqlite-wal", 0.92),
    ("decision-journal", 1, 1, "json-files", 0.97),
    ("payments-api", 1, 2, "postgres", 0.84),
    ("decision-journal", 1, 3, "sqlite-wal", 0.9),
    ("decision-journal", 2, 0, "worker-pool", 0.94),
    ("field-notes", 2, 1, "worker-pool", 0.9),
    ("payments-api", 2, 2, "Cache rates for 60 s and refresh them from a cron job", 0.82),
    ("payments-api", 3, 0, "cursor", 0.85),
    ("field-notes", 3, 1, "cursor", 0.83),
    ("decision-journal", 3, 2, "offset", 0.8),
    ("decision-journal", 4, 0, "real-widgets", 0.96),
    ("payments-api", 4, 1, "real-widgets", 0.87),
    ("field-notes", 4, 2, "real-widgets", 0.81),
)
EXTRA_FORKS: tuple[tuple[str, str, tuple[str, str], tuple[str, str]], ...] = (
    # (problem, kind, (chosen label, why chosen), (rejected label, why rejected))
    (
        "Name the environment variable that points at the journal",
        "naming",
        ("DECISION_JOURNAL_HOME", "it says what it points at and matches the app's name"),
        ("DJ_DIR", "a two-letter prefix collides with other tools' variables"),
    ),
    (
        "Pick the date format for exported file names",
        "naming",
        ("Sortable UTC stamp (20261201-093000Z)", "names sort by time and never depend on locale"),
        ("Locale date (1 Dec 2026)", "locale dates sort wrongly and can contain spaces"),
    ),
    (
        "Decide how long pagination snapshots stay valid",
        "config",
        ("Fifteen minutes", "long enough to read a page, short enough to free memory"),
        ("Until the window closes", "a window left open for days would pin old snapshots"),
    ),
    (
        "Choose the default scope of the journal window",
        "ux",
        ("The current project", "people look for the decisions of what they work on now"),
        ("All projects", "hundreds of unrelated decisions bury the relevant ones"),
    ),
    (
        "Decide whether deleted decisions appear in exports",
        "retention",
        ("Only when asked", "an export is shared, and deleted means not to be shown"),
        ("Always, marked deleted", "a shared file would leak what the user withdrew"),
    ),
    (
        "Choose the retry schedule for failed webhook deliveries",
        "config",
        ("Exponential backoff with jitter", "receivers recover without a thundering herd"),
        ("Every minute for an hour", "fixed intervals hammer a receiver that is down"),
    ),
    (
        "Choose how the tray icon shows waiting decisions",
        "ux",
        ("A badge with the count", "the number tells at a glance how much is waiting"),
        ("A blinking icon", "blinking distracts and says nothing about how many"),
    ),
    (
        "Decide how to store webhook secrets",
        "config",
        ("The OS keyring", "secrets stay encrypted at rest under the user's login"),
        ("A dotfile in the repository", "a committed secret leaks with every clone"),
    ),
)


@dataclass(frozen=True)
class Planned:
    index: int
    project: str
    fork: Fork
    problem: str
    chosen: str
    confidence: float


def _record(rng: random.Random, plan: Planned) -> DecisionRecord:
    index, project, fork, problem = plan.index, plan.project, plan.fork, plan.problem
    chosen, confidence = plan.chosen, plan.confidence
    identity = project_identity(PROJECTS[project])
    options: list[Any] = [  # Option satisfies the fingerprint's option protocol
        Option(
            id=option_id,
            label=label,
            description=description,
            pros=[pro] if pro else [],
            cons=[con] if con else [],
            recommended=option_id == fork.recommended,
            order=position,
            source="model",
        )
        for position, (option_id, label, description, pro, con) in enumerate(fork.options)
    ]
    listed = {option.id for option in options}
    custom = "" if chosen in listed else chosen
    selected = chosen if chosen in listed else ""
    reason = fork.chosen_because.get(chosen, "it keeps the moving parts to one scheduled job")
    session = f"session-{project}-{index // 4}"
    module = rng.choice(["core", "worker", "client", "store"])
    refs = [f"src/{fork.kind}/{module}.py:{rng.randint(10, 400)}"]
    updated = GoTime(NOW_NS - (60 - index) * DAY_NS // 2 - rng.randint(0, 3600) * 1_000_000_000)
    record = DecisionRecord(
        schema_version=1,
        revision=1,
        created_at=updated,
        updated_at=updated,
        session_id=session,
        project_id=identity.project_id,
        project_alias=identity.alias,
        workspace=identity.workspace,
        workspace_hash=identity.workspace_hash,
        domains=list(fork.domains),
        languages=["python"],
        decision_kind=fork.kind,
        risk_level=rng.choice(["low", "medium", "medium", "high"]),
        problem=problem,
        task_fingerprint=task_fingerprint(session, problem),
        evidence_fingerprint=evidence_fingerprint(options, refs),
        options=options,
        recommended_option_id=fork.recommended,
        selected_option_id=selected,
        custom_selection=custom,
        selection_reason_raw=reason,
        rejected_reasons=[
            RejectedReason(option_id=o.id, reason=fork.rejected_because[o.id], source="user")
            for o in options
            if o.id != selected
        ],
        evidence_refs=refs,
        tags=[fork.kind.split("_")[0], project.split("-", maxsplit=1)[0]],
        detector_confidence=confidence,
        status="completed",
        provenance=Provenance(
            options="model", selection="user", rationale="user", summary="runtime"
        ),
    )
    record.id = derive_record_id(record)
    return record


def _extra(rng: random.Random, index: int) -> DecisionRecord:
    """A one-off decision: its problem, two options that answer it, and the reasons."""
    problem, kind, (chosen, why), (rejected, why_not) = EXTRA_FORKS[index]
    fork = Fork(
        kind=kind,
        domains=("ux",) if kind == "ux" else ("config",),
        problems=(problem,),
        options=(
            ("chosen", chosen, chosen, why, ""),
            ("alternative", rejected, rejected, "", why_not),
        ),
        recommended="chosen" if index % 3 else "alternative",
        chosen_because={"chosen": why},
        rejected_because={"alternative": why_not},
    )
    project = list(PROJECTS)[index % 3]
    return _record(rng, Planned(20 + index, project, fork, problem, "chosen", 0.7 + index / 50))


def _write(journal: Journal, record: DecisionRecord) -> None:
    prepared = redact_record(normalize_record(record))
    validate_record(prepared)
    ensure_private_dir(journal.root, journal.store.records_dir)
    atomic_write(journal.root, journal.store.record_path(prepared.id), encode_record(prepared))


def write_demo_journal(root: Path) -> Journal:
    """Writes the demo journal under `root` and returns it, profile built and notes added."""
    journal = Journal(root)
    rng = random.Random(11)
    records = [
        _record(
            rng,
            Planned(n, project, FORKS[fork], FORKS[fork].problems[problem], chosen, confidence),
        )
        for n, (project, fork, problem, chosen, confidence) in enumerate(PLAN)
    ]
    records += [_extra(rng, n) for n in range(len(EXTRA_FORKS))]
    records[1].selection_reason_raw = (
        "typed results keep failures visible; the staging token sk-live-4f9a8b7c6d5e4f3a2b1c "
        "must never reach the logs"
    )
    for record in records:
        _write(journal, record)
    store = journal.store
    store.revise(
        records[0].id,
        1,
        lambda r: apply_correction(
            r, Correction(tags=["errors", "payments", "reviewed"], risk_level="high")
        ),
    )
    store.revise(
        records[9].id,
        1,
        lambda r: apply_correction(
            r, Correction(selection_reason="FTS5 needs SQLite anyway and WAL keeps reads fast")
        ),
    )
    for position in (15, 21, 25):
        store.soft_delete(records[position].id, 1)
    journal.profile.rebuild()
    profile = journal.profile.load()
    if profile.rules:
        journal.profile.set_rule(
            profile.rules[0].id,
            profile.revision,
            pinned=True,
            note="Matches our team guideline for service boundaries",
        )
    _add_notes(journal)
    _add_pending(journal)
    return journal


def _add_notes(journal: Journal) -> None:
    from core.agents.notes import NoteStore

    notes = NoteStore(journal.root)
    for decision, why in (
        ("Kept the snapshot TTL at 15 minutes", "matches the reference dashboard"),
        ("Used QSettings for window geometry", "the platform stores it where users expect"),
        ("Rendered the fork with QPainter", "a drawn tree shows rejected branches at a glance"),
    ):
        notes.append(
            workspace=PROJECTS["decision-journal"],
            decision=decision,
            why=why,
            goal="journal window",
            agent="Claude Code",
            session_id="session-demo",
        )


def _add_pending(journal: Journal) -> None:
    from core.capture.machine import CaptureService

    proposal = {
        "problem": "Should exports include soft-deleted decisions by default?",
        "decision_kind": "export_scope",
        "risk_level": "medium",
        "detector_confidence": 0.9,
        "domains": ["export"],
        "options": [
            {
                "id": "exclude",
                "label": "Exclude them",
                "description": "Match browsing",
                "recommended": True,
            },
            {"id": "include", "label": "Include them", "description": "Complete audit trail"},
        ],
    }
    CaptureService(journal.store, journal.pending).begin(
        proposal,
        workspace=PROJECTS["decision-journal"],
        session_id="session-pending",
        agent="Codex",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dark", action="store_true")
    parser.add_argument(
        "--view",
        default="journal",
        choices=["journal", "profile", "waiting", "history", "edit", "export", "deleted", "custom"],
    )
    parser.add_argument("--journal", help="existing demo journal directory to reuse")
    parser.add_argument(
        "--write", metavar="DIR", help="write the demo journal into DIR (new or empty) and stop"
    )
    args = parser.parse_args(argv)
    if args.write:
        return _write_only(Path(args.write))
    from bench.demo_window import open_demo

    root = Path(args.journal) if args.journal else Path(tempfile.mkdtemp(prefix="dj-demo-"))
    journal = Journal(root) if args.journal else write_demo_journal(root)
    return open_demo(journal, dark=args.dark, view=args.view)


def _write_only(root: Path) -> int:
    """Writes the demo journal where a user asked for it; an existing journal is never touched."""
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        print(f"{root} exists and is not an empty folder; choose another", file=sys.stderr)
        return 2
    journal = write_demo_journal(root)
    count = len(journal.store.list_with_issues().records)
    print(f"Wrote a demo journal of {count} decisions to {root}")
    print(f"Open it: decision-journal --journal {root} app --show")
    return 0


if __name__ == "__main__":
    sys.exit(main())
