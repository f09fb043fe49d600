"""One sync: export the journal, commit, fetch, merge what arrived, commit, push.

Why this order: the working copy is committed before anything is fetched or pushed, so a sync
killed at any point leaves a consistent repository; a merge in progress is recorded first and
redone from the same two commits on the next start (applying a remote file is idempotent).
Offline is a normal state: the local commit waits and the next sync pushes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from core.errors import (
    JournalError,
    LockCancelled,
    StorageFailure,
    SyncAlreadyConfigured,
    SyncCancelled,
    SyncJoinRefused,
    SyncKeyWrong,
    SyncNotConfigured,
    SyncRemoteError,
    SyncRemoteTampered,
    SyncRemoteUnsafe,
    is_storage_failure,
    storage_failure,
)
from core.gocompat.gotime import GoTime
from core.messages.wording import count
from core.store.locking import locked
from core.store.safefs import TEMP_MARK, atomic_write, ensure_private_dir
from core.store.temp_sweep import STALE_AFTER_SECONDS
from core.sync import authenticity, manifests
from core.sync.authenticity import KEY_CHECK_TEXT, RemoteCheck
from core.sync.bounds import MARKER_MAX
from core.sync.crypto import AgeCodec, Codec, SyncKey
from core.sync.gitrepo import BIG_FILE_THRESHOLD, BRANCH, PRIVATE, REMOTE, GitFailed, GitRepo
from core.sync.incoming import Incoming
from core.sync.keystore import forget_key as forget
from core.sync.keystore import load_key, store_key
from core.sync.paths import KEY_CHECK, MARKER
from core.sync.report import (
    FAILED,
    KEPT_REFUSALS,
    OFFLINE,
    ROLLBACK,
    SYNCED,
    TAMPERED,
    UNSAFE_PATH,
    Refusal,
    SyncReport,
)
from core.sync.screening import kept_parents
from core.sync.state import (
    RESULT_FILE,
    RUNNING,
    STATE_DIR,
    ResultSlot,
    StateFiles,
    SyncConfig,
    SyncState,
    checked_machine_name,
    machine_name,
    new_journal_id,
    new_machine_id,
    write_slot,
)
from core.sync.workcopy import WorkingCopy

PUSH_ATTEMPTS = 5
WIPED_NAME = f"refs/heads/{BRANCH}"
WIPED = (
    "the remote was rolled back to nothing: its branch is gone (deleted, or the remote was "
    "replaced by an empty repository) though this machine synced with it; this machine's "
    "whole journal is pushed to it again"
)
STAGING_PREFIX = ".sync-setup.tmp-"


class SyncEngine:
    """The sync of one journal directory."""

    def __init__(self, journal_root: Path, *, interactive: bool = False) -> None:
        self.root = Path(os.path.abspath(journal_root))
        self.files = StateFiles(self.root)
        self.repo = GitRepo(self.files.working_copy, interactive=interactive)

    @property
    def configured(self) -> bool:
        return self.files.configured

    def config(self) -> SyncConfig:
        if not self.configured:
            raise SyncNotConfigured(
                f"{self.root} does not sync yet; run `decision-journal sync init --remote URL` "
                "on the first machine or `sync join --remote URL` on another"
            )
        return self.files.config()

    def cancel(self) -> None:
        """From any thread: the running sync stops at once, as a killed one would (see
        `GitRepo.cancel`), and resumes on the next sync; for quitting."""
        self.repo.cancel()

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        ensure_private_dir(self.root, self.files.directory)
        lock = self.files.directory / "sync"
        try:
            with locked(self.root, lock, cancel=self.repo.cancelled, timeout=120.0):
                _remove_git_leftovers(self.files.working_copy / ".git")
                yield
        except LockCancelled:
            if self.repo.cancelled.is_set():
                raise SyncCancelled("the sync was cancelled while waiting for another") from None
            raise

    # setting up ---------------------------------------------------------------------------

    def init(self, remote: str, *, encrypt: bool, key_file: str = "", name: str = "") -> SyncReport:
        """First machine: a new working copy whose first commit is pushed to an empty remote;
        `name` names this machine (default: its host name)."""
        self._refuse_if_configured()
        key = SyncKey.generate() if encrypt else None
        config = _new_config(encrypt, key_file, name)
        with self._setting_up(remote) as repo:
            if _fetch(repo):
                raise SyncRemoteError(
                    f"the remote {remote} already holds commits; use `sync join --remote "
                    f"{remote}` to sync with the journal it holds"
                )
            _write_markers(repo.path, _codec(key), key)
            if key is not None:
                store_key(config.key_location, key)
            self._install(repo.path, config)
        return self.sync()

    def join(
        self, remote: str, *, key: SyncKey | None, key_file: str = "", name: str = ""
    ) -> SyncReport:
        """Another machine: checks the remote and the key before anything is written."""
        self._refuse_if_configured()
        with self._setting_up(remote) as repo:
            if not _fetch(repo):
                raise SyncRemoteError(
                    f"the remote {remote} holds no journal yet (no commits on {BRANCH}); run "
                    f"`sync init --remote {remote}` on the machine whose journal comes first"
                )
            encrypted = _check_remote(repo, key)
            config = _new_config(encrypted, key_file, name)
            if encrypted and key is not None:
                store_key(config.key_location, key)
            self._install(repo.path, config, joining=True)
        try:
            return self.sync()
        except SyncJoinRefused as exc:
            # fail closed: nothing went to the remote, and this machine does not sync with it
            with self._lock():
                shutil.rmtree(self.files.working_copy, ignore_errors=True)
            if config.encrypted and config.key_kind != "file":
                with contextlib.suppress(JournalError):
                    forget(config.key_location)
            exc.args = (str(exc).replace(NOTHING_PUSHED, f"{NOTHING_PUSHED}{SYNC_STAYS_OFF}", 1),)
            raise

    def _refuse_if_configured(self) -> None:
        if self.configured or self.files.working_copy.exists():
            raise SyncAlreadyConfigured(
                f"{self.files.working_copy} already exists; run `decision-journal sync off` "
                "first to set sync up again"
            )

    @contextlib.contextmanager
    def _setting_up(self, remote: str) -> Iterator[GitRepo]:
        """A new repository with the remote in a private staging folder, removed on failure;
        one left by a killed `init` or `join` is removed first."""
        ensure_private_dir(self.root, self.root)
        for old in self.root.glob(f"{STAGING_PREFIX}*"):
            if time.time() - old.lstat().st_mtime > STALE_AFTER_SECONDS and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.root))
        try:
            repo = GitRepo(staging, interactive=self.repo.interactive)
            _init_repo(repo, remote)
            yield repo
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def _install(self, staging: Path, config: SyncConfig, *, joining: bool = False) -> None:
        """Everything of the set-up is written in the staging folder, whose rename makes the
        journal sync: a set-up cut short (a full disk, a kill) leaves nothing half set up."""
        state_dir = staging / ".git" / STATE_DIR
        state_dir.mkdir(mode=0o700)
        write_slot(state_dir / RESULT_FILE, ResultSlot())  # its space, taken while there is some
        if joining:
            self.files.save_new_state(SyncState(joining=True), directory=state_dir)
        self.files.save_config(config, directory=state_dir)
        os.chmod(staging, 0o700)
        os.rename(staging, self.files.working_copy)

    def rename(self, name: str) -> str:
        """Names this machine (in `sync status`, conflicts and the other machines' listings);
        the next sync tells the other machines. Returns the name as kept."""
        config = self.config()
        config.machine_name = checked_machine_name(name)
        with self._lock():
            self.files.save_config(config)
            state = self.files.state()
            state.announce_name = True
            self.files.save_state(state)
        return config.machine_name

    def off(self, *, forget_key: bool) -> None:
        """Removes the working copy; the journal and the remote are left as they are."""
        config = self.config()
        with self._lock():  # waits for a sync in progress
            shutil.rmtree(self.files.working_copy)
        if forget_key and config.encrypted:
            forget(config.key_location)

    # syncing ------------------------------------------------------------------------------

    def codec(self) -> Codec:
        config = self.config()
        return _codec(load_key(config.key_location) if config.encrypted else None)

    def sync(self) -> SyncReport:
        """One whole sync; returns `offline` instead of raising when the remote is out of reach."""
        config = self.config()
        before = self.files.slot()
        self.files.mark(RUNNING)  # first: a sync cut short from here on never reads "synced"
        try:
            codec = self.codec()
        except JournalError as exc:  # no key: failed, never "running" in a live process
            self.files.mark(FAILED, describe_failure(exc))
            raise
        with self._lock():
            self.repo.make_private()
            state, index = self.files.load()
            if before is not None and before.interrupted:
                # a sync killed between writing blobs and saving the state: a rewritten blob
                # can have the stat its cached digest was taken for (same size, a reused
                # inode, a timestamp within the file system's tick), so every blob is read
                # again once rather than listed with a stale digest
                state.blobs.clear()
            work = WorkingCopy(
                root=self.root,
                working_copy=self.files.working_copy,
                codec=codec,
                config=config,
                index=index,
                state=state,
            )
            report = SyncReport(SYNCED)
            try:
                self._run(work, report)
            except GitFailed as exc:
                if not exc.unreachable:
                    error = _fsck_refusal(exc, report)
                    self._failed(work, report, error)
                    if error is exc:
                        raise
                    raise error from exc
                report.result = OFFLINE
                report.detail = exc.reason
            except SyncCancelled:
                raise  # as if killed: the slot says it was cut short, the next sync resumes
            except Exception as exc:
                self._failed(work, report, exc)
                raise
            report.settle()
            self._finished(work, report)
            return report

    def _finished(self, work: WorkingCopy, report: SyncReport) -> None:
        """Saves a sync that reached its end: its result, and its refusals when it had any."""
        state = work.state
        state.last_error = ""
        _keep_refusals(work, report)
        self._save(work, report.result)
        self.files.mark(report.result)

    def _failed(self, work: WorkingCopy, report: SyncReport, error: BaseException) -> None:
        """Records a sync that stopped (what it refused first, the error), as far as the disk
        lets it: the result slot is written in place, so a full disk still shows the failure.
        The error carries the report (`error.report`) for the one who shows it."""
        report.result = FAILED
        if work.state.merging and isinstance(error, StorageFailure):
            # the write that failed changed nothing, but the files applied before it stand
            error.message = error.message.replace(
                "; nothing was changed",
                "; the sync stopped part-way (every file it applied is whole) and the next "
                "sync, once there is room, applies the rest",
            )
        message = describe_failure(error)
        work.state.last_error = message
        _keep_refusals(work, report)
        with contextlib.suppress(OSError, JournalError):
            self._save(work, FAILED)
        self.files.mark(FAILED, message)
        with contextlib.suppress(AttributeError, TypeError):
            error.report = report  # type: ignore[attr-defined]

    def _run(self, work: WorkingCopy, report: SyncReport) -> None:
        head = self.repo.rev("HEAD")
        earlier = head  # the last commit an earlier sync made: `report.waited` counts to it
        if work.state.merging and head and self.repo.is_ancestor(work.state.merging, head):
            work.state.merging = ""  # killed after its commit: the merge is done
        if work.state.merging and not self._still_offered(work.state.merging):
            work.state.merging = ""  # the remote no longer offers it: nothing to finish
        if work.state.merging:  # a merge was killed: redo it from the same two commits
            self._merge(work, work.state.merging, report)
        else:
            report.sent += work.export()
            self._commit(work, [head] if head else [])
        for _ in range(PUSH_ATTEMPTS):
            remote = self._fetch_remote(work, report)
            head = self.repo.rev("HEAD")
            left_out = False
            if remote and head != remote and not (head and self.repo.is_ancestor(remote, head)):
                left_out = self._merge(work, remote, report)
                head = self.repo.rev("HEAD")
            elif remote and head != remote and work.codec.encrypted:
                # the remote is behind: commits wait here, or it went back (reported)
                RemoteCheck(work.codec, dict(work.state.seen), work.config.machine).read(
                    self.repo, remote, report
                )
            if head is None or head == remote:
                return
            if self._pushed(work, report, remote, earlier, left_out=left_out):
                return
            if left_out and remote and self._fetch_remote() == remote:
                # nobody pushed meanwhile: the remote refuses to be pushed over (a protected
                # branch). The hostile commit stays in its history, but a commit on top of it
                # whose tree is what this machine admitted takes it out of the branch's tip
                self._commit(work, [remote, head])
                report.refuse(kept_in_history(remote, report))
                if self._pushed(work, report, remote, earlier, left_out=False):
                    return
        raise SyncRemoteError(f"the remote kept moving during {PUSH_ATTEMPTS} push attempts")

    def _pushed(
        self,
        work: WorkingCopy,
        report: SyncReport,
        remote: str | None,
        earlier: str | None,
        *,
        left_out: bool,
    ) -> bool:
        """Pushes HEAD, counting the commits pushed and those of them earlier syncs made;
        False when the remote rejected the push (it moved, or refuses to be pushed over)."""
        head = self.repo.rev("HEAD")
        assert head is not None
        span = f"{remote}..{head}" if remote else head
        waiting = int(self.repo.text("rev-list", "--count", "--no-merges", span))
        # of those, the commits earlier syncs made (this sync's own commit of what it
        # exported, or of its manifest after a merge, waited for nothing)
        waited = 0
        if earlier is not None:
            span = f"{remote}..{earlier}" if remote else earlier
            waited = int(self.repo.text("rev-list", "--count", "--no-merges", span))
        # a remote commit left out of this history is pushed over, only while the
        # remote's branch is still the commit merged (another machine's push wins)
        lease = [f"--force-with-lease=refs/heads/{BRANCH}:{remote}"] if left_out else []
        try:
            self.repo.run("push", *lease, REMOTE, f"{BRANCH}:refs/heads/{BRANCH}")
        except GitFailed as exc:
            if not exc.rejected:
                raise
            return False
        authenticity.pushed(work)
        report.pushed, report.waited = waiting, waited
        if left_out:
            prune_unreachable(self.repo)
        return True

    def _fetch_remote(
        self, work: WorkingCopy | None = None, report: SyncReport | None = None
    ) -> str | None:
        """The remote's commit, fetched; None when its branch is not there. A branch gone
        from a remote this machine synced with (it fetched it before, or holds manifests of
        its writers) is a remote wiped or replaced by an empty one: reported as a rollback,
        and the push that follows sends this machine's whole journal back."""
        tracking = f"refs/remotes/{REMOTE}/{BRANCH}"
        if _fetch(self.repo):
            return self.repo.rev(tracking)
        seen = self.repo.rev(tracking) is not None or bool(work and work.state.seen)
        if seen and report is not None and not any(r.name == WIPED_NAME for r in report.refused):
            report.refuse(Refusal(WIPED_NAME, ROLLBACK, WIPED))
        with contextlib.suppress(GitFailed):
            self.repo.run("update-ref", "-d", tracking)
        return None

    def _still_offered(self, commit: str) -> bool:
        """Whether a merge saved by a sync that was cut short is still on the remote's branch
        (its tip or an ancestor of it): a commit the remote dropped is never retried."""
        remote = self._fetch_remote()
        if remote is None or self.repo.rev(commit) is None:
            return False
        return remote == commit or self.repo.is_ancestor(commit, remote)

    def _drop_refused_fetch(self) -> None:
        """Forgets a fetch refused as a whole (and the objects it brought): the tracking
        branch goes, so nothing keeps them, and the next sync fetches the remote afresh."""
        with contextlib.suppress(GitFailed):
            self.repo.run("update-ref", "-d", f"refs/remotes/{REMOTE}/{BRANCH}")
        prune_unreachable(self.repo)

    def _commit(self, work: WorkingCopy, parents: list[str]) -> None:
        """Commits the working copy on these parents; nothing when it holds no change and
        the parents are HEAD's own (a commit never moves the branch for nothing)."""
        head = self.repo.rev("HEAD")
        moved = self.repo.dirty() or parents != ([head] if head else [])
        # a clean tree on HEAD's parents was listed when it was committed: no manifest to check
        if (moved or authenticity.renamed(work)) and authenticity.vouch(work):
            moved = True
        if moved:
            # an encrypted remote learns no machine from a commit (the manifests say who)
            message = "sync" if work.codec.encrypted else f"sync from {work.config.machine}"
            self.repo.commit_all(message, parents)
            self._save(work, "")

    def _save(self, work: WorkingCopy, result: str) -> None:
        if result:
            work.state.last_result = result
            work.state.last_sync_at = GoTime.now().format()
        self.files.save(work.state, work.index)

    # merging ------------------------------------------------------------------------------

    def _merge(self, work: WorkingCopy, remote: str, report: SyncReport) -> bool:
        """Applies the remote commit; a fast-forward when HEAD is one of its ancestors (the
        branch moves to the remote's commit, or one on top of it for what changed here
        meanwhile), a merge commit of the two otherwise. When a commit the remote added
        holds a refused object, the new commit is built on HEAD and the remote's commits that
        hold none (`screening.kept_parents`) instead, and True is returned: the remote commit
        is left out of this history."""
        head = self.repo.rev("HEAD")
        refused = len(report.refused)
        try:
            # screening reads before anything is written: a commit it refuses as a whole is
            # never saved as the merge to finish
            incoming = Incoming(self.repo, work, remote, head, report)
        except SyncRemoteUnsafe:
            work.state.merging = ""
            self._drop_refused_fetch()
            raise
        if work.state.joining:
            if len(report.refused) > refused:
                raise SyncJoinRefused(join_refusal(report.refused[refused:]))
            work.state.joining = False  # saved with the merge: a resumed merge is checked
        work.state.merging = remote
        self._save(work, "")
        result = incoming.merge()
        work.flush()
        report.applied += result.applied
        report.received += result.received + len(report.refused) - refused
        report.new_conflicts += result.new_conflicts
        report.sent += work.export()
        work.state.merging = ""
        kept = kept_parents(self.repo, head, remote, incoming.refused_objects(), report)
        if kept is not None:
            self._commit(work, kept)
            return True
        if head is None or self.repo.is_ancestor(head, remote):
            self._commit(work, [remote])
        else:
            self._commit(work, [head, remote])
        return False


GIT_LEFTOVERS = (
    "index.lock",
    "packed-refs.lock",
    "config.lock",
    "shallow.lock",
    "refs/**/*.lock",
    "objects/pack/tmp_*",
    "objects/incoming-*",
)
"""What a git killed mid-write leaves in its repository (a lock, a half-received pack)."""


def _remove_git_leftovers(git_dir: Path) -> None:
    """Removes `GIT_LEFTOVERS`: the caller holds the sync lock, so no git of ours runs here."""
    for pattern in GIT_LEFTOVERS:
        for path in git_dir.glob(pattern):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()


FSCK_OBJECT = re.compile(r"object ([0-9a-f]{40,64}): (\w+): (.*)")


def _fsck_refusal(exc: GitFailed, report: SyncReport) -> BaseException:
    """A fetch git's own checks refused (a tree entry `..`, `.git`, or another malformed
    object) as a refusal of the whole fetch, named by git's finding; other failures as they
    are."""
    if not exc.fsck_refused:
        return exc
    found = [m for line in exc.stderr.splitlines() if (m := FSCK_OBJECT.search(line))]
    candidates: list[re.Match[str] | None] = [*found] or [None]
    for match in candidates:
        name = f"object {match.group(1)}" if match else "the fetched commit"
        why = f"{match.group(2)}: {match.group(3)}" if match else "git's fsck refused it"
        report.refuse(Refusal(name, UNSAFE_PATH, f"git refused the whole fetch ({why})"))
    first = report.refused[-1].message
    return SyncRemoteUnsafe(
        f"the remote holds an object git refuses to fetch, so nothing was received: {first}; "
        "the remote was changed by something other than decision-journal"
    )


KEPT_IN_HISTORY = (
    "the remote refuses force pushes (a protected branch), so this commit, which holds the "
    "files refused above, stays in the remote's history; this machine pushed a commit on top "
    "of it whose tree leaves them out, so the branch's tip holds none of them and no machine "
    "applies them. To delete them from the history too, put the branch back on the host"
)


def kept_in_history(commit: str, report: SyncReport) -> Refusal:
    """What a remote that refuses force pushes keeps: the hostile commit, below the tip."""
    kind = next((r.kind for r in report.refused if r.kind != ROLLBACK), TAMPERED)
    return Refusal(f"commit {commit}", kind, KEPT_IN_HISTORY)


NOTHING_PUSHED = "nothing was written to the remote"
SYNC_STAYS_OFF = " and this machine does not sync with it"


def join_refusal(refusals: list[Refusal]) -> str:
    """A join whose first merge refused files: a machine that joined would push a tree
    without them over the remote (and the other machines would find them removed), so the
    join stops before anything is applied or pushed."""
    first = refusals[0]
    return (
        f"join refused: {count(len(refusals), 'file')} on the remote failed the checks (first, "
        f"{first.kind}: {first.name}: {first.message}); {NOTHING_PUSHED}. Run `decision-journal "
        "sync now` on a machine that already syncs with this remote (it pushes its files back), "
        "then join again"
    )


def _keep_refusals(work: WorkingCopy, report: SyncReport) -> None:
    """The refusals of this sync, and none when it had none: `sync status` shows only what
    the last sync refused, never an earlier sync's list after a later success or failure."""
    state = work.state
    state.refused_at = GoTime.now().format() if report.refused else ""
    state.refused_count = len(report.refused)
    state.refusals = [r.to_dict() for r in report.refused[:KEPT_REFUSALS]]


def describe_failure(error: BaseException) -> str:
    """One line for the state file and `sync status`: a storage failure in plain words."""
    if isinstance(error, OSError) and is_storage_failure(error):
        error = storage_failure(error, "sync", error.filename or "the journal")
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _new_config(encrypted: bool, key_file: str, name: str = "") -> SyncConfig:
    return SyncConfig(
        journal_id=new_journal_id(),
        machine=new_machine_id(),
        machine_name=checked_machine_name(name) if name else machine_name(),
        encrypted=encrypted,
        key_kind="file" if key_file else "keyring",
        key_file=os.path.abspath(key_file) if key_file else "",
    )


def _codec(key: SyncKey | None) -> Codec:
    return AgeCodec(key) if key is not None else Codec()


def _init_repo(repo: GitRepo, remote: str) -> None:
    repo.run("init", "-q", f"--shared={PRIVATE}", "-b", BRANCH, ".")
    repo.run("remote", "add", REMOTE, remote)
    # a blob write killed before its rename leaves a temp file: never commit one
    (repo.path / ".git" / "info").mkdir(exist_ok=True)
    exclude = repo.path / ".git" / "info" / "exclude"
    atomic_write(repo.path, exclude, f".*{TEMP_MARK}*\n".encode())


def prune_unreachable(repo: GitRepo) -> None:
    """Deletes the objects nothing reaches (what a refused fetch brought): the reflogs that
    would keep them expire first. A prune that fails leaves them for the next one; it reads
    only this working copy's objects, which the caps bound."""
    with contextlib.suppress(GitFailed, OSError):
        repo.run("reflog", "expire", "--expire=now", "--all")
        repo.run("repack", "-a", "-d", "-q")  # a pack keeps what nothing reaches
        repo.run("prune", "--expire=now")


def _fetch(repo: GitRepo) -> bool:
    """Fetches the branch; False when the remote has none yet (a new, empty repository).

    A branch whose commit is the one fetched last time is not fetched again, so an idle poll
    costs one connection to the remote."""
    result = repo.run("ls-remote", "--heads", REMOTE, f"refs/heads/{BRANCH}")
    listed = result.stdout.split()
    if not listed:
        return False
    tracking = f"refs/remotes/{REMOTE}/{BRANCH}"
    if repo.rev(tracking) != listed[0].decode():
        sender = _local_sender(repo.text("remote", "get-url", REMOTE))
        repo.run("fetch", "-q", *sender, REMOTE, f"+refs/heads/{BRANCH}:{tracking}")
    return True


def _local_sender(url: str) -> list[str]:
    """For a remote on this machine (`file://` or a path), git's sending side runs here too:
    it streams blobs over `BIG_FILE_THRESHOLD` instead of inflating them into memory whole
    (a hostile 300 MB blob took twice its size in that process). A remote elsewhere runs its
    own; a host refuses a sending command it did not choose, so none is given there."""
    first = url.split("/", 1)[0]
    if url.startswith("file://") or ("://" not in url and ":" not in first):
        return [f"--upload-pack=git -c core.bigFileThreshold={BIG_FILE_THRESHOLD} upload-pack"]
    return []


def _write_markers(working_copy: Path, codec: Codec, key: SyncKey | None) -> None:
    if key is not None:
        atomic_write(working_copy, working_copy / KEY_CHECK, codec.seal(KEY_CHECK_TEXT))
    text = authenticity.marker_text(key is not None, key.recipient if key else "")
    atomic_write(working_copy, working_copy / MARKER, text)


def _check_remote(repo: GitRepo, key: SyncKey | None) -> bool:
    """Whether the remote is encrypted; refuses a wrong or missing key, a format-1 remote and
    a marker or key check no key holder wrote, before any write."""
    ref = f"refs/remotes/{REMOTE}/{BRANCH}"
    found = repo.blobs(ref, [MARKER, KEY_CHECK], limit=MARKER_MAX)
    if MARKER not in found:
        raise SyncRemoteError(
            f"the remote holds no {MARKER}: it is not a decision-journal sync remote"
        )
    try:
        encrypted = bool(json.loads(found[MARKER]).get("encrypted"))
    except (ValueError, AttributeError):
        encrypted = True  # an unreadable marker is checked as an encrypted remote's
    if not encrypted:
        if key is not None or KEY_CHECK in found:
            raise SyncRemoteTampered(
                f"the remote's {MARKER} says it is not encrypted, but it holds encrypted files: "
                "it was changed on the remote by someone without the key; nothing was written"
            )
        return False
    if key is None:
        raise SyncKeyWrong(
            "the remote is encrypted: give the pairing string (`sync export-key` on a machine "
            "that syncs) on stdin or with --key-file PATH"
        )
    codec = AgeCodec(key)
    if codec.open(found.get(KEY_CHECK, b"")).rstrip(b"\n") != KEY_CHECK_TEXT.rstrip(b"\n"):
        raise SyncKeyWrong("the sync key does not open this remote's key check")
    check = RemoteCheck(codec, {}, "").read(repo, ref, None)
    if not check.valid:
        if any(manifests.is_legacy(name) for name in repo.names(ref)):
            raise SyncRemoteError(
                "this remote uses sync format 1, without authentication: run `decision-journal "
                "sync now` on a machine that already syncs with it (that upgrades the remote), "
                "then join again"
            )
        raise SyncRemoteTampered(
            "no manifest on the remote was written with this key: it was changed on the "
            "remote by someone without the key; nothing was written"
        )
    for name in (MARKER, KEY_CHECK):
        if check.voucher(name, found.get(name, b"")) is None:
            raise SyncRemoteTampered(
                f"the remote's {name} was changed on the remote by someone without the key; "
                "nothing was written"
            )
    return True
