"""Settling a sync conflict: one version (or a merge of it) becomes the record's next revision.

Why one module for the CLI's `sync resolve` and the journal window: both must write the same
revision the same way. The chosen version's fields are copied onto the current record and
written through the store's compare-and-swap, so the revision number, the history chain and
the record's identity stay the store's; the conflict folder is removed only after that write,
and only if no newer divergence arrived meanwhile (a sync merging under the record's lock),
so a version nobody has seen is never thrown away. A note beside the new revision says which
version was kept, so the history tells why the revision exists.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import SyncConflictUnknown
from core.record.models import DecisionRecord
from core.store.correction_notes import CorrectionNotes, check_note
from core.store.decisions import DecisionStore
from core.store.locking import locked
from core.sync import conflicts
from core.sync.paths import CONFLICTS
from core.sync.state import StateFiles

STORE_OWNED = ("id", "created_at", "redaction", "revision", "updated_at")
"""Fields the store sets on every revision; every other field comes from the chosen version."""
UNKNOWN_NAME = "another machine"


@dataclass(frozen=True, slots=True)
class ConflictVersion:
    """One machine's newest version of a conflicted record."""

    machine: str
    name: str
    record: DecisionRecord
    here: bool
    """Written on this machine."""

    @property
    def title(self) -> str:
        """ "laptop (this machine)", "desk", or the id when the machine never named itself."""
        name = self.name or self.machine
        return f"{name} (this machine)" if self.here else name


@dataclass(frozen=True, slots=True)
class ConflictVersions:
    """A conflict as a reader sees it: the current record and every version, this machine's
    first."""

    conflict: conflicts.Conflict
    current: DecisionRecord
    versions: list[ConflictVersion]

    def version(self, machine: str) -> ConflictVersion:
        return next(v for v in self.versions if v.machine == machine)


@dataclass(frozen=True, slots=True)
class Resolution:
    """The revision written, the machine whose version it keeps, and whether the conflict
    folder is gone (False: a newer divergence arrived while resolving and still waits)."""

    record: DecisionRecord
    machine: str
    name: str
    cleared: bool
    note_warning: str = ""


def this_machine(store: DecisionStore) -> str:
    """This machine's sync id; "" when the journal does not sync (any more)."""
    files = StateFiles(store.root)
    return files.config().machine if files.configured else ""


def load_versions(store: DecisionStore, record_id: str, here: str) -> ConflictVersions | None:
    """Every version of a conflicted record; None when it has no conflict.

    Args:
        here: this machine's sync id ("" when sync is off: the current record's machine
            then stands for this one).
    """
    conflict = conflicts.find_conflict(store.root, record_id)
    if conflict is None:
        return None
    local = here if here in conflict.versions else conflict.current
    versions = [
        ConflictVersion(
            machine,
            str(info.get("name") or ""),
            conflicts.version_of(store.root, conflict, machine),
            machine == local,
        )
        for machine, info in conflict.versions.items()
    ]
    versions.sort(key=lambda v: (not v.here, v.name, v.machine))
    return ConflictVersions(conflict, store.get(record_id), versions)


def resolve_conflict(
    store: DecisionStore,
    record_id: str,
    keep: str,
    here: str,
    *,
    expected: int | None = None,
    edit: Callable[[DecisionRecord], None] | None = None,
    note: str = "",
) -> Resolution:
    """Writes the version `keep` names as the next revision, then clears the conflict.

    Args:
        keep: `local`, `remote`, or a machine id or name (see `conflicts.choose_machine`).
        here: this machine's sync id.
        expected: the current revision the caller showed; None takes whatever is current.
        edit: changes made on top of the chosen version (a merge by hand).
        note: the user's own words, added to the note that names the kept version.

    Raises:
        SyncConflictUnknown: the record has no conflict, or `keep` names no version.
        RevisionConflict: the record changed since `expected`.
        InvalidDecision: the edit or the note breaks a rule; nothing was written.
    """
    conflict = conflicts.get_conflict(store.root, record_id)
    machine = conflicts.choose_machine(conflict, keep, here or conflict.current)
    name = str(conflict.versions[machine].get("name") or "")
    chosen = conflicts.version_of(store.root, conflict, machine)
    text = check_note(_note(name or machine, merged=edit is not None, words=note))
    current = expected if expected is not None else store.get(record_id).revision

    def adopt(record: DecisionRecord) -> None:
        for field in DecisionRecord.model_fields:
            if field not in STORE_OWNED:
                setattr(record, field, getattr(chosen, field))
        if edit is not None:
            edit(record)

    revised = store.revise(record_id, current, adopt)
    cleared = _clear(store, conflict)
    warning = ""
    try:
        CorrectionNotes(store.root).write(record_id, revised.revision, text)
    except (OSError, ValueError) as exc:
        warning = f"revision {revised.revision} was saved, its note was not: {exc}"
    return Resolution(revised, machine, name or UNKNOWN_NAME, cleared, warning)


def _note(name: str, *, merged: bool, words: str) -> str:
    what = "merged by hand from" if merged else "kept"
    text = f"Sync conflict: {what} the version written on {name}."
    return f"{text} {words.strip()}" if words.strip() else text


def _clear(store: DecisionStore, resolved: conflicts.Conflict) -> bool:
    """Removes the conflict folder under the record's lock, unless it changed meanwhile."""
    folder = store.root / CONFLICTS / resolved.record_id
    with locked(store.root, store.record_path(resolved.record_id), timeout=store.lock_timeout):
        try:
            now = conflicts.get_conflict(store.root, resolved.record_id)
        except SyncConflictUnknown:
            return True
        if now.to_dict() != resolved.to_dict():
            return False
        for entry in os.listdir(folder):
            os.unlink(folder / entry)
        with contextlib.suppress(OSError):
            os.rmdir(folder)
    return True
