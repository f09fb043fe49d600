"""What a fetched commit may change here: every remote name, mode, size and file is checked
before anything is written, and what fails is refused by name while the rest goes on.

Why each step reads only what passed the one before: the remote is hostile until checked.
1. Tree entries, with their modes (`git diff --raw` / `git ls-tree`, never a checkout), against
   the exact layout sync writes (`core.sync.paths.remote_name_problem`): `..`, absolute or
   hidden names, links, submodules, other modes, names that are not UTF-8 or too long, and
   anything outside the layout are refused unread (git's own `fetch.fsckObjects` already
   refused trees it considers malformed, the whole fetch with them).
2. Sizes from git's object headers (`cat-file --batch-check`): a blob over `BLOB_MAX` is refused
   without reading a byte of it; a fetch whose accepted blobs add up to more than `FETCH_MAX`
   stops the merge before any content is read.
3. Contents of the accepted blobs; on an encrypted remote every file must be listed, by the
   digest of its exact bytes, in a valid authenticated manifest (`core.sync.authenticity`:
   `tampered` otherwise, and a record with such a file is held back whole) and open with the
   key (`undecryptable` otherwise), and the journal path a manifest names must itself be one
   sync writes.
4. Each journal file against the store's rules (`core.sync.admission`); a record whose file,
   a revision or its history chain fails is refused whole, its bytes kept in quarantine.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from core import limits
from core.errors import JournalError, SyncRemoteUnsafe
from core.store.quarantine import keep_aside
from core.sync import admission
from core.sync.authenticity import RemoteCheck
from core.sync.gitrepo import GitRepo, TreeEntry
from core.sync.manifests import is_legacy, is_manifest
from core.sync.paths import (
    KEY_CHECK,
    MARKER,
    journal_path_problem,
    remote_name_problem,
    unit_of,
)
from core.sync.report import (
    INVALID_RECORD,
    TAMPERED,
    TOO_LARGE,
    UNDECRYPTABLE,
    UNSAFE_PATH,
    Refusal,
    SyncReport,
    printable_name,
)
from core.sync.workcopy import WorkingCopy

BLOB_MAX = 8 * limits.RECORD_FILE_MAX
"""The largest remote file read: a record is at most `RECORD_FILE_MAX`, its age envelope adds
a few hundred bytes, and a log of tens of thousands of lines fits; anything larger is refused
from its header, unread."""
FETCH_MAX = 1024 * limits.MIB
"""The most one sync reads from the remote: far above a join of a hundred thousand records,
far below what would exhaust memory."""


class SyncFetchTooLarge(SyncRemoteUnsafe):
    """The remote's changes add up to more than `FETCH_MAX`; nothing was read or written."""


@dataclass(slots=True)
class Screened:
    """What passed: name → status (A, M, D), name → blob, name → plaintext."""

    theirs: dict[str, str] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    plain: dict[str, bytes] = field(default_factory=dict)


