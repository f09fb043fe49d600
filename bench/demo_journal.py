"""A small, realistic demo journal (three projects) and a launcher that opens the journal window.

Used for screenshots and manual checks, never by the app:

    python -m bench.demo_journal [--dark] [--view journal|profile|waiting|history|edit|export]

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

from core.codec import encode_record
from core.corrections import Correction, apply_correction
from core.gotime import GoTime
from core.identity import evidence_fingerprint, project_identity, task_fingerprint
from core.journal import Journal
from core.models import DecisionRecord, Option, Provenance, RejectedReason
from core.normalize import normalize_record
from core.record_redaction import redact_record
from core.safefs import atomic_write, ensure_private_dir
from core.store import derive_record_id
from core.validation import validate_record

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
    reasons: dict[str, str]


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
        reasons={
            "typed-results": "callers cannot ignore a failure and the type checker shows each case",
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
        reasons={
            "sqlite-wal": "one file survives crashes and reads stay fast while a writer works",
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
        reasons={
            "worker-pool": "results arrive on the UI thread and the UI never waits",
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
        reasons={
            "cursor": "new items never shift a page the client is reading",
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
        reasons={
            "real-widgets": "only real key events prove the keyboard contract",
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
EXTRA_PROBLEMS = (
    "Name the environment variable that points at the journal",
    "Pick the date format for exported file names",
    "Decide how long pagination snapshots stay valid",
    "Choose the default scope of the journal window",
    "Decide whether deleted decisions appear in exports",
    "Choose the retry schedule for failed webhook deliveries",
    "Decide the size cap of one record file",
    "Choose how the tray icon shows waiting decisions",
    "Decide how notes are rotated when files grow",
    "Choose the CSV dialect for exports",
    "Decide whether profile rules can be pinned",
    "Pick the debounce interval for search-as-you-type",
    "Choose the thumbnail cache eviction policy",
    "Decide how to store webhook secrets",
    "Choose the refund idempotency window",
    "Decide the highlight colour of the selected branch",
    "Choose where crash reports are written",
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
            pros=[pro],
            cons=[con],
            recommended=option_id == fork.recommended,
            order=position,
            source="model",
        )
        for position, (option_id, label, description, pro, con) in enumerate(fork.options)
    ]
    listed = {option.id for option in options}
    custom = "" if chosen in listed else chosen
    selected = chosen if chosen in listed else ""
    reason = fork.reasons.get(chosen, "it keeps the moving parts to one scheduled job")
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
            RejectedReason(option_id=o.id, reason=fork.reasons[o.id], source="user")
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


def _extra(rng: random.Random, index: int, problem: str) -> DecisionRecord:
    project = list(PROJECTS)[index % 3]
    fork = FORKS[index % len(FORKS)]
    chosen = fork.options[index % len(fork.options)][0]
    record = _record(rng, Planned(20 + index, project, fork, problem, chosen, 0.7))
    record.decision_kind = rng.choice(["naming", "config", "ux", "retention"])
    record.id = derive_record_id(record)
    return record


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
    records += [_extra(rng, n, problem) for n, problem in enumerate(EXTRA_PROBLEMS)]
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
    for position in (15, 24, 30):
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
    from core.notes import NoteStore

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
    from core.capture import CaptureService

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
    args = parser.parse_args(argv)
    from bench.demo_window import open_demo

    root = Path(args.journal) if args.journal else Path(tempfile.mkdtemp(prefix="dj-demo-"))
    journal = Journal(root) if args.journal else write_demo_journal(root)
    return open_demo(journal, dark=args.dark, view=args.view)


if __name__ == "__main__":
    sys.exit(main())
