"""One decision's work, run in the bridge's `records` lane: its history, its revisions, repairs.

Why a module of its own, without Qt: what a save answers (saved, nothing changed, refused,
changed elsewhere with the newer revision) is decided here, once, for the edit form, the
soft-delete and restore confirmations and "Confirm as my decision"; the bridge only hands the
`MutationResult` to a signal. Every revision goes through `conflict_jobs.revise`, so the sync
conflict rule holds for each of them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.gui.journal import conflict_jobs
from app.gui.journal.requests import MovedAside, MutationResult, RevisionHistory
from core.errors import (
    InvalidDecision,
    JournalError,
    NoChanges,
    NotFound,
    RevisionConflict,
    SyncConflictPending,
    describe,
)
from core.importers.confirm import confirmation
from core.index.rows import IndexReadReport
from core.journal import Journal, catch_up
from core.profile.worker import ProfileRebuildWorker
from core.record.corrections import Correction, apply_correction
from core.store.correction_notes import CorrectionNotes
from core.store.decisions import mark_deleted, mark_restored
from core.store.quarantine import move_aside
from core.sync.resolution import CORRECTING, DELETING, RESTORING, Revision

Progress = Callable[[int, int], None]


def history(journal: Journal, decision_id: str) -> RevisionHistory:
    """Every revision, oldest first, with the "why corrected" notes kept beside them."""
    revisions = journal.store.history(decision_id)
    return RevisionHistory(revisions, CorrectionNotes(journal.root).read(decision_id))


def correct(  # noqa: PLR0913  # the form's request, as the bridge passes it on
    journal: Journal,
    decision_id: str,
    expected: int,
    correction: Correction,
    note: str = "",
    *,
    settle: bool = False,
) -> Revision:
    """The edit form's save, with its note; `settle`: the form said it settles a conflict."""
    return conflict_jobs.revise(
        journal,
        decision_id,
        expected,
        lambda record: apply_correction(record, correction),
        settle=settle,
        how=CORRECTING,
        note=note,
    )


def soft_delete(journal: Journal, decision_id: str, expected: int, *, settle: bool) -> Revision:
    return conflict_jobs.revise(
        journal, decision_id, expected, mark_deleted, settle=settle, how=DELETING
    )


def restore(journal: Journal, decision_id: str, expected: int, *, settle: bool) -> Revision:
    return conflict_jobs.revise(
        journal, decision_id, expected, mark_restored, settle=settle, how=RESTORING
    )


def confirm_import(journal: Journal, decision_id: str, expected: int) -> Revision:
    """An imported record confirmed as the user's own; a confirmation is a correction, so it
    is refused on a decision in a sync conflict as any correction is."""
    return conflict_jobs.revise(
        journal, decision_id, expected, confirmation(), settle=False, how=CORRECTING
    )


def mutate(
    journal: Journal, action: str, decision_id: str, run: Callable[[], Revision]
) -> MutationResult:
    """Runs one revision and says how it went; an unexpected error stays an exception."""
    try:
        done = run()
    except NoChanges:
        return MutationResult(action, decision_id, no_changes=True)
    except InvalidDecision as exc:
        return MutationResult(action, decision_id, error=str(describe(exc)), field=exc.field or "")
    except SyncConflictPending as exc:
        return MutationResult(action, decision_id, error=str(describe(exc)), settled=True)
    except RevisionConflict as exc:
        try:
            newer = journal.store.get(decision_id)
        except (NotFound, OSError):
            newer = None
        return MutationResult(action, decision_id, newer=newer, error=str(describe(exc)))
    return MutationResult(
        action,
        decision_id,
        record=done.record,
        warning=done.note_warning,
        settled=done.settled is not None,
    )


def failed_mutation(action: str, decision_id: str, exc: BaseException) -> MutationResult:
    """What an unexpected error in `mutate` answers: its description, never a traceback."""
    return MutationResult(action, decision_id, error=str(describe(exc)))


def read_changed_files(
    journal: Journal, worker: ProfileRebuildWorker, progress: Progress
) -> IndexReadReport:
    """Catches the index up with files other processes wrote; the profile hears of changes."""
    return catch_up(journal.index, worker, progress)


def move_damaged_aside(
    journal: Journal, worker: ProfileRebuildWorker, paths: list[str], progress: Progress
) -> MovedAside:
    """Moves damaged files into the journal's quarantine folder, then catches up the index;
    a rebuild the damage blocked is asked for again."""
    moved, failed = [], []
    for path in paths:
        try:
            target = move_aside(journal.root, Path(path))
            moved.append((path, str(target)))
        except (JournalError, OSError) as exc:
            failed.append((path, str(describe(exc))))
    catch_up(journal.index, worker, progress)
    if moved:
        worker.request_rebuild()
    return MovedAside(moved, failed)
