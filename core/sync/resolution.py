"""Settling a sync conflict: one version (or a merge of it) becomes the record's next revision.

Why one module for the CLI's `sync resolve` and the journal window: both must write the same
revision the same way. The chosen version's fields are copied onto the current record and
written through the store's compare-and-swap, so the revision number, the history chain and
the record's identity stay the store's; the conflict folder is removed only after that write,
and only if no newer divergence arrived meanwhile (a sync merging under the record's lock),
so a version nobody has seen is never thrown away. A note beside the new revision says which
version was kept, so the history tells why the revision exists.

The same rule holds for the ordinary ways to change a decision (a correction, a soft-delete, a
restore; `revise`): a conflicted decision gets its next revision only as the resolution of its
conflict, made on the current record as it stands when the caller asks to settle it, and is
refused otherwise, so a change never leaves the conflict listed behind a newer revision and
never sets a version aside that nobody chose to.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import SyncConflictPending, SyncConflictUnknown
from core.gocompat.text import utf8_len
from core.record.models import DecisionRecord
from core.record.redaction import redact_text
from core.store.correction_notes import NOTE_MAX, CorrectionNotes, check_note
from core.store.decisions import DecisionStore
from core.store.locking import locked
from core.sync import conflicts
from core.sync.paths import CONFLICTS
from core.sync.state import StateFiles

STORE_OWNED = ("id", "created_at", "redaction", "revision", "updated_at")
"""Fields the store sets on every revision; every other field comes from the chosen version."""
UNKNOWN_NAME = "another machine"
CURRENT = "current"
"""`keep` for a change made on the current record as it stands (a correction, a delete or a
restore of a conflicted decision): no version's fields replace the record's."""
CORRECTING = "correcting"
DELETING = "soft-deleting"
RESTORING = "restoring"
"""How a change settled a conflict, as its note says it."""
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class ConflictVersion:
    """One machine's newest version of a conflicted record."""

    machine: str
    name: str
    record: DecisionRecord
    here: bool
    """Written on this machine."""
    note: str = ""
    """The "why corrected" note saved with this version ("" when it has none)."""

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


@dataclass(frozen=True, slots=True)
class Revision:
    """A decision changed through `revise`: the revision written, the conflict it settled (None
    when it had none), the user's note as saved, and why that note was not saved ("" if it
    was)."""

    record: DecisionRecord
    settled: Resolution | None = None
    note: str = ""
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
            conflicts.note_of(store.root, conflict, machine),
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
    how: str = "",
) -> Resolution:
    """Writes the version `keep` names as the next revision, then clears the conflict.

    Args:
        keep: `local`, `remote`, a machine id or name (see `conflicts.choose_machine`), or
            `CURRENT`: the current record as it stands, the version it holds kept.
        here: this machine's sync id.
        expected: the current revision the caller showed; None takes whatever is current.
        edit: changes made on top of the chosen version (a merge by hand).
        note: the user's own words, added to the note that names the kept version.
        how: with `CURRENT`, the change that settles it (`CORRECTING`, `DELETING`, …).

    Raises:
        SyncConflictUnknown: the record has no conflict.
        RevisionConflict: the record changed since `expected`.
        InvalidDecision: `keep` names no version, or the edit or the note breaks a rule;
            nothing was written.
    """
    conflict = conflicts.get_conflict(store.root, record_id)
    as_it_stands = keep == CURRENT
    machine = (
        conflict.current
        if as_it_stands
        else conflicts.choose_machine(conflict, keep, here or conflict.current)
    )
    chosen = None if as_it_stands else conflicts.version_of(store.root, conflict, machine)
    own = check_note(note)
    notes = {m: conflicts.note_of(store.root, conflict, m) for m in conflict.versions}
    room = NOTE_MAX - (utf8_len(own) + 1 if own else 0)
    template = (
        _settled_template(how or CORRECTING)
        if as_it_stands
        else _kept_template(merged=edit is not None)
    )
    aside = [m for m in conflict.versions if m != machine]
    summary = _with_notes(template, machine, aside, conflict=conflict, notes=notes, room=room)
    text = check_note(f"{summary} {own}" if own else summary)
    current = expected if expected is not None else store.get(record_id).revision

    def adopt(record: DecisionRecord) -> None:
        if chosen is not None:
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
    named = str(conflict.versions[machine].get("name") or "")
    return Resolution(revised, machine, named or UNKNOWN_NAME, cleared, warning)


