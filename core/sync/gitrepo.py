"""The user's own `git`, run as a subprocess in the sync working copy.

Why the user's git and not a library: their SSH keys, agents, `~/.ssh/config`, credential
helpers and proxies already work with it, and a library would reimplement each of them.
Every commit carries a fixed author and a message with a time only, never journal data.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import shutil
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from core.errors import (
    AUTH_ENTRY,
    OFFLINE_ENTRY,
    REMOTE_ENTRY,
    JournalError,
    SyncCancelled,
    SyncGitMissing,
    SyncRemoteError,
)
from core.store.safefs import atomic_write

AUTHOR = ("decision-journal", "sync@localhost")
BRANCH = "main"
REMOTE = "origin"
UNREACHABLE = (
    "could not resolve host",
    "connection refused",
    "connection timed out",
    "operation timed out",
    "network is unreachable",
    "no route to host",
    "temporary failure in name resolution",
    "unable to access",
    "could not read from remote repository",
    "does not appear to be a git repository",
    "connection reset",
    "connection closed",
)
"""Failures that mean the remote cannot be reached now: offline, not an error."""
AUTH_FAILED = (
    "permission denied (",
    "permission denied, please try again",
    "authentication failed",
    "could not read username",
    "could not read password",
    "invalid username or password",
    "host key verification failed",
    "repository not found",
    "the requested url returned error: 401",
    "the requested url returned error: 403",
)
"""Failures that mean git reached the remote but could not get in: an error to fix, never
offline (SSH adds "could not read from remote repository" after each of them)."""
REJECTED = ("[rejected]", "non-fast-forward", "fetch first", "[remote rejected]")
SSH_CONNECT_TIMEOUT = 8
"""Seconds ssh may take to reach the host and finish its handshake: a host out of reach is
offline by then, so a sync (and the app's quit, which waits for it) never sits out the
system's TCP timeout."""
SSH_ALIVE_INTERVAL = 15
SSH_ALIVE_COUNT = 2
"""Keep-alive probes: a connection that stops answering mid-transfer ends after this many
unanswered probes, this many seconds apart, instead of hanging."""
USER_SSH_VARIABLES = ("GIT_SSH_COMMAND", "GIT_SSH")
"""The environment variables through which a user picks their own ssh (with
`core.sshCommand`, which git ranks between them); either one keeps our default out."""


PRIVATE = "0600"
"""`core.sharedRepository` of the working copy: git writes its files for the owner alone
(directories 0700), whatever the user's umask."""

ENDABLE = frozenset({"fetch", "ls-remote", "push", "cat-file", "diff", "log", "merge-base"})
"""The git commands a cancel ends while they run: the ones that talk to the remote (which can
take long) and local reads. Git removes its lock files when terminated, and a fetch or push
cut short changes no ref here; any other command finishes first, then the next one refuses."""
CANCEL_GRACE = 0.5
"""Seconds a terminated git and its ssh get to exit before they are killed."""
CANCEL_POLL = 0.1
"""How often a running git looks whether it was cancelled."""
BIG_FILE_THRESHOLD = 1024 * 1024
"""git streams blobs above this size instead of holding them in memory (and does not try to
delta them): a hostile remote's oversized blob costs git little memory on the way in."""
FSCK_REFUSED = ("fsck error", "did not pass fsck", "fsck:")
"""What git prints when `fetch.fsckObjects` refuses an object the remote sent (a tree entry
`..`, `.git` or with a slash, a malformed mode or object): the whole fetch is refused."""
PIPE_CHUNK = 1 << 16
"""Bytes moved per read or write of git's pipes."""
PRIVATE_UMASK = 0o077
"""The umask of every git we run: files git writes without asking the setting (FETCH_HEAD)
are private too."""


class GitFailed(SyncRemoteError):
    """One git command failed; the message carries its stderr."""

    def __init__(self, args: Sequence[str], stderr: str) -> None:
        super().__init__(f"git {' '.join(args[:2])} failed: {stderr.strip() or 'no message'}")
        self.stderr = stderr
        self.runbook_anchor = (
            AUTH_ENTRY if self.auth_failed else OFFLINE_ENTRY if self.unreachable else REMOTE_ENTRY
        )

    @property
    def auth_failed(self) -> bool:
        text = self.stderr.lower()
        return any(marker in text for marker in AUTH_FAILED)

    @property
    def unreachable(self) -> bool:
        text = self.stderr.lower()
        return not self.auth_failed and any(marker in text for marker in UNREACHABLE)

    @property
    def reason(self) -> str:
        """The line of git's stderr that says why the remote is out of reach."""
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        for line in lines:
            if any(marker in line.lower() for marker in UNREACHABLE):
                return line.removeprefix("fatal: ")
        return lines[0].removeprefix("fatal: ") if lines else ""

    @property
    def fsck_refused(self) -> bool:
        """git's own checks refused an object the remote sent (see `FSCK_REFUSED`)."""
        text = self.stderr.lower()
        return any(marker in text for marker in FSCK_REFUSED)

    @property
    def rejected(self) -> bool:
        return any(marker in self.stderr for marker in REJECTED)


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One entry of a commit's tree: mode (`100644`, `120000` a link, `160000` a submodule),
    object id, the name's bytes as the tree holds them, and how it changed (A, M, D)."""

    mode: str
    oid: str
    name: bytes
    status: str

    @property
    def text(self) -> str | None:
        """The name as text, None when it is not UTF-8."""
        try:
            return self.name.decode("utf-8")
        except UnicodeDecodeError:
            return None


def _ssh_defaults(*, interactive: bool) -> list[tuple[str, str]]:
    options = [
        ("ConnectTimeout", str(SSH_CONNECT_TIMEOUT)),
        ("ServerAliveInterval", str(SSH_ALIVE_INTERVAL)),
        ("ServerAliveCountMax", str(SSH_ALIVE_COUNT)),
    ]
    if not interactive:
        options.insert(0, ("BatchMode", "yes"))
    return options


def default_ssh_command(*, interactive: bool, config: Path | None = None) -> str:
    """The ssh git runs when the user chose none: bounded connects and keep-alives, and no
    password or passphrase prompt unless a terminal can answer it.

    Why a config file and not `-o`: ssh takes the first value it obtains for each option,
    and command-line options come before every config file, so `-o ConnectTimeout=8` would
    override the user's own `~/.ssh/config`. With `config` (written by `ssh_defaults_file`),
    ssh reads the user's file, then the system's, then ours: ours only fill in what neither
    sets. Without it (no working copy yet to keep the file in) the options go on the command
    line."""
    if config is not None:
        return f"ssh -F {shlex.quote(str(config))}"
    options = _ssh_defaults(interactive=interactive)
    return " ".join(["ssh", *(f"-o {key}={value}" for key, value in options)])


SSH_SYSTEM_CONFIG = "/etc/ssh/ssh_config"


def ssh_defaults_text(*, interactive: bool) -> str:
    """The config `default_ssh_command` points ssh at: the user's and the system's own files
    first (`-F` replaces both, so they are included), then our defaults for every host."""
    user = os.path.expanduser("~/.ssh/config")
    lines = [
        "# Written by decision-journal for its sync: your own ssh settings come first and win.",
        f'Include "{user}"',
        f'Include "{SSH_SYSTEM_CONFIG}"',
        "Host *",
        *(f"    {key} {value}" for key, value in _ssh_defaults(interactive=interactive)),
    ]
    return "\n".join(lines) + "\n"


def ssh_defaults_file(git_dir: Path, *, interactive: bool) -> Path | None:
    """Writes (when it changed) the ssh config of `default_ssh_command` inside git_dir;
    None when there is no git_dir yet or it cannot be written."""
    if not git_dir.is_dir():
        return None
    name = "ssh-defaults-interactive" if interactive else "ssh-defaults"
    target = git_dir / name
    text = ssh_defaults_text(interactive=interactive).encode("utf-8")
    try:
        if not target.is_file() or target.is_symlink() or target.read_bytes() != text:
            atomic_write(git_dir, target, text)
    except (OSError, JournalError):
        return None
    return target


class GitRepo:
    """A working copy; `interactive` lets git ask for credentials on a terminal."""

    def __init__(self, path: Path, *, interactive: bool = False) -> None:
        self.path = path
        self.interactive = interactive
        self._user_ssh: bool | None = None
        self.cancelled = threading.Event()
        """Set by `cancel`: the running git is ended and no further git starts."""

    def cancel(self) -> None:
        """From any thread: ends the running git (see `ENDABLE`) and refuses any later one
        with `SyncCancelled`; for quitting, so it is never undone."""
        self.cancelled.set()

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            GIT_AUTHOR_NAME=AUTHOR[0],
            GIT_AUTHOR_EMAIL=AUTHOR[1],
            GIT_COMMITTER_NAME=AUTHOR[0],
            GIT_COMMITTER_EMAIL=AUTHOR[1],
            LC_ALL="C",
            # commits carry the hour in UTC: no machine's time zone, no exact time of an edit
            GIT_AUTHOR_DATE=_hour_stamp(),
            GIT_COMMITTER_DATE=_hour_stamp(),
        )
        if not self.interactive:
            env["GIT_TERMINAL_PROMPT"] = "0"
        if not self.user_chose_ssh():
            config = ssh_defaults_file(self.path / ".git", interactive=self.interactive)
            env["GIT_SSH_COMMAND"] = default_ssh_command(
                interactive=self.interactive, config=config
            )
        return env

    def user_chose_ssh(self) -> bool:
        """True when the user set their own ssh: `GIT_SSH_COMMAND` or `GIT_SSH` in the
        environment, or `core.sshCommand` in any git config this working copy reads (system,
        global, its own, or `-c` through the environment). Asked once per repository."""
        if any(os.environ.get(name) for name in USER_SSH_VARIABLES):
            return True
        if self._user_ssh is None:
            command = ["git", f"--git-dir={self.path / '.git'}", "config", "--get"]
            try:
                found = subprocess.run(
                    [*command, "core.sshCommand"], capture_output=True, check=False
                )
            except FileNotFoundError:
                return False  # no git at all: the command itself says so
            self._user_ssh = found.returncode == 0 and bool(found.stdout.strip())
        return self._user_ssh

    def run(
        self, *args: str, data: bytes | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[bytes]:
        command = [
            "git",
            "-c", "core.autocrlf=false",
            "-c", "core.safecrlf=false",
            "-c", "commit.gpgsign=false",
            "-c", "gc.auto=0",
            "-c", "transfer.fsckObjects=true",
            "-c", "fetch.fsckObjects=true",
            "-c", f"core.bigFileThreshold={BIG_FILE_THRESHOLD}",
            *args,
        ]  # fmt: skip
        if self.cancelled.is_set():
            raise SyncCancelled(f"the sync was cancelled before git {args[0]}")
        try:
            process = subprocess.Popen(
                command,
                cwd=self.path,
                env=self._env(),
                stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                umask=PRIVATE_UMASK,
                process_group=0 if os.name == "posix" and not self.interactive else None,
            )
        except FileNotFoundError as exc:
            if shutil.which("git") is None:
                raise SyncGitMissing(
                    "git is not installed or not on PATH; sync runs your own git (install it, "
                    "or start the app from a session whose PATH finds it)"
                ) from exc
            raise
        stdout, stderr = self._wait(process, data, args[0])
        result = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
        if check and result.returncode != 0:
            raise GitFailed(args, result.stderr.decode("utf-8", "replace"))
        return result

    def _wait(
        self, process: subprocess.Popen[bytes], data: bytes | None, name: str
    ) -> tuple[bytes, bytes]:
        """The output of a finished git; a cancel ends an endable one (terminated, then
        killed after `CANCEL_GRACE`) and raises `SyncCancelled`.

        The input is written whole, then git's stdin is closed, while its output is read: git
        reads a request while it writes answers, so input larger than a pipe buffer must be
        written and read at once (a join of thousands of records waited there for good)."""
        pipes = _Pipes(process, data)
        ended_at: float | None = None
        while not pipes.step(CANCEL_POLL) or process.poll() is None:
            if name not in ENDABLE or not self.cancelled.is_set():
                if pipes.done:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        process.wait(CANCEL_POLL)
                continue
            if ended_at is None:
                ended_at = time.monotonic()
                _signal(process, signal.SIGTERM)
            elif time.monotonic() - ended_at > CANCEL_GRACE:
                _signal(process, getattr(signal, "SIGKILL", signal.SIGTERM))
            if pipes.done:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(CANCEL_POLL)
        if ended_at is not None:
            raise SyncCancelled(f"the sync was cancelled during git {name}")
        return pipes.output()

    def make_private(self) -> bool:
        """Makes a working copy set up before `PRIVATE` private: the setting, then every
        entry's group and other bits cleared. Returns whether it had to (a copy that has the
        setting costs one `git config` call)."""
        found = self.run("config", "--get", "core.sharedRepository", check=False)
        if found.stdout.strip() == PRIVATE.encode():
            return False
        self.run("config", "core.sharedRepository", PRIVATE)
        for directory, _, filenames in os.walk(self.path, followlinks=False):
            os.chmod(directory, 0o700)
            for name in filenames:
                _clear_shared_bits(os.path.join(directory, name))
        return True

    def text(self, *args: str) -> str:
        return self.run(*args).stdout.decode("utf-8", "replace").strip()

    def rev(self, ref: str) -> str | None:
        result = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return result.stdout.decode().strip() or None

    def names(self, commit: str) -> list[str]:
        return [entry.text for entry in self.entries(commit) if entry.text is not None]

    def entries(self, commit: str, folder: str = "") -> list[TreeEntry]:
        """Every entry of commit's whole tree (or of one top-level `folder` of it) with its
        mode and object, names as git holds them (bytes): what the remote wrote, not what a
        checkout would make of it."""
        limit = ["--", folder] if folder else []
        out = self.run("ls-tree", "-r", "-z", "--full-tree", commit, *limit).stdout
        found = []
        for item in out.split(b"\0"):
            head, tab, name = item.partition(b"\t")
            fields = head.split()
            if tab and len(fields) == 3:
                found.append(TreeEntry(fields[0].decode(), fields[2].decode(), name, "A"))
        return found

    def changed_entries(self, base: str | None, commit: str) -> list[TreeEntry]:
        """The entries that differ from base to commit, with their new mode and object and a
        status letter (A, M, D; a deleted entry has its old mode and object); every entry
        when base is None."""
        if base is None:
            return self.entries(commit)
        out = self.run(
            "diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", base, commit
        ).stdout
        parts = out.split(b"\0")
        found = []
        for i in range(0, len(parts) - 1, 2):
            fields = parts[i].lstrip(b":").split()
            if len(fields) < 5:
                continue
            status = fields[4][:1].decode()
            mode, oid = (fields[0], fields[2]) if status == "D" else (fields[1], fields[3])
            found.append(TreeEntry(mode.decode(), oid.decode(), parts[i + 1], status))
        return found

    def changed(self, base: str | None, commit: str) -> dict[str, str]:
        """Name → status letter (A, M, D) from base to commit; every name when base is None.
        Names that are not UTF-8 are left out (the remote's are screened before this)."""
        return {e.text: e.status for e in self.changed_entries(base, commit) if e.text is not None}

    def sizes(self, objects: Iterable[str]) -> dict[str, tuple[str, int]]:
        """Object (an id, or `commit:name`) → (type, size) from git's object headers alone,
        without reading any content; missing objects are left out."""
        wanted = [o for o in dict.fromkeys(objects) if "\n" not in o]
        if not wanted:
            return {}
        request = "".join(f"{o}\n" for o in wanted).encode()
        check = "--batch-check=%(objecttype) %(objectsize)"
        out = self.run("cat-file", check, data=request).stdout.split(b"\n")
        found: dict[str, tuple[str, int]] = {}
        for wanted_object, line in zip(wanted, out, strict=False):
            fields = line.split()
            if len(fields) == 2 and fields[1].isdigit():
                found[wanted_object] = (fields[0].decode(), int(fields[1]))
        return found

    def contents(self, objects: Iterable[str], *, limit: int) -> dict[str, bytes]:
        """The content of each blob (an id, or `commit:name`) whose header says it holds at
        most `limit` bytes, in one git call; larger, missing and non-blob objects are left out
        and never read."""
        sizes = self.sizes(objects)
        wanted = [o for o, (kind, size) in sizes.items() if kind == "blob" and size <= limit]
        if not wanted:
            return {}
        request = "".join(f"{o}\n" for o in wanted).encode()
        out = self.run("cat-file", "--batch", data=request).stdout
        found: dict[str, bytes] = {}
        position = 0
        for wanted_object in wanted:
            end = out.index(b"\n", position)
            header = out[position:end].split()
            position = end + 1
            if header[-1] == b"missing":
                continue
            size = int(header[2])
            found[wanted_object] = out[position : position + size]
            position += size + 1
        return found

    def blobs(self, commit: str, names: Iterable[str], *, limit: int) -> dict[str, bytes]:
        """The bytes of each name in commit (absent names, and those over `limit` bytes by
        their header, are left out), in two git calls."""
        wanted = {f"{commit}:{name}": name for name in names}
        return {wanted[o]: data for o, data in self.contents(wanted, limit=limit).items()}

    def merge_base(self, one: str, other: str) -> str | None:
        result = self.run("merge-base", one, other, check=False)
        return result.stdout.decode().strip() or None

    def is_ancestor(self, one: str, other: str) -> bool:
        return self.run("merge-base", "--is-ancestor", one, other, check=False).returncode == 0

    def dirty(self) -> bool:
        return bool(self.run("status", "--porcelain", "-z", "--untracked-files=all").stdout)

    def commit_all(self, message: str, parents: Sequence[str]) -> str:
        """Stages the whole tree and commits it with exactly these parents; moves the branch.

        One parent whose tree is the staged tree is a fast-forward: the branch moves to it and
        no commit is made."""
        self.run("add", "-A", ".")
        tree = self.text("write-tree")
        if len(parents) == 1 and self.tree_of(parents[0]) == tree:
            self.run("update-ref", f"refs/heads/{BRANCH}", parents[0])
            return parents[0]
        parent_args = [arg for parent in parents for arg in ("-p", parent)]
        commit = self.text("commit-tree", tree, *parent_args, "-m", message)
        self.run("update-ref", f"refs/heads/{BRANCH}", commit)
        return commit

    def tree_of(self, commit: str) -> str:
        return self.text("rev-parse", f"{commit}^{{tree}}")


def _hour_stamp() -> str:
    return f"{int(time.time()) // 3600 * 3600} +0000"


class _Pipes:
    """git's stdin written and its stdout and stderr read at once, in this thread, through
    one selector: no thread of its own (a worker thread of the app's pool stays as it is)."""

    def __init__(self, process: subprocess.Popen[bytes], data: bytes | None) -> None:
        assert process.stdout is not None and process.stderr is not None
        self.selector = selectors.DefaultSelector()
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.data = memoryview(data or b"")
        self.offset = 0
        self.stdin = process.stdin
        self.selector.register(process.stdout, selectors.EVENT_READ, self.out)
        self.selector.register(process.stderr, selectors.EVENT_READ, self.err)
        if self.stdin is not None:
            if self.data:
                os.set_blocking(self.stdin.fileno(), False)
                self.selector.register(self.stdin, selectors.EVENT_WRITE)
            else:
                self.stdin.close()

    @property
    def done(self) -> bool:
        return not self.selector.get_map()

    def step(self, timeout: float) -> bool:
        """Moves what is ready; True once every pipe is closed."""
        if self.done:
            return True
        for key, _ in self.selector.select(timeout):
            if key.fileobj is self.stdin:
                self._write()
            else:
                self._read(key.fileobj, key.data)  # type: ignore[arg-type]
        return self.done

    def _write(self) -> None:
        assert self.stdin is not None
        piece = self.data[self.offset : self.offset + PIPE_CHUNK]
        try:
            self.offset += os.write(self.stdin.fileno(), piece)
        except BlockingIOError:
            return
        except OSError:  # git stopped reading (a broken pipe): its return code says why
            self.offset = len(self.data)
        if self.offset >= len(self.data):
            self.selector.unregister(self.stdin)
            with contextlib.suppress(OSError):
                self.stdin.close()

    def _read(self, pipe: IO[bytes], into: list[bytes]) -> None:
        chunk = os.read(pipe.fileno(), PIPE_CHUNK)
        if chunk:
            into.append(chunk)
            return
        self.selector.unregister(pipe)
        pipe.close()

    def output(self) -> tuple[bytes, bytes]:
        self.selector.close()
        return b"".join(self.out), b"".join(self.err)


def _clear_shared_bits(path: str) -> None:
    info = os.lstat(path)
    if stat.S_ISREG(info.st_mode) and info.st_mode & 0o077:
        os.chmod(path, stat.S_IMODE(info.st_mode) & 0o700)


def _signal(process: subprocess.Popen[bytes], signum: int) -> None:
    """Sends signum to git and what it started (its ssh), or to git alone where it runs in
    this process group (a terminal's, so ssh can ask for a passphrase)."""
    try:
        if os.name == "posix" and os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
    except ProcessLookupError:
        return
