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
3. Contents of the accepted blobs; on an encrypted remote the manifests are learned first and
   every file must open with the key (`undecryptable` otherwise), and the journal path a
   manifest names must itself be one sync writes.
4. Each journal file against the store's rules (`core.sync.admission`); a record whose file,
   a revision or its history chain fails is refused whole, its bytes kept in quarantine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from core.errors import JournalError, SyncFetchTooLarge
from core.store.quarantine import keep_aside
from core.sync import admission
from core.sync.bounds import BLOB_MAX, FETCH_MAX
from core.sync.gitrepo import GitRepo, TreeEntry
from core.sync.paths import (
    REMOTE_FILES,
    journal_path_problem,
    remote_name_problem,
    unit_of,
)
from core.sync.report import (
    INVALID_RECORD,
    TOO_LARGE,
    UNSAFE_PATH,
    Refusal,
    SyncReport,
    printable_name,
)
from core.sync.workcopy import WorkingCopy

Opener = Callable[[str, bytes, str], bytes | None]
"""(remote name, blob, journal path) → the plaintext a key holder wrote, or None when it is
refused (the opener reports why: `core.sync.authenticity.RemoteCheck.open`)."""


@dataclass(slots=True)
class Screened:
    """What passed: name → status (A, M, D), name → blob, name → plaintext."""

    theirs: dict[str, str] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    plain: dict[str, bytes] = field(default_factory=dict)


class Screen:
    """The checks of one merge's remote commit; refusals go into `report`."""

    def __init__(self, repo: GitRepo, work: WorkingCopy, remote: str, report: SyncReport) -> None:
        self.repo = repo
        self.work = work
        self.remote = remote
        self.report = report
        self.quarantined: list[str] = []
        self.refused_names: set[str] = set()
        """Remote names refused in this merge: never read or reported twice."""
        self.oids: dict[str, str] = {}
        """Remote name → the object the remote commit holds there, for what changed."""

    def changes(self, base: str | None) -> Screened:
        """The remote's changes since base whose names, modes and sizes passed, with their
        blobs (read, not opened: `admit` opens them once the manifests are known)."""
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
            self.oids[name] = entry.oid
            if problem is not None:
                self.refused_names.add(name)
                self._refuse(name, UNSAFE_PATH, f"refused unread: {problem}")
                continue
            kept[name] = entry
        blobs = self._read({name: entry.oid for name, entry in kept.items()})
        for name, entry in kept.items():
            if name in blobs:
                out.theirs[name] = entry.status
                out.blobs[name] = blobs[name]
        return out

    def admit(self, out: Screened, opener: Opener) -> dict[str, bytes]:
        """Opens every journal file of `out` with `opener` (None: refused, and reported by
        it) and checks it by the store's rules; what fails leaves `out`, holding back the rest
        of its record. Returns name → plaintext of what passed."""
        paths: dict[str, str] = {}
        for name in list(out.blobs):
            path = self.work.path_of(name)
            if path is None or name in REMOTE_FILES:
                continue  # the remote's own files and manifests: `Incoming` checks those
            if (problem := journal_path_problem(path)) is not None:
                self._drop(out, name, UNSAFE_PATH, f"it stands for {path!r}: {problem}")
                continue
            paths[name] = path
            data = opener(name, out.blobs[name], path)
            if data is None:
                self.refused_names.add(name)
                continue
            out.plain[name] = data
        self._admit(out, paths)
        return out.plain

    def fetch(self, names: list[str], opener: Opener) -> dict[str, tuple[bytes, bytes]]:
        """More of the remote commit (a record's whole copy, for a three-way merge): name →
        (blob, plaintext) for those that pass the same checks; the rest are left out."""
        wanted = [n for n in names if n not in self.refused_names]
        objects = {name: f"{self.remote}:{name}" for name in wanted}
        blobs = self._read(objects, missing_ok=True)
        out = Screened(theirs=dict.fromkeys(blobs, "A"), blobs=blobs)
        self.admit(out, opener)
        return {name: (out.blobs[name], out.plain[name]) for name in out.plain}

    @property
    def _encrypted(self) -> bool:
        return self.work.codec.encrypted

    def _refuse(self, name: str, kind: str, message: str, path: str = "") -> None:
        self.report.refuse(Refusal(name, kind, message, path))

    def refused_objects(self) -> set[str]:
        """The objects of the remote commit this merge refused (by their names)."""
        return {self.oids[name] for name in self.refused_names if name in self.oids}

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
                self.refused_names.add(name)
                self._refuse(name, UNSAFE_PATH, f"it is a {kind}, not a file")
            elif size > BLOB_MAX:
                self.refused_names.add(name)
                self._refuse(name, TOO_LARGE, f"{too_large(size)}; {LEFT_OUT}")
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

    def _admit(self, out: Screened, paths: dict[str, str]) -> None:
        """The store's rules per file, then per record (a failing file holds back its whole
        record, so a chain is never half applied)."""
        failed: dict[str, str] = {}
        unopened = {name for name in paths if name not in out.plain}
        for name, path in paths.items():
            if name in unopened:
                continue
            problem = admission.file_problem(path, out.plain[name])
            if problem is not None:
                failed[name] = problem
        by_path = {path: name for name, path in paths.items()}
        for name, path in paths.items():
            if name in failed or name in unopened or not path.endswith(".sha256"):
                continue
            revision = path.removesuffix(".sha256")
            theirs = out.plain.get(by_path.get(revision, ""))
            if admission.digest_mismatch(out.plain[name], theirs or self.work.read(revision)):
                failed[name] = "it is not the digest of the revision it names"
        self._check_chains(out, paths, by_path, failed, unopened)
        units = {unit_of(paths[name]) for name in [*failed, *unopened]}
        for name, path in paths.items():
            unit = unit_of(path)
            if name in unopened:
                self._drop(out, name, "", "", path)  # the opener reported it already
            elif name in failed:
                self._quarantine(out, name, path, failed[name])
            elif unit in units and unit is not None and unit.kind == "record":
                held = (
                    f"held back with the rest of decision {unit.key}, of which a file was refused"
                )
                self._quarantine(out, name, path, held)

    def _check_chains(
        self,
        out: Screened,
        paths: dict[str, str],
        by_path: dict[str, str],
        failed: dict[str, str],
        unopened: set[str],
    ) -> None:
        """Adds to `failed` each arriving record whose history chain would be broken."""
        for name, path in paths.items():
            unit = unit_of(path)
            if name in failed or name in unopened or unit is None or unit.kind != "record":
                continue
            if path.count("/") != 1:
                continue

            def present(wanted: str) -> bool:
                arriving = by_path.get(wanted)
                if arriving is not None:
                    return arriving not in failed and arriving not in unopened
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
        """Takes name out of what is applied; reported unless `kind` is "" (already was)."""
        for table in (out.theirs, out.blobs, out.plain):
            table.pop(name, None)
        self.refused_names.add(name)
        if kind:
            self._refuse(path or name, kind, message, path)


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else "it does not open"


