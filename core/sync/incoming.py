"""Applying what another machine pushed: a three-way merge of two commits, unit by unit.

For each merge unit (a record with its history, a log, another file) the remote changed since
the common commit: a unit unchanged here takes the remote's changes as they are; a unit changed
on both sides goes through the rules of `core.sync.merge`. The remote's blobs are read with
one `git cat-file` call for everything that changed, so a join of thousands of records costs
a few git processes, not one per record. A manifest the remote removed (a compaction folded
it) is removed here too unless this side wrote it since.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from core.store.correction_notes import FOLDER as NOTES_FOLDER
from core.store.correction_notes import note_path
from core.sync import conflicts
from core.sync.gitrepo import GitRepo
from core.sync.manifests import is_manifest
from core.sync.merge import CONFLICT, RecordSide, merge_lines, merge_record
from core.sync.merge import REMOTE as TAKE_REMOTE
from core.sync.paths import Unit, history_path, record_path, unit_of
from core.sync.report import SyncReport
from core.sync.screening import Screen
from core.sync.workcopy import WorkingCopy

UNKNOWN_MACHINE = "00000000"

Change = tuple[bytes | None, bytes | None]
"""A journal file's new plaintext and its blob; (None, None) removes the file."""


@dataclass(slots=True)
class MergeResult:
    received: int = 0
    new_conflicts: list[str] = field(default_factory=list)