def revise(
    store: DecisionStore,
    record_id: str,
    expected: int,
    change: Callable[[DecisionRecord], None],
    *,
    here: str,
    settle: bool = False,
    note: str = "",
    how: str = CORRECTING,
) -> Revision:
    """A correction, soft-delete or restore: the next revision, through the conflict rule.

    Args:
        change: what the change does to the record (the store's compare-and-swap runs it).
        here: this machine's sync id ("" when sync is off).
        settle: the caller told the user that this change settles the decision's sync
            conflict, if it has one: the current version is kept, the others set aside.
        note: the user's "why corrected" note, kept with the new revision.
        how: the change, as a settling note names it.

    Raises:
        SyncConflictPending: the decision has a sync conflict and `settle` is False.
        RevisionConflict: the record changed since `expected`.
        InvalidDecision: the change or the note breaks a rule; nothing was written.
    """
    text = check_note(note)
    conflict = conflicts.find_conflict(store.root, record_id)
    if conflict is not None:
        if not settle:
            raise SyncConflictPending(pending_text(conflict))
        done = resolve_conflict(
            store, record_id, CURRENT, here, expected=expected, edit=change, note=text, how=how
        )
        return Revision(done.record, done, redact_text(text)[0], done.note_warning)
    record = store.revise(record_id, expected, change)
    warning = ""
    try:
        CorrectionNotes(store.root).write(record_id, record.revision, text)
    except (OSError, ValueError) as exc:
        warning = f"revision {record.revision} was saved, its note was not: {exc}"
    return Revision(record, None, redact_text(text)[0], warning)


def pending_text(conflict: conflicts.Conflict) -> str:
    """ "decision … was changed on two machines (laptop and desk) and waits for a choice of
    version; nothing was written" """
    names = [_name(conflict, machine) for machine in conflict.versions]
    listed = " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]
    return (
        f"decision {conflict.record_id} was changed on {len(names)} machines ({listed}) and "
        "waits for a choice of version; nothing was written"
    )


def _name(conflict: conflicts.Conflict, machine: str) -> str:
    return str(conflict.versions[machine].get("name") or "") or machine or UNKNOWN_NAME


def _kept_template(*, merged: bool) -> str:
    what = "merged by hand from" if merged else "kept"
    return f"Sync conflict: {what} the version written on {{}}; set aside the {{}} from {{}}."


def _settled_template(how: str) -> str:
    return (
        f"Sync conflict: settled by {how} the current version (written on {{}}); the {{}} "
        "from {} set aside."
    )


def _with_notes(
    template: str,
    machine: str,
    aside: list[str],
    *,
    conflict: conflicts.Conflict,
    notes: dict[str, str],
    room: int,
) -> str:
    """ "Sync conflict: kept the version written on laptop (noted: "…"); set aside the
    version from desk (noted: "…")."

    The template filled with the kept machine, "version(s)" and the machines set aside,
    each named with the note saved with its version, so the history keeps every version's
    reason; the notes are shortened alike when the whole would pass `room` bytes."""
    versions = "version" if len(aside) == 1 else "versions"
    quoted = [m for m in (machine, *aside) if notes.get(m)]

    def fill(limit: int | None) -> str:
        def named(m: str) -> str:
            text = notes.get(m, "")
            if not text:
                return _name(conflict, m)
            return f'{_name(conflict, m)} (noted: "{_clipped(text, limit)}")'

        return template.format(named(machine), versions, " and ".join(named(m) for m in aside))

    full = fill(None)
    if utf8_len(full) <= room or not quoted:
        return full
    bare = utf8_len(fill(0))
    return fill(max(0, (room - bare) // len(quoted)))


def _clipped(text: str, limit: int | None) -> str:
    """`text` within `limit` UTF-8 bytes, an ellipsis marking a cut."""
    if limit is None or utf8_len(text) <= limit:
        return text
    data = text.encode("utf-8")[: max(0, limit - len(ELLIPSIS.encode("utf-8")))]
    return data.decode("utf-8", errors="ignore") + ELLIPSIS


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
