"""The journal window's imports, exports and batch confirmations, as the bridge runs them.

Why apart from the bridge: the bridge only queues these on its transfers lane and turns their
results into signals; what an import, an export, a "Confirm all" and the outcome figures read
and write is here, over the same core functions the CLI calls (`core.importers`,
`core.exporters`, `core.outcomes`). Expected failures come back as fields of an outcome the
dialog can show, never as an exception in the worker.
"""

from __future__ import annotations

from app.gui.journal import conflict_jobs
from app.gui.journal.requests import (
    ExportOutcome,
    ExportRequest,
    ImportOutcome,
    ImportRequest,
    OutcomeFigures,
)
from core.errors import ExportCancelled, UnknownSource, describe
from core.exporters import Progress
from core.importers import make_importer
from core.importers.base import ImportOptions, ProgressCallback
from core.importers.confirm import ConfirmReport, confirm_batch, is_unconfirmed_import
from core.importers.detect import detect_kind
from core.importers.engine import run_import
from core.index.query import IndexFilter
from core.journal import Journal
from core.outcomes.rule_scores import journal_rule_outcomes
from core.outcomes.verdict import acceptance_by_kind

EXPORT_CANCELLED = "Export cancelled; nothing was written."
PROGRESS_STEPS = 200
"""At most this many progress reports per export, so 100,000 records do not flood the queue."""


def throttled(report: Progress) -> Progress:
    """`report`, called for every `total // PROGRESS_STEPS` records and for the last one."""

    def progress(done: int, total: int) -> None:
        step = max(1, total // PROGRESS_STEPS)
        if done == total or done % step == 0:
            report(done, total)

    return progress


def import_source(
    journal: Journal, request: ImportRequest, progress: ProgressCallback
) -> ImportOutcome:
    """Runs one import to its end (or its cancellation); a failure is the outcome's `error`."""
    options = ImportOptions(dry_run=request.dry_run, progress=progress, cancel=request.cancel)
    try:
        kind = request.kind or detect_kind(request.source)
        report = run_import(journal, make_importer(kind), request.source, options)
    except UnknownSource as exc:
        return ImportOutcome(request.cancel, error=str(describe(exc)), unknown_source=True)
    except Exception as exc:  # noqa: BLE001  # shown in the dialog, which stays open
        return ImportOutcome(request.cancel, error=str(describe(exc)))
    return ImportOutcome(request.cancel, report)


def confirm_imported(journal: Journal, flt: IndexFilter) -> ConfirmReport:
    """Confirms every active, still unconfirmed imported decision the filter lists."""
    records = journal.index.list_records(flt)
    ids = [r.id for r in records if not r.is_deleted and is_unconfirmed_import(r)]
    return confirm_batch(journal.store, ids, revise=conflict_jobs.reviser(journal))


def outcome_figures(journal: Journal) -> OutcomeFigures:
    """Acceptance per kind over active records, and per-rule Beta mean and Elo."""
    acceptance = acceptance_by_kind(journal.index.list_shapes(IndexFilter()))
    try:
        rules = journal_rule_outcomes(journal)
    except Exception as exc:  # noqa: BLE001  # a damaged profile or log: the acceptance still shows
        return OutcomeFigures(acceptance, {}, str(describe(exc)))
    return OutcomeFigures(acceptance, rules)


def export(journal: Journal, request: ExportRequest, progress: Progress) -> ExportOutcome:
    """Reads the filter's records (failing closed on unreadable files) and writes them."""
    try:
        records = journal.index.list_records(request.flt)
        progress(0, len(records))
        path = request.fmt.run(
            records,
            request.directory,
            request.when,
            progress,
            request.cancel,
            language=request.language,
        )
        return ExportOutcome(request.cancel, path, len(records), ok=True)
    except ExportCancelled:
        return ExportOutcome(request.cancel, None, 0, ok=False, message=EXPORT_CANCELLED)
    except Exception as exc:  # noqa: BLE001  # shown in the dialog, which stays open
        message = f"Export failed: {describe(exc)}"
        return ExportOutcome(request.cancel, None, 0, ok=False, message=message)