class Incoming:
    """One remote commit merged into the journal and the working copy."""

    def __init__(
        self, repo: GitRepo, work: WorkingCopy, remote: str, head: str | None, report: SyncReport
    ) -> None:
        self.repo = repo
        self.work = work
        self.remote = remote
        base = repo.merge_base(head, remote) if head else None
        self.screen = Screen(repo, work, remote, report)
        screened = self.screen.changes(base)  # names, modes, sizes, the key, the store's rules
        self.theirs = screened.theirs
        self.blobs = screened.blobs
        self.plain = screened.plain
        self.ours = set(repo.changed(base, head)) if head else set()
        self.result = MergeResult()
        self.diverged: dict[str, int] = {}
        """Record id → the first revision both sides wrote, for records this merge conflicted:
        their notes from that revision on travel with their versions into the conflict."""

    def merge(self) -> MergeResult:
        work = self.work
        units: dict[Unit, list[str]] = {}
        for name in self.theirs:
            path = work.path_of(name)
            unit = unit_of(path) if path else None
            if unit is None:  # markers and manifests: the remote's copy, never a journal file
                if name in self.blobs:
                    work.write_blob(name, self.blobs[name])
                elif is_manifest(name) and name not in self.ours:
                    work.remove_blob(name)
            else:
                units.setdefault(unit, []).append(name)
        local_units = {unit_of(p) for n in self.ours if (p := work.path_of(n))}
        # records first: a record's conflict decides where the notes of its revisions go
        for unit, names in sorted(units.items(), key=lambda item: item[0].kind != "record"):
            self.result.received += len(names)
            if unit.kind == "record":
                self._record(unit.key, names, unit in local_units)
            elif unit.kind == "log":
                self._log(unit.key, names[0])
            else:
                self._file(unit.key, names[0])
        return self.result

    def _change(self, name: str) -> Change:
        if self.theirs[name] == "D":
            return None, None
        return self.plain[name], self.blobs[name]

    # records ------------------------------------------------------------------------------

    def _record(self, record_id: str, names: list[str], changed_here: bool) -> None:
        work = self.work
        if not (changed_here or work.locally_changed(record_path(record_id))):
            # only the remote moved: its changes as they are, removals included
            changes = {p: self._change(n) for n in names if (p := work.path_of(n))}
            work.apply_unit(record_id, "record", changes)
            return
        remote_side, remote_files = self._remote_record(record_id)
        local_side, local_files = self._local_record(record_id)
        work.adopt_blobs(
            (work.codec.name(p), blob)
            for p, (data, blob) in remote_files.items()
            if local_files.get(p) == data
        )
        outcome = merge_record(local_side, remote_side)
        if outcome.outcome == TAKE_REMOTE:
            newer = {p: (d, b) for p, (d, b) in remote_files.items() if local_files.get(p) != d}
            work.apply_unit(record_id, "record", dict(newer))
        elif outcome.outcome == CONFLICT:
            other = self._machine_of(record_id)
            files = conflicts.conflict_files(
                record_id,
                outcome,
                (
                    (work.config.machine, work.config.machine_name),
                    (other, work.state.machines.get(other, "")),
                ),
                conflicts.find_conflict(work.root, record_id),
                (
                    self._local_notes(record_id, list(outcome.local)),
                    self._remote_notes(record_id, list(outcome.remote)),
                ),
            )
            self.diverged[record_id] = outcome.fork
            work.apply_unit(record_id, "record", {p: (d, None) for p, d in files.items()})
            self.result.new_conflicts.append(record_id)

    def _remote_record(self, record_id: str) -> tuple[RecordSide, dict[str, tuple[bytes, bytes]]]:
        """The remote's whole copy of one record: the side, and path → (plaintext, blob)."""
        current = record_path(record_id)
        side = RecordSide(None)
        files: dict[str, tuple[bytes, bytes]] = {}
        found = self._remote_blobs([current])
        if current in found:
            side.current = found[current][1]
            files[current] = (side.current, found[current][0])
        paths = [
            history_path(record_id, n, digest=d)
            for n in range(1, side.revision)
            for d in (False, True)
        ]
        for path, (blob, plain) in self._remote_blobs(paths).items():
            files[path] = (plain, blob)
        for n in range(1, side.revision):
            if (path := history_path(record_id, n)) in files:
                side.history[n] = files[path][0]
        return side, files

    def _remote_blobs(self, paths: list[str]) -> dict[str, tuple[bytes, bytes]]:
        """path → (blob, plaintext) in the remote commit, from the prefetch where it changed;
        the rest is read through the same checks (`Screen.fetch`)."""
        names = {self.work.codec.name(p): p for p in paths}
        found = {names[n]: (self.blobs[n], self.plain[n]) for n in names if n in self.blobs}
        missing = [n for n in names if n not in self.blobs and self.theirs.get(n) != "D"]
        found.update({names[n]: pair for n, pair in self.screen.fetch(missing).items()})
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
        """The remote's correction notes of those revisions, by revision."""
        paths = {note_path(record_id, n): n for n in revisions}
        found = self._remote_blobs(list(paths))
        return {paths[p]: plain for p, (_, plain) in found.items()}

    def _set_aside(self, path: str) -> bool:
        """Whether `path` is the remote's note of a revision this merge set aside in a
        conflict: it belongs to the remote's version, not to the revision that stands here."""
        parts = path.split("/")
        if len(parts) != 3 or parts[0] != NOTES_FOLDER or parts[1] not in self.diverged:
            return False
        number = int(parts[2].removeprefix("revision-").removesuffix(".json"))
        return number >= self.diverged[parts[1]]

    def _machine_of(self, record_id: str) -> str:
        """The machine whose commit last wrote the remote's copy of the record."""
        name = self.work.codec.name(record_path(record_id))
        subject = self.repo.text("log", "-1", "--format=%s", self.remote, "--", name)
        machine = subject.rsplit(" from ", 1)[-1] if " from " in subject else ""
        if len(machine) == len(UNKNOWN_MACHINE) and machine != self.work.config.machine:
            return machine
        return UNKNOWN_MACHINE

    # logs and other files -----------------------------------------------------------------

    def _log(self, path: str, name: str) -> None:
        theirs, blob = self._change(name)
        if theirs is None:
            return  # logs only grow: a log gone there is kept here
        mine = self.work.read(path)
        if mine is None or mine == theirs:
            self.work.apply_unit(path, "log", {path: (theirs, blob)})
        elif (united := merge_lines(mine, theirs)) != mine:
            # Theirs already holds every line of ours (ours was a prefix): take their blob too,
            # so the union is not encrypted again and pushed back as a change of nothing.
            self.work.apply_unit(path, "log", {path: (united, blob if united == theirs else None)})

    def _file(self, path: str, name: str) -> None:
        """Corrections and conflict files: the remote's, unless this machine changed its own."""
        if self._set_aside(path):
            return
        theirs, blob = self._change(name)
        mine = self.work.read(path)
        if mine == theirs:
            return
        if theirs is None and mine is not None and self.work.locally_changed(path):
            return  # changed here, removed there: keep what was changed
        if mine is None or not self.work.locally_changed(path):
            self.work.apply_unit(path, "file", {path: (theirs, blob)})