LEFT_OUT = (
    "the remote commits holding it are left out of this machine's history and their objects "
    "deleted here"
)


def too_large(size: int) -> str:
    return f"refused unread: {size:,} bytes, over the per-file cap of {BLOB_MAX:,}"


def kept_parents(
    repo: GitRepo, head: str | None, remote: str, refused: set[str], report: SyncReport
) -> list[str] | None:
    """The parents of the commit that merges `remote`: None (head and remote, as usual) when
    no commit the remote adds to this machine's history holds a refused object; otherwise
    head and the newest of those commits that hold none, nor descend from one that does.

    Why: git keeps every object an ancestor of a kept commit reaches, so a merge onto a
    hostile commit would keep its refused blobs for good (a few oversized ones fill the
    disk). A blob over `BLOB_MAX` anywhere in the added history counts as refused too, even
    one a later commit removed again, and is reported by its object id. The caller pushes
    over the remote's branch (with a lease on the commit it merged) and prunes what nothing
    reaches any more."""
    span = [remote, "--not", head] if head else [remote]
    # the blobs over the cap, by their headers alone: git's filter leaves them out of the
    # walk and prints them with a "~"
    walk = ["--objects", "--no-object-names", f"--filter=blob:limit={BLOB_MAX + 1}"]
    listed = repo.text("rev-list", *walk, "--filter-print-omitted", *span).split()
    sizes = repo.sizes(line[1:] for line in listed if line.startswith("~"))
    big = {o for o, (kind, size) in sizes.items() if kind == "blob" and size > BLOB_MAX}
    for oid in sorted(big - refused):
        report.refuse(
            Refusal(f"object {oid}", TOO_LARGE, f"{too_large(sizes[oid][1])}; {LEFT_OUT}")
        )
    bad = refused | big
    if not bad:
        return None
    out = repo.text("log", "--raw", "--no-abbrev", "-m", "--root", "--format=commit %H", *span)
    holds: set[str] = set()
    commit = ""
    for line in out.splitlines():
        if line.startswith("commit "):
            commit = line.split()[1]
        elif line.startswith(":") and len(fields := line.split()) > 3 and fields[3] in bad:
            holds.add(commit)
    order = repo.text("rev-list", "--topo-order", "--reverse", "--parents", *span).splitlines()
    left_out: set[str] = set()
    clean: list[str] = []
    parents_of: dict[str, list[str]] = {}
    for line in order:
        commit, *parents = line.split()
        parents_of[commit] = parents
        if commit in holds or any(p in left_out for p in parents):
            left_out.add(commit)
        else:
            clean.append(commit)
    below = {p for c in clean for p in parents_of[c]}
    kept = ([head] if head else []) + [c for c in clean if c not in below]
    if len(kept) < 2:
        return kept
    independent = set(repo.text("merge-base", "--independent", *kept).split())
    return [c for c in kept if c in independent]  # no parent an ancestor of another
