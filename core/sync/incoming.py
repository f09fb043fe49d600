"""Applying what another machine pushed: a three-way merge of two commits, unit by unit.

For each merge unit (a record with its history, a log, another file) the remote changed since
the common commit: a unit unchanged here takes the remote's changes; a unit changed on both
sides goes through the rules of `core.sync.merge`. The remote's blobs are read with one
`git cat-file` call for everything that changed, so a join of thousands of records costs a few
git processes, not one per record.

Nothing the remote says is taken on its word (`core.sync.authenticity`): a file is opened only
when a valid manifest lists its exact bytes, and the journal only grows. A record, a history
revision, a correction note, a log or a log line the remote no longer has is kept here (and
pushed again); a record the remote holds at a lower revision than this machine's, or at a
revision this machine already has in its history, is a rollback and is not applied. A
conflict's files go only when the remote's record moved past this machine's (a resolution
elsewhere). Each refusal is named in the report and skips its unit alone.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from core.errors import TAMPERED_ENTRY, SyncError
from core.store.correction_notes import FOLDER as NOTES_FOLDER
from core.store.correction_notes import note_path
from core.sync import authenticity, conflicts, manifests
from core.sync.authenticity import NO_KEY, ROLLED_BACK, RemoteCheck
from core.sync.bounds import BLOB_MAX
from core.sync.gitrepo import GitRepo
from core.sync.merge import (
    CONFLICT,
    LOCAL,
    RecordMerge,
    RecordSide,
    merge_lines,
    merge_record,
)
from core.sync.merge import REMOTE as TAKE_REMOTE
from core.sync.paths import CONFLICTS, REMOTE_FILES, Unit, history_path, record_path, unit_of
from core.sync.report import ROLLBACK, TAMPERED, SyncReport
from core.sync.screening import Screen
from core.sync.workcopy import WorkingCopy

UNKNOWN_MACHINE = "00000000"
REMOVED = (
    "removed on the remote by someone without the key (the journal never deletes it); kept "
    "here and pushed again"
)

LINES_REMOVED = (
    "lines removed on the remote by someone without the key (a log only grows); kept here "
    "and pushed again"
)

Change = tuple[bytes | None, bytes | None]
"""A journal file's new plaintext and its blob; (None, None) removes the file."""


class _Refused(SyncError):
    """A file of the unit was refused (and reported): the unit is left as it is here."""

    runbook_anchor = TAMPERED_ENTRY


@dataclass(slots=True)
class MergeResult:
    received: int = 0
    applied: int = 0
    """Journal files this merge wrote here (a refused or unchanged file is not one)."""
    new_conflicts: list[str] = field(default_factory=list)


