"""Only a holder of the sync key can write what a machine accepts; nothing goes backwards.

age gives secrecy, not authenticity: the recipient is on the remote, so anyone can encrypt a
file to it. Each machine therefore lists every file of the tree it commits in its own manifest
(`core.sync.manifests`) under an HMAC-SHA-256 with the journal's authentication key. A file
that arrives is opened only when a valid manifest lists the SHA-256 of exactly its bytes; a
manifest whose MAC fails, or that does not open, vouches for nothing. Each refusal names the
file and does not stop the rest of the sync.

Against rollback, each manifest carries its machine's sequence number, and this machine keeps
the highest it verified from each writer (its own: the highest it pushed). A remote that shows
an older manifest than one already seen (a force-push to an old commit, a `git revert`, a
restored backup) is reported as rolled back; what it would take back is never applied
(`core.sync.incoming` also never removes a record, revision, note or log line, nor lowers a
revision), and the next sync pushes this machine's newer state again. A manifest also names
the sequence numbers it saw from the other writers, so a machine learns of a rollback of a
writer it has not heard from itself.

A plain (unencrypted) remote has no key and authenticates nothing; its host is trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.errors import SyncKeyWrong, SyncManifestInvalid
from core.gocompat.gotime import GoTime
from core.store.safefs import TEMP_MARK
from core.sync import manifests, peers
from core.sync.bounds import MANIFEST_MAX
from core.sync.crypto import Codec
from core.sync.manifests import Listed, Manifest
from core.sync.paths import FILE_MODE, MARKER
from core.sync.report import (
    ROLLBACK,
    TAMPERED,
    TOO_LARGE,
    UNDECRYPTABLE,
    Refusal,
    SyncReport,
)

if TYPE_CHECKING:
    from core.sync.gitrepo import GitRepo
    from core.sync.workcopy import WorkingCopy

KEY_CHECK_TEXT = b"decision-journal sync key check\n"
NO_KEY = "changed on the remote by someone without the key"
ROLLED_BACK = "the remote was rolled back"
UNOPENED = "does not open with this journal's key (not an age file, or encrypted to another key)"


def blob_digest(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def sign(manifest: Manifest, key: bytes) -> bytes:
    """The manifest's plaintext with its MAC."""
    body = manifest.body()
    return manifests.encode(body, _mac(key, body))


def verify(plain: bytes, key: bytes, name: str) -> Manifest:
    """The manifest in `plain`, when its MAC is right and it belongs at `name`.

    Raises:
        SyncManifestInvalid: its shape, MAC or machine is wrong.
    """
    manifest, body, mac = manifests.decode(plain)
    if not hmac.compare_digest(_mac(key, body), mac):
        raise SyncManifestInvalid("its authentication does not match")
    if manifests.machine_of(name) != manifest.machine:
        raise SyncManifestInvalid(f"it names machine {manifest.machine} but is stored as {name}")
    return manifest


def _mac(key: bytes, body: dict[str, object]) -> str:
    return hmac.new(key, manifests.canonical(body), hashlib.sha256).hexdigest()


_VERIFIED: dict[tuple[str, str, bytes], Manifest] = {}
"""(name, SHA-256 of the blob, authentication key) → the manifest those exact bytes hold, for
blobs this process verified (or signed) already: a sync meets the same manifests in the
working copy and in the remote's commit, and a large journal's manifest is megabytes of JSON
to open and check. Only exact bytes that passed `verify` (or that `vouch` signed) are kept."""
_VERIFIED_MAX = 64


def remember_verified(key: tuple[str, str, bytes], manifest: Manifest) -> None:
    if len(_VERIFIED) >= _VERIFIED_MAX:
        _VERIFIED.clear()
    _VERIFIED[key] = manifest


@dataclass(frozen=True, slots=True)
class Voucher:
    """A valid manifest's word for one file: what it stands for and who listed it."""

    listed: Listed
    machine: str