class Screen:
    """The checks of one merge's remote commit; refusals go into `report`."""

    def __init__(
        self, repo: GitRepo, work: WorkingCopy, remote: str, report: SyncReport, check: RemoteCheck
    ) -> None:
        self.repo = repo
        self.work = work
        self.remote = remote
        self.report = report
        self.check = check
        self.quarantined: list[str] = []
        self.refused: set[str] = set()
        """Names refused once: a later `fetch` of the same name leaves it out unread."""

    def changes(self, base: str | None) -> Screened:
        """The remote's changes since base that passed every check."""
        entries = self.repo.changed_entries(base, self.remote)
        out = Screened()
        kept: dict[str, TreeEntry] = {}
        for entry in entries:
            name = printable_name(entry.name)
            problem = remote_name_problem(entry.name, entry.mode, encrypted=self._encrypted)
            if entry.status == "D":  # nothing to read; a name outside the layout is no file here
                if problem is None:
                    out.theirs[name] = "D"
                continue
            if problem is not None:
                self._refuse(name, UNSAFE_PATH, f"refused unread: {problem}")
                continue
            kept[name] = entry
        blobs = self._read({name: entry.oid for name, entry in kept.items()})
        for name, entry in kept.items():
            if name in blobs:
                out.theirs[name] = entry.status
                out.blobs[name] = blobs[name]
        self._open(out)
        return out

    def fetch(self, names: list[str]) -> dict[str, tuple[bytes, bytes]]:
        """More of the remote commit (a record's whole copy, for a three-way merge): name →
        (blob, plaintext) for those that pass the same checks; the rest are left out."""
        refused = self.refused | self.check.refused
        objects = {name: f"{self.remote}:{name}" for name in names if name not in refused}
        blobs = self._read(objects, missing_ok=True)
        out = Screened(theirs=dict.fromkeys(blobs, "A"), blobs=blobs)
        self._open(out)
        return {name: (out.blobs[name], out.plain[name]) for name in out.plain}

    @property
    def _encrypted(self) -> bool:
        return self.work.codec.encrypted

    def _refuse(self, name: str, kind: str, message: str, path: str = "") -> None:
        self.refused.add(name)
        self.report.refuse(Refusal(name, kind, message, path))

    # sizes and contents -------------------------------------------------------------------

    def _read(self, objects: dict[str, str], *, missing_ok: bool = False) -> dict[str, bytes]:
        """name → content of each object whose header is within `BLOB_MAX`; over the cap is
        refused unread, and a total over `FETCH_MAX` stops the merge."""
        sizes = self.repo.sizes(objects.values())
        wanted: dict[str, str] = {}
        total = 0
        for name, obj in objects.items():
            if obj not in sizes:
                if not missing_ok:
                    self._refuse(name, UNSAFE_PATH, "its object is missing from the fetch")
                continue
            kind, size = sizes[obj]
            if kind != "blob":
                self._refuse(name, UNSAFE_PATH, f"it is a {kind}, not a file")
            elif size > BLOB_MAX:
                self._refuse(
                    name,
                    TOO_LARGE,
                    f"refused unread: {size:,} bytes, over the per-file cap of {BLOB_MAX:,}",
                )
            else:
                wanted[name] = obj
                total += size
        if total > FETCH_MAX:
            raise SyncFetchTooLarge(
                f"the remote's changes hold {total:,} bytes, over the per-sync cap of "
                f"{FETCH_MAX:,}; nothing was read or written"
            )
        found = self.repo.contents(wanted.values(), limit=BLOB_MAX)
        return {name: found[obj] for name, obj in wanted.items() if obj in found}

    # opening and the store's rules --------------------------------------------------------

    def _open(self, out: Screened) -> None:
        """Learns the manifests, opens every file, checks the journal files; what fails
        leaves `out`."""
        work = self.work
        if self._encrypted and not self.check.strict:  # format 1, trusted once (migration)
            for name in [n for n in out.blobs if is_legacy(n)]:
                try:
                    work.learn_legacy_manifest(out.blobs[name])
                except (JournalError, ValueError, KeyError, TypeError, AttributeError) as exc:
                    self._drop(out, name, UNDECRYPTABLE, f"the manifest does not open: {exc}")
        paths: dict[str, str] = {}
        forged: set[str] = set()
        for name in list(out.blobs):
            listing = is_manifest(name) or is_legacy(name)
            path = work.path_of(name) if not listing else None
            if path is not None and (problem := journal_path_problem(path)) is not None:
                self._drop(out, name, UNSAFE_PATH, f"it stands for {path!r}: {problem}")
                continue
            if listing or name in (MARKER, KEY_CHECK):
                # the manifests are checked by `RemoteCheck`, the remote's own files by
                # `Incoming` against them
                out.plain[name] = out.blobs[name]
                continue
            plain = self.check.open(name, out.blobs[name], self.report, path or "")
            if plain is None:  # refused (and reported) by the check
                for table in (out.theirs, out.blobs, out.plain):
                    table.pop(name, None)
                if path is not None and (unit := unit_of(path)) and unit.kind == "record":
                    forged.add(unit.key)
                continue
            out.plain[name] = plain
            if path is not None:
                paths[name] = path
        for name, path in list(paths.items()):
            unit = unit_of(path)
            if unit is not None and unit.kind == "record" and unit.key in forged:
                del paths[name]
                message = (
                    f"held back with the rest of decision {unit.key}, of which a file was "
                    "changed on the remote by someone without the key"
                )
                self._drop(out, name, TAMPERED, message, path)
        self._admit(out, paths)

    def _admit(self, out: Screened, paths: dict[str, str]) -> None:
        """The store's rules per file, then per record (a failing file holds back its whole
        record, so a chain is never half applied)."""
        failed: dict[str, str] = {}
        for name, path in paths.items():
            problem = admission.file_problem(path, out.plain[name])
            if problem is not None:
                failed[name] = problem
        by_path = {path: name for name, path in paths.items()}
        for name, path in paths.items():
            if name in failed or not path.endswith(".sha256"):
                continue
            revision = path.removesuffix(".sha256")
            theirs = out.plain.get(by_path.get(revision, ""))
            if admission.digest_mismatch(out.plain[name], theirs or self.work.read(revision)):
                failed[name] = "it is not the digest of the revision it names"
        self._check_chains(out, paths, by_path, failed)
        units = {unit_of(paths[name]) for name in failed}
        for name, path in paths.items():
            unit = unit_of(path)
            if name in failed:
                self._quarantine(out, name, path, failed[name])
            elif unit in units and unit is not None and unit.kind == "record":
                held = (
                    f"held back with the rest of decision {unit.key}, of which a file was refused"
                )
                self._quarantine(out, name, path, held)

    def _check_chains(
        self, out: Screened, paths: dict[str, str], by_path: dict[str, str], failed: dict[str, str]
    ) -> None:
        for name, path in paths.items():
            unit = unit_of(path)
            if name in failed or unit is None or unit.kind != "record" or path.count("/") != 1:
                continue

            def present(wanted: str) -> bool:
                arriving = by_path.get(wanted)
                if arriving is not None:
                    return arriving not in failed
                return self.work.read(wanted) is not None or self._remote_has(wanted)

            problem = admission.chain_problem(unit.key, out.plain[name], present)
            if problem is not None:
                failed[name] = problem

    def _remote_has(self, path: str) -> bool:
        """Whether the remote commit holds a file for path (one unchanged since the base)."""
        name = self.work.codec.name(path)
        return bool(self.repo.sizes([f"{self.remote}:{name}"]))

    def _quarantine(self, out: Screened, name: str, path: str, reason: str) -> None:
        data = out.plain.get(name, b"")
        where = ""
        with contextlib.suppress(OSError, JournalError):
            kept = keep_aside(self.work.root, path, data)
            where = f"; kept in {kept.relative_to(self.work.root)}"
            self.quarantined.append(str(kept))
        self._drop(out, name, INVALID_RECORD, f"{reason}{where}", path)

    def _drop(self, out: Screened, name: str, kind: str, message: str, path: str = "") -> None:
        for table in (out.theirs, out.blobs, out.plain):
            table.pop(name, None)
        self._refuse(name, kind, message, path)