class Incoming:
    """One remote commit merged into the journal and the working copy."""

    def __init__(
        self,
        repo: GitRepo,
        work: WorkingCopy,
        remote: str,
        head: str | None,
        report: SyncReport | None = None,
    ) -> None:
        self.repo = repo
        self.work = work
        self.remote = remote
        self.report = report
        base = repo.merge_base(head, remote) if head else None
        # names, modes and sizes first (`core.sync.screening`): nothing else is read before
        self.screen = Screen(repo, work, remote, report or SyncReport(""))
        screened = self.screen.changes(base)
        self.theirs, self.blobs = screened.theirs, screened.blobs
        self.ours = set(repo.changed(base, head)) if head else set()
        self.check = RemoteCheck(work.codec, dict(work.state.seen), work.config.machine)
        if work.codec.encrypted:
            self.check.read(repo, remote, report)
        self._learn()
        # then each file opened as a key holder listed it, and checked by the store's rules
        self.plain = self.screen.admit(screened, self._opener)
        self.result = MergeResult()
        self.diverged: dict[str, int] = {}
        """Record id → the first revision both sides wrote, for records this merge conflicted:
        their notes from that revision on travel with their versions into the conflict."""
        self.replaced: dict[str, set[int]] = {}
        """Record id → revisions whose file here this merge replaced with the remote's other
        version: their notes here belonged to the version replaced, so their removal there
        is taken too."""
        self.revisions_before: dict[str, int] = {}
        """Record id → its revision here before this merge, for records with conflict files
        the remote removed."""

    def refused_objects(self) -> set[str]:
        """The objects of the remote commit refused as written without the key, too large or
        outside the layout: no commit holding one may become an ancestor of this machine's."""
        screen = self.screen
        rejected = {screen.oids[n] for n in self.check.rejected if n in screen.oids}
        return screen.refused_objects() | rejected

    def merge(self) -> MergeResult:
        work = self.work
        units: dict[Unit, list[str]] = {}
        for name in self.theirs:
            path = work.path_of(name)
            unit = unit_of(path) if path else None
            if unit is None:  # markers and manifests: never a journal file
                self._remote_file(name)
            else:
                units.setdefault(unit, []).append(name)
                if path and path.startswith(f"{CONFLICTS}/") and self.theirs[name] == "D":
                    record_id = path.split("/")[1]
                    self.revisions_before[record_id] = _revision(work.read(record_path(record_id)))
        local_units = {unit_of(p) for n in self.ours if (p := work.path_of(n))}
        # records first: a record's conflict decides where the notes of its revisions go
        for unit, names in sorted(units.items(), key=lambda item: item[0].kind != "record"):
            self.result.received += len(names)
            try:
                if unit.kind == "record":
                    self._record(unit.key, names, unit in local_units)
                elif unit.kind == "log":
                    self._log(unit.key, names[0])
                else:
                    self._file(unit.key, names[0])
            except _Refused:
                continue
        return self.result

    def _apply(self, key: str, kind: str, files: dict[str, Change]) -> None:
        self.work.apply_unit(key, kind, files)
        self.result.applied += len(files)

    def _learn(self) -> None:
        """Names from the remote's manifests: the valid ones, or on a format-1 remote (trusted
        once, while it migrates) its name manifests."""
        if self.check.strict:
            authenticity.learn(self.work, self.check)
        elif self.work.codec.encrypted:
            for name, blob in self.blobs.items():
                if manifests.is_legacy(name):
                    self.work.learn_legacy_manifest(blob)

    # checks -------------------------------------------------------------------------------

    def _opener(self, name: str, blob: bytes, path: str) -> bytes | None:
        return self.check.open(name, blob, self.report, path)

    def _open(self, name: str, blob: bytes, path: str) -> bytes:
        """The plaintext of a remote file a key holder wrote and the store's rules admit
        (opened and checked once, by the screen); raises `_Refused` otherwise."""
        data = self.plain.get(name)
        if data is None:
            raise _Refused(name)
        return data

    def _refuse(self, name: str, kind: str, message: str, path: str = "") -> None:
        self.check.refuse(self.report, name, kind, message, path)

    def _change(self, name: str) -> Change:
        if self.theirs[name] == "D":
            return None, None
        blob = self.blobs[name]
        return self._open(name, blob, self.work.path_of(name) or ""), blob

    def _remote_file(self, name: str) -> None:
        """A remote name that is no journal file: a manifest, the marker or key check, or a
        name no valid manifest gives a path."""
        work, check = self.work, self.check
        removed = self.theirs[name] == "D"
        blob = self.blobs.get(name, b"")
        if manifests.is_manifest(name):
            self._manifest(name, removed)
        elif manifests.is_legacy(name):
            if removed:
                work.remove_blob(name)  # folded by a migration elsewhere
            elif not check.strict:
                work.write_blob(name, blob)
            else:
                self._refuse(
                    name,
                    TAMPERED,
                    "a format-1 manifest, without authentication (from a machine on an older "
                    "version, or from someone without the key); not used",
                )
        elif removed:
            if name in REMOTE_FILES and (work.path / name).exists():
                self._refuse(name, TAMPERED, REMOVED)
        elif not check.strict:
            work.write_blob(name, blob)
        elif name in REMOTE_FILES and (voucher := check.voucher(name, blob)):
            work.write_blob(name, blob, voucher.listed.length)
        else:
            self._refuse(name, TAMPERED, f"{NO_KEY}; not applied")

    def _manifest(self, name: str, removed: bool) -> None:
        """The newer of the two copies of a machine's manifest stays: a valid one that
        arrived replaces an older one here, an older or removed one is not taken."""
        held = authenticity.held_manifests(self.work).get(name)
        if removed:
            if held is not None:
                self._refuse(name, TAMPERED, REMOVED)
        elif (arrived := self.check.valid.get(name)) and (held is None or arrived.seq > held.seq):
            self.work.write_blob(name, self.blobs[name])

    # records ------------------------------------------------------------------------------

    def _record(self, record_id: str, names: list[str], changed_here: bool) -> None:
        work = self.work
        current = record_path(record_id)
        if not (changed_here or work.locally_changed(current)):
            changes: dict[str, Change] = {}
            for name in names:
                path = work.path_of(name) or ""
                if self.theirs[name] == "D":
                    self._refuse(name, TAMPERED, REMOVED, path)
                    continue
                changes[path] = (self._open(name, self.blobs[name], path), self.blobs[name])
            here = _revision(work.read(current))
            if current in changes and _revision(changes[current][0]) < here:
                self._rolled_back(record_id, _revision(changes[current][0]), here)
                return
            self.replaced[record_id] = {
                _revision(mine)
                for path, (data, _) in changes.items()
                if not path.endswith(".sha256") and (mine := work.read(path)) not in (None, data)
            }
            if changes:
                self._apply(record_id, "record", changes)
            return
        remote_side, remote_files = self._remote_record(record_id)
        local_side, local_files = self._local_record(record_id)
        work.adopt_blobs(
            (work.codec.name(p), blob, len(data))
            for p, (data, blob) in remote_files.items()
            if local_files.get(p) == data
        )
        outcome = merge_record(local_side, remote_side)
        if outcome.outcome == TAKE_REMOTE:
            newer = {p: (d, b) for p, (d, b) in remote_files.items() if local_files.get(p) != d}
            self._apply(record_id, "record", dict(newer))
        elif outcome.outcome == LOCAL and work.codec.name(current) in self.theirs:
            if remote_side.current is not None and remote_side.revision < local_side.revision:
                self._rolled_back(record_id, remote_side.revision, local_side.revision)
        elif outcome.outcome == CONFLICT:
            self._conflict(record_id, outcome, local_side, remote_side, remote_files)

    def _conflict(
        self,
        record_id: str,
        outcome: RecordMerge,
        local_side: RecordSide,
        remote_side: RecordSide,
        remote_files: dict[str, tuple[bytes, bytes]],
    ) -> None:
        """Both sides wrote their own revisions from a common one: each side's divergent
        revisions (and their notes) go beside the journal, and the chain at the higher
        revision stays current (this machine's on a tie). Why the higher one: a record
        never goes to a lower revision, so the merge commit this machine pushes holds every
        history revision the other pushed, and the other machine, reading it, finds nothing
        removed and nothing rolled back."""
        work = self.work
        other = self._machine_of(record_id)
        here = (work.config.machine, work.config.machine_name)
        there = (other, work.state.machines.get(other, ""))
        notes = (
            self._local_notes(record_id, list(outcome.local)),
            self._remote_notes(record_id, list(outcome.remote)),
        )
        earlier = conflicts.find_conflict(work.root, record_id)
        self.diverged[record_id] = outcome.fork
        self.result.new_conflicts.append(record_id)
        if remote_side.revision <= local_side.revision:
            files = conflicts.conflict_files(record_id, outcome, (here, there), earlier, notes)
            self._apply(record_id, "record", {p: (d, None) for p, d in files.items()})
            return
        swapped = RecordMerge(CONFLICT, outcome.fork, outcome.remote, outcome.local)
        files = conflicts.conflict_files(
            record_id, swapped, (there, here), earlier, (notes[1], notes[0])
        )
        changes: dict[str, Change] = {p: (d, None) for p, d in files.items()}
        # first this machine's version is set aside and the current record becomes the
        # remote's revision at this machine's number, so the journal stays whole while the
        # remote's history replaces this machine's from the fork on
        step = remote_side.chain().get(local_side.revision)
        current = record_path(record_id)
        if step is not None and step != local_side.current:
            changes[current] = (step, None)
        self._apply(record_id, "record", changes)
        taken: dict[str, Change] = {
            p: (d, b) for p, (d, b) in remote_files.items() if work.read(p) != d
        }
        remote_notes = self._remote_blobs([note_path(record_id, n) for n in outcome.remote])
        for number in sorted(set(outcome.local) | set(outcome.remote)):
            path = note_path(record_id, number)
            if path in remote_notes and number in notes[1]:
                taken[path] = (notes[1][number], remote_notes[path])
            elif work.read(path) is not None:
                taken[path] = (None, None)  # this machine's note went with its version
        self._apply(record_id, "record", taken)

    def _rolled_back(self, record_id: str, there: int, here: int) -> None:
        self._refuse(
            self.work.codec.name(record_path(record_id)),
            ROLLBACK,
            f"{ROLLED_BACK}: decision {record_id} is at revision {there} there and {here} "
            f"here; revision {here} is kept and pushed again",
            record_path(record_id),
        )

    def _remote_record(self, record_id: str) -> tuple[RecordSide, dict[str, tuple[bytes, bytes]]]:
        """The remote's whole copy of one record: the side, and path → (plaintext, blob)."""
        current = record_path(record_id)
        side = RecordSide(None)
        files: dict[str, tuple[bytes, bytes]] = {}
        found = self._remote_blobs([current])
        if current in found:
            side.current = self._open_path(current, found[current])
            files[current] = (side.current, found[current])
        paths = [
            history_path(record_id, n, digest=d)
            for n in range(1, side.revision)
            for d in (False, True)
        ]
        for path, blob in self._remote_blobs(paths).items():
            files[path] = (self._open_path(path, blob), blob)
        for n in range(1, side.revision):
            if (path := history_path(record_id, n)) in files:
                side.history[n] = files[path][0]
        return side, files

    def _open_path(self, path: str, blob: bytes) -> bytes:
        return self._open(self.work.codec.name(path), blob, path)

    def _remote_blobs(self, paths: list[str]) -> dict[str, bytes]:
        """path → blob in the remote commit, from the prefetch where it changed."""
        names = {self.work.codec.name(p): p for p in paths}
        found = {names[n]: self.blobs[n] for n in names if n in self.blobs}
        missing = [n for n in names if n not in self.blobs and self.theirs.get(n) != "D"]
        for name, (blob, plain) in self.screen.fetch(missing, self._opener).items():
            self.plain[name] = plain  # read through the same checks as the changed files
            found[names[name]] = blob
        return found

    def _local_record(self, record_id: str) -> tuple[RecordSide, dict[str, bytes]]:
        work = self.work
        folder = work.root / "history" / record_id
        candidates = [record_path(record_id)]
        if folder.is_dir():
            candidates += [f"history/{record_id}/{n}" for n in sorted(os.listdir(folder))]
        files = {
            p: data
            for p in candidates
            if unit_of(p) is not None and (data := work.read(p)) is not None
        }
        side = RecordSide(files.get(record_path(record_id)))
        for n in range(1, side.revision):
            if (path := history_path(record_id, n)) in files:
                side.history[n] = files[path]
        return side, files

    def _local_notes(self, record_id: str, revisions: list[int]) -> dict[int, bytes]:
        """This machine's correction notes of those revisions, by revision."""
        found = {n: self.work.read(note_path(record_id, n)) for n in revisions}
        return {n: data for n, data in found.items() if data is not None}

    def _remote_notes(self, record_id: str, revisions: list[int]) -> dict[int, bytes]:
        """The remote's correction notes of those revisions, by revision (a refused one is
        left out: it is reported, and a note never blocks a conflict)."""
        paths = {note_path(record_id, n): n for n in revisions}
        notes: dict[int, bytes] = {}
        for path, blob in self._remote_blobs(list(paths)).items():
            try:
                notes[paths[path]] = self._open_path(path, blob)
            except _Refused:
                continue
        return notes

    def _set_aside(self, path: str) -> bool:
        """Whether `path` is the remote's note of a revision this merge set aside in a
        conflict: it belongs to the remote's version, not to the revision that stands here."""
        parts = path.split("/")
        if len(parts) != 3 or parts[0] != NOTES_FOLDER or parts[1] not in self.diverged:
            return False
        number = int(parts[2].removeprefix("revision-").removesuffix(".json"))
        return number >= self.diverged[parts[1]]

    def _machine_of(self, record_id: str) -> str:
        """The other machine whose authenticated manifest lists the remote's copy of the
        record (on a plain remote, the machine the commit's subject names)."""
        name = self.work.codec.name(record_path(record_id))
        if self.work.codec.encrypted:
            blob = self.repo.blobs(self.remote, [name], limit=BLOB_MAX).get(name, b"")
            writers = [m for m in self.check.writers(name, blob) if m != self.work.config.machine]
            return writers[0] if writers else UNKNOWN_MACHINE
        subject = self.repo.text("log", "-1", "--format=%s", self.remote, "--", name)
        machine = subject.rsplit(" from ", 1)[-1] if " from " in subject else ""
        if len(machine) == len(UNKNOWN_MACHINE) and machine != self.work.config.machine:
            return machine
        return UNKNOWN_MACHINE

    # logs and other files -----------------------------------------------------------------

    def _log(self, path: str, name: str) -> None:
        work = self.work
        if self.theirs[name] == "D":
            if work.read(path) is not None:
                self._refuse(name, TAMPERED, REMOVED, path)
            return  # logs only grow: a log gone there is kept here
        theirs, blob = self._change(name)
        assert theirs is not None
        mine = work.read(path)
        if mine is None or mine == theirs:
            self._apply(path, "log", {path: (theirs, blob)})
            return
        unchanged_here = not work.locally_changed(path)
        if unchanged_here and _holds_every_line(theirs, mine):
            # only the remote appended: its file as it is, in its order
            self._apply(path, "log", {path: (theirs, blob)})
            return
        if unchanged_here and name not in self.ours:
            # every line here was on the remote already: some were taken out there
            self._refuse(name, TAMPERED, LINES_REMOVED, path)
        united = merge_lines(mine, theirs)
        if united != mine:
            # The union is what the other side computes too: when theirs already is it, take
            # their blob, so the same file is not encrypted again and pushed back.
            self._apply(path, "log", {path: (united, blob if united == theirs else None)})

    def _file(self, path: str, name: str) -> None:
        """Corrections and conflict files: the remote's, unless this machine changed its own;
        a note is never removed, a conflict only once the remote's record moved on."""
        if self._set_aside(path):
            return
        work = self.work
        if self.theirs[name] == "D" and not (
            self._conflict_settled_there(path) or self._note_replaced_there(path)
        ):
            if work.read(path) is not None:
                self._refuse(name, TAMPERED, REMOVED, path)
            return
        theirs, blob = self._change(name)
        mine = work.read(path)
        if mine == theirs:
            if theirs is not None and blob is not None:
                # the same file encrypted on both sides (a conflict two machines each found):
                # the remote's blob, so the two trees become one and stop being pushed back
                work.adopt_blobs([(name, blob, len(theirs))])
            return
        if theirs is None and mine is not None and work.locally_changed(path):
            return  # changed here, removed there: keep what was changed
        if mine is None or not work.locally_changed(path):
            self._apply(path, "file", {path: (theirs, blob)})

    def _note_replaced_there(self, path: str) -> bool:
        """Whether a correction note the remote removed belonged to a revision this merge
        replaced with the remote's version (a conflict's other side: the note went with its
        version into the conflict)."""
        parts = path.split("/")
        if len(parts) != 3 or parts[0] != NOTES_FOLDER:
            return False
        number = int(parts[2].removeprefix("revision-").removesuffix(".json"))
        return number in self.replaced.get(parts[1], set())

    def _conflict_settled_there(self, path: str) -> bool:
        """Whether a conflict file the remote removed goes here too: only when the remote's
        record is at a higher revision than this machine's was (a resolution elsewhere)."""
        parts = path.split("/")
        if parts[0] != CONFLICTS or parts[1] not in self.revisions_before:
            return False
        current = record_path(parts[1])
        blob = self._remote_blobs([current]).get(current)
        try:
            there = _revision(self._open_path(current, blob)) if blob is not None else 0
        except _Refused:
            return False
        return there > self.revisions_before[parts[1]]


def _revision(data: bytes | None) -> int:
    if data is None:
        return 0
    try:
        value = json.loads(data).get("revision", 0)
    except (ValueError, AttributeError):
        return 0
    return value if isinstance(value, int) else 0


def _holds_every_line(theirs: bytes, mine: bytes) -> bool:
    lines = set(theirs.splitlines(keepends=True))
    return all(line in lines for line in mine.splitlines(keepends=True) if line.endswith(b"\n"))