@dataclass(slots=True)
class RemoteCheck:
    """The manifests of one remote commit, checked, and what they vouch for."""

    codec: Codec
    seen: dict[str, int]
    own: str
    valid: dict[str, Manifest] = field(default_factory=dict)
    """Manifest name → the manifest, for each one whose MAC is right."""
    refused: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)
    """The names of `refused` whose bytes no key holder wrote (not those refused as rolled
    back, which a key holder wrote once)."""

    @property
    def strict(self) -> bool:
        """Whether every file must be vouched for: always, once this machine or the remote
        uses authenticated manifests (a format-1 remote is trusted once, at its migration)."""
        return self.codec.encrypted and bool(self.valid or self.seen)

    def read(self, repo: GitRepo, commit: str, report: SyncReport | None) -> RemoteCheck:
        """Checks every manifest in `commit`; refusals go to `report`."""
        names = [
            e.text
            for e in repo.entries(commit, manifests.FOLDER)
            if e.text is not None and manifests.is_manifest(e.text) and e.mode == FILE_MODE
        ]
        found = repo.blobs(commit, names, limit=MANIFEST_MAX)
        for name in names:
            if name in found:
                self.add(name, found[name], report)
            else:
                self.refuse(report, name, TOO_LARGE, "refused unread: over the manifest size cap")
        self._cross_check(report)
        return self

    def add(self, name: str, blob: bytes, report: SyncReport | None) -> None:
        verified = (name, blob_digest(blob), self.codec.auth_key)
        manifest = _VERIFIED.get(verified)
        try:
            if manifest is None:
                manifest = verify(self.codec.open(blob), self.codec.auth_key, name)
                remember_verified(verified, manifest)
        except SyncKeyWrong:
            self.refuse(report, name, UNDECRYPTABLE, UNOPENED)
            return
        except SyncManifestInvalid as exc:
            self.refuse(report, name, TAMPERED, f"{NO_KEY} ({exc}); it vouches for nothing")
            return
        self.valid[name] = manifest
        before = self.seen.get(manifest.machine, 0)
        if manifest.seq < before:
            whose = "this machine" if manifest.machine == self.own else "machine"
            self.refuse(
                report,
                name,
                ROLLBACK,
                f"{ROLLED_BACK}: it holds manifest {manifest.seq} of {whose} "
                f"{manifest.machine}, older than manifest {before} already seen here; nothing "
                "is taken back, and this sync pushes the newer state again",
            )

    def _cross_check(self, report: SyncReport | None) -> None:
        """A writer whose manifest is older here than another writer says it saw."""
        held = {m.machine: (n, m.seq) for n, m in self.valid.items()}
        for manifest in list(self.valid.values()):
            for machine, seq in manifest.seen.items():
                name, have = held.get(machine, (manifests.name_of(machine), 0))
                if have < seq and name not in self.refused:
                    self.refuse(
                        report,
                        name,
                        ROLLBACK,
                        f"{ROLLED_BACK}: machine {manifest.machine} saw manifest {seq} of "
                        f"machine {machine}, the remote holds "
                        f"{'none' if have == 0 else have}; nothing is taken back",
                    )

    def refuse(
        self, report: SyncReport | None, name: str, kind: str, message: str, path: str = ""
    ) -> None:
        self.refused.add(name)
        if kind != ROLLBACK:
            self.rejected.add(name)
        if report is not None:
            report.refuse(Refusal(path or name, kind, message, path))

    def voucher(self, name: str, blob: bytes) -> Voucher | None:
        """The word of the first valid manifest (in the order they were checked) that lists
        exactly this blob under `name`; None when none does. Asked of the manifests each time,
        so checking a remote's manifests costs nothing per file they list."""
        digest = blob_digest(blob)
        for manifest in self.valid.values():
            listed = manifest.files.get(name)
            if listed is not None and listed.digest == digest:
                return Voucher(listed, manifest.machine)
        return None

    def writers(self, name: str, blob: bytes) -> list[str]:
        """The machines whose valid manifests list exactly this blob under `name`."""
        digest = blob_digest(blob)
        listing = ((m.machine, m.files.get(name)) for m in self.valid.values())
        return sorted(machine for machine, e in listing if e is not None and e.digest == digest)

    def open(
        self, name: str, blob: bytes, report: SyncReport | None, path: str = ""
    ) -> bytes | None:
        """The plaintext of a remote file a key holder listed, cut at its listed length; None
        (with the refusal in `report`) when no valid manifest lists exactly these bytes, or
        when the file does not open."""
        length: int | None = None
        voucher = self.voucher(name, blob) if self.strict else None
        if self.strict and voucher is None:
            # no key holder listed these bytes: whether they open (a blob with a byte
            # appended, a forgery to the recipient) or not, the remote changed them
            self.refuse(report, name, TAMPERED, f"{NO_KEY}; not applied", path)
            return None
        if voucher is not None and voucher.listed.length >= 0:
            length = voucher.listed.length
        try:
            return self.codec.open(blob, length)
        except SyncKeyWrong:
            self.refuse(report, name, UNDECRYPTABLE, UNOPENED, path)
            return None

    def kind_of_unlisted(self, blob: bytes) -> str:
        """Why a file no manifest lists is refused: it does not open with the key at all, or
        it does (anyone can encrypt to the recipient) and was written without the key."""
        try:
            self.codec.open(blob)
        except SyncKeyWrong:
            return UNDECRYPTABLE
        return TAMPERED


# this machine's side ----------------------------------------------------------------------


def working_listing(
    work: WorkingCopy, held: dict[str, Manifest] | None = None
) -> dict[str, Listed]:
    """Every file of the working copy but the manifests, as a manifest lists it: blob digests
    from the cache `write_blob` keeps of every blob it wrote (every write and removal goes
    through it, and a sync cut short drops the cache), so only the folders' names are read; a
    file the cache does not hold is read, and its plaintext length taken from a manifest in
    `held` that lists those bytes, or found)."""
    lengths: dict[tuple[str, str], int] | None = None
    listing: dict[str, Listed] = {}
    base = str(work.path)
    for directory, folders, files in os.walk(base):
        if directory == base:
            folders[:] = [f for f in folders if f not in (".git", manifests.FOLDER)]
            prefix = ""
        else:
            prefix = directory[len(base) + 1 :].replace(os.sep, "/") + "/"
        for file_name in files:
            name = prefix + file_name
            if _left_by_a_writer(file_name):
                continue
            cached = work.state.blobs.get(name)
            if cached is not None:
                listing[name] = Listed(
                    work.state.known.get(name, ""), str(cached[0]), int(cached[1])
                )
                continue
            if lengths is None:
                lengths = {
                    (n, listed.digest): listed.length
                    for manifest in (held or {}).values()
                    for n, listed in manifest.files.items()
                }
            listing[name] = _listed(work, name, os.path.join(directory, file_name), lengths)
    return listing


def _left_by_a_writer(file_name: str) -> bool:
    """A temporary file of a write killed before its rename: never committed (the working
    copy's git excludes the same pattern)."""
    return file_name.startswith(".") and TEMP_MARK in file_name


def _listed(work: WorkingCopy, name: str, full: str, lengths: dict[tuple[str, str], int]) -> Listed:
    """A blob the cache does not hold, read: its digest and plaintext length, then cached."""
    path = work.state.known.get(name, "")
    with open(full, "rb") as handle:
        blob = handle.read()
    digest = blob_digest(blob)
    length = lengths.get((name, digest))
    if length is None:
        length = _plain_length(work, name, path, blob)
    work.state.blobs[name] = [digest, length]
    return Listed(path, digest, length)


def _plain_length(work: WorkingCopy, name: str, path: str, blob: bytes) -> int:
    """The length before padding of a blob no manifest lists: that of the journal file it
    holds when the plaintext is that file and padding, else the whole plaintext (a format-1
    blob, never padded); -1 for a file stored as it is or one that does not open."""
    if name == MARKER or not work.codec.encrypted:
        return -1
    try:
        plain = work.codec.open(blob)
    except SyncKeyWrong:
        return -1  # listed as it is; a reader refuses it as not opening
    journal = work.read(path) if path else None
    if journal is not None and plain.startswith(journal) and not plain[len(journal) :].strip(b"\n"):
        return len(journal)
    return len(plain)


def held_manifests(work: WorkingCopy) -> dict[str, Manifest]:
    """The valid manifests in the working copy, by name (an invalid one is left out).

    A manifest whose exact bytes this process verified (or signed) already is not decrypted
    and checked again (`_VERIFIED`): a sync asks several times, and a manifest of a large
    journal is a few megabytes of JSON."""
    folder = work.path / manifests.FOLDER
    found: dict[str, Manifest] = {}
    for file_name in sorted(os.listdir(folder)) if folder.is_dir() else []:
        name = f"{manifests.FOLDER}/{file_name}"
        if not manifests.is_manifest(name):
            continue
        blob = (folder / file_name).read_bytes()
        key = (name, blob_digest(blob), work.codec.auth_key)
        manifest = _VERIFIED.get(key)
        if manifest is None:
            try:
                manifest = verify(work.codec.open(blob), work.codec.auth_key, name)
            except (SyncKeyWrong, SyncManifestInvalid):
                continue
            remember_verified(key, manifest)
        found[name] = manifest
    return found


def renamed(work: WorkingCopy) -> bool:
    """Whether this machine was renamed (`sync name`) or its name differs from the one its
    manifest last carried."""
    if not work.codec.encrypted:
        return False
    known = work.state.machines.get(work.config.machine)
    return work.state.announce_name or (known is not None and known != work.config.machine_name)


def vouch(work: WorkingCopy) -> bool:
    """Writes this machine's manifest when no valid manifest in the working copy lists its
    files exactly as they are (so every commit's tree is one a key holder listed), or when
    this machine's name changed (the manifest carries it to the others); returns whether it
    wrote one. An unchanged tree writes nothing, so syncs go quiet."""
    if not work.codec.encrypted:
        return False
    migrate(work)
    held = held_manifests(work)
    listing = working_listing(work, held)
    state = manifests.state_digest(listing)
    own = manifests.name_of(work.config.machine)
    # a renamed machine's manifest carries its new name: `sync name` sets announce_name, and a
    # name that differs from the one its held manifest carries says the same
    renamed = work.state.announce_name or (
        own in held and held[own].name != work.config.machine_name
    )
    if not renamed and any(m.state == state for m in held.values()):
        return False
    work.state.announce_name = False
    seq = max(held[own].seq if own in held else 0, work.state.seen.get(work.config.machine, 0))
    machines: dict[str, str] = dict(work.state.machines)
    for manifest in held.values():
        machines.update(manifest.names())
    machines.pop(work.config.machine, None)
    manifest = Manifest(
        work.config.machine,
        work.config.machine_name,
        seq + 1,
        listing,
        {m.machine: m.seq for n, m in held.items() if n != own},
        machines,
        GoTime.now().format(),
    )
    blob = work.codec.seal(sign(manifest, work.codec.auth_key))
    work.write_blob(own, blob)
    remember_verified((own, blob_digest(blob), work.codec.auth_key), manifest)
    work.state.machines[work.config.machine] = work.config.machine_name
    return True


def pushed(work: WorkingCopy) -> None:
    """After a push: the manifests this machine pushed are the oldest it accepts from now on."""
    for manifest in held_manifests(work).values():
        if manifest.seq > work.state.seen.get(manifest.machine, 0):
            work.state.seen[manifest.machine] = manifest.seq


def learn(work: WorkingCopy, check: RemoteCheck) -> None:
    """Names, machine names and each writer's newest state from the remote's valid
    manifests. A name already known for the same path is left as it is (it was checked when
    it was learned, or this machine named it), so a merge saves only the names new here."""
    known = work.state.known
    for held, manifest in check.valid.items():
        if held not in check.refused:  # a rolled-back manifest is not a writer's newest
            peers.learn(work.state, manifest, work.config.machine)
        work.state.machines.update(manifest.names())
        for name, listed in manifest.files.items():
            if not listed.path or known.get(name) == listed.path:
                continue
            if work.codec.name(listed.path) == name:
                known[name] = listed.path
        if manifest.seq > work.state.seen.get(manifest.machine, 0):
            work.state.seen[manifest.machine] = manifest.seq


# format 1 -----------------------------------------------------------------------------------


def marker_text(encrypted: bool, recipient: str) -> bytes:
    marker: dict[str, object] = {"format": manifests.FORMAT, "encrypted": encrypted}
    if encrypted:
        marker["recipient"] = recipient
    return (json.dumps(marker, indent=2) + "\n").encode("utf-8")


def migrate(work: WorkingCopy) -> bool:
    """A format-1 working copy becomes format 2: its name manifests are removed (every path
    they named is in the index and in the manifest written next) and the marker says format 2.
    Returns whether anything changed."""
    folder = work.path / manifests.FOLDER
    found = os.listdir(folder) if folder.is_dir() else []
    legacy = [n for n in found if manifests.is_legacy(f"{manifests.FOLDER}/{n}")]
    marker = work.path / MARKER
    try:
        current = json.loads(marker.read_bytes())
    except (FileNotFoundError, ValueError):
        current = {}
    if not legacy and current.get("format") == manifests.FORMAT:
        return False
    for name in legacy:
        work.remove_blob(f"{manifests.FOLDER}/{name}")
    work.write_blob(MARKER, marker_text(True, work.codec.recipient), -1)
    return True
