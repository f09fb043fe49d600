"""A compromised sync remote, built with plain git and no sync key, for the adversarial tests.

`plant` writes objects straight into the bare remote (as a git host someone else controls
would) and moves its branch to a new commit on top: any name (`..`, `.git`, a slash, bytes
that are not UTF-8), any mode (a link, a gitlink), any content. Trees are written with
`hash-object --literally`, so git's own checks on `mktree` do not stop an attack before the
victim's fetch sees it. `home_digest` fingerprints every file and folder of a HOME outside the
journal, to prove nothing there changed.

`Attacker` is the same adversary working as a git user would: it clones the remote, changes
the tree with plain `git` (`rm`, `revert`, a force-push) and encrypts what it forges with the
`age` CLI to the recipient the remote's marker publishes, which is all anyone without the key
can do. `honest_pair` sets up two honest machines in-process, for speed.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.paths import MARKER
from core.sync.report import SyncReport
from tests.integration.sync_machines import Machine, bare_remote

BRANCH = "main"
FILE = b"100644"
LINK = b"120000"
GITLINK = b"160000"
TREE = b"40000"


@dataclass(frozen=True)
class Entry:
    """What `plant` puts at a path: content (bytes) or an existing object id, with a mode."""

    content: bytes = b""
    mode: bytes = FILE
    oid: str = ""


def git(remote: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={remote}", *args], input=data, capture_output=True, check=True
    ).stdout


def head(remote: Path) -> str:
    return git(remote, "rev-parse", f"refs/heads/{BRANCH}").decode().strip()


def reset(remote: Path, commit: str) -> None:
    """The remote's owner puts the branch back (as after restoring a compromised host)."""
    git(remote, "update-ref", f"refs/heads/{BRANCH}", commit)


def blob(remote: Path, content: bytes) -> str:
    return git(remote, "hash-object", "-w", "--stdin", data=content).decode().strip()


def big_blob(remote: Path, size: int, scratch: Path) -> str:
    """A blob of `size` zero bytes from a sparse file: cheap to make, git compresses it."""
    path = scratch / "big.bin"
    with open(path, "wb") as handle:
        handle.truncate(size)
    oid = git(remote, "hash-object", "-w", str(path)).decode().strip()
    path.unlink()
    return oid


def random_blob(remote: Path, size: int, scratch: Path, seed: int = 0) -> str:
    """A blob of `size` bytes git cannot compress (a keyed stream), so it takes its full size
    in any object store that keeps it."""
    path = scratch / f"random-{seed}.bin"
    with open(path, "wb") as handle:
        block = 0
        while handle.tell() < size:
            handle.write(hashlib.shake_256(f"{seed}:{block}".encode()).digest(1024 * 1024))
            block += 1
        handle.truncate(size)
    oid = git(remote, "hash-object", "-w", str(path)).decode().strip()
    path.unlink()
    return oid


def disk_size(folder: Path) -> int:
    """The bytes the files under folder take (what a refused object would add)."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _listing(remote: Path, tree: str | None) -> dict[bytes, tuple[bytes, str]]:
    if tree is None:
        return {}
    out = git(remote, "ls-tree", "-z", tree)
    found = {}
    for item in out.split(b"\0"):
        if item:
            meta, _, name = item.partition(b"\t")
            mode, _, oid = meta.split()
            found[name] = (mode.lstrip(b"0") or mode, oid.decode())
    return found


def _write_tree(remote: Path, entries: dict[bytes, tuple[bytes, str]]) -> str:
    def order(name: bytes) -> bytes:
        return name + (b"/" if entries[name][0] == TREE else b"")

    raw = b"".join(
        entries[n][0] + b" " + n + b"\0" + bytes.fromhex(entries[n][1])
        for n in sorted(entries, key=order)
    )
    args = ("hash-object", "-t", "tree", "--literally", "-w", "--stdin")
    return git(remote, *args, data=raw).decode().strip()


def _graft(remote: Path, tree: str | None, parts: tuple[bytes, ...], entry: Entry) -> str:
    entries = _listing(remote, tree)
    name = parts[0]
    if len(parts) == 1:
        entries[name] = (entry.mode, entry.oid or blob(remote, entry.content))
    else:
        below = entries.get(name)
        sub = below[1] if below and below[0] == TREE else None
        entries[name] = (TREE, _graft(remote, sub, parts[1:], entry))
    return _write_tree(remote, entries)


def plant(
    remote: Path,
    files: dict[str | tuple[bytes, ...], Entry | bytes],
    *,
    remove: tuple[str, ...] = (),
) -> str:
    """A commit on top of the remote's branch whose tree is the current one plus `files`
    (a str path is split on "/", a tuple gives raw name components) minus `remove`; the
    branch moves to it. Returns the commit."""
    parent = head(remote)
    tree: str | None = git(remote, "rev-parse", f"{parent}^{{tree}}").decode().strip()
    for path, value in files.items():
        parts = tuple(p.encode() for p in path.split("/")) if isinstance(path, str) else path
        entry = value if isinstance(value, Entry) else Entry(value)
        tree = _graft(remote, tree, parts, entry)
    for path in remove:
        tree = _prune(remote, tree, tuple(p.encode() for p in path.split("/")))
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "attacker",
        "GIT_AUTHOR_EMAIL": "a@example.invalid",
        "GIT_COMMITTER_NAME": "attacker",
        "GIT_COMMITTER_EMAIL": "a@example.invalid",
    }
    commit = (
        subprocess.run(
            ["git", f"--git-dir={remote}", "commit-tree", str(tree), "-p", parent, "-m", "tamper"],
            capture_output=True,
            check=True,
            env=env,
        )
        .stdout.decode()
        .strip()
    )
    reset(remote, commit)
    return commit


def _prune(remote: Path, tree: str | None, parts: tuple[bytes, ...]) -> str:
    entries = _listing(remote, tree)
    if len(parts) == 1:
        entries.pop(parts[0], None)
    elif parts[0] in entries:
        entries[parts[0]] = (TREE, _prune(remote, entries[parts[0]][1], parts[1:]))
    return _write_tree(remote, entries)


def remote_names(remote: Path) -> list[str]:
    out = git(remote, "ls-tree", "-r", "-z", "--name-only", BRANCH)
    return [n.decode("utf-8", "replace") for n in out.split(b"\0") if n]


def home_digest(home: Path, skip: Path) -> dict[str, str]:
    """Every entry below home but outside skip: path → kind, mode and content digest (a link
    by its target), so a file written, replaced, chmod-ed or made is a difference."""
    found: dict[str, str] = {}
    skip = skip.resolve()
    for directory, folders, files in os.walk(home, followlinks=False):
        here = Path(directory)
        if here.resolve() == skip or skip in here.resolve().parents:
            folders[:] = []
            continue
        found[str(here)] = f"dir {stat.S_IMODE(os.lstat(here).st_mode):o}"
        for name in files + [f for f in folders if (here / f).is_symlink()]:
            path = here / name
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                found[str(path)] = f"link {os.readlink(path)}"
            elif stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                found[str(path)] = f"file {stat.S_IMODE(info.st_mode):o} {digest}"
            else:
                found[str(path)] = f"special {info.st_mode:o}"
    return found


def seed_home(home: Path) -> None:
    """The files the attacks aim at: a shell profile, SSH keys, a folder's mode."""
    (home / ".ssh").mkdir(mode=0o700, exist_ok=True)
    (home / ".bashrc").write_text("# the user's own\n")
    (home / ".ssh" / "config").write_text("Host *\n")
    (home / "notes.txt").write_text("keep me\n")
    os.chmod(home, 0o755)


# working as a git user would ----------------------------------------------------------

GIT_ID = ("-c", "user.name=mallory", "-c", "user.email=mallory@example.invalid")


def git_in(cwd: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", *GIT_ID, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@dataclass
class Attacker:
    """A clone of the remote in `work`, pushed back with `push`."""

    remote: Path
    work: Path

    @classmethod
    def of(cls, remote: Path, tmp_path: Path) -> Attacker:
        work = tmp_path / "mallory"
        subprocess.run(
            ["git", "clone", "-q", "-b", "main", str(remote), str(work)],
            check=True,
            capture_output=True,
        )
        return cls(remote, work)

    def pull(self) -> None:
        git_in(self.work, "fetch", "-q", "origin")
        git_in(self.work, "reset", "-q", "--hard", "origin/main")

    @property
    def recipient(self) -> str:
        return str(json.loads((self.work / MARKER).read_text())["recipient"])

    def encrypt(self, plain: bytes, recipient: str | None = None) -> bytes:
        """What anyone can make: an age file to the recipient the remote publishes."""
        return subprocess.run(
            ["age", "-r", recipient or self.recipient],
            input=plain,
            capture_output=True,
            check=True,
        ).stdout

    def write(self, name: str, data: bytes) -> None:
        target = self.work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def commit(self, message: str = "sync") -> str:
        git_in(self.work, "add", "-A", ".")
        git_in(self.work, "commit", "-q", "-m", message)
        return git_in(self.work, "rev-parse", "HEAD")

    def push(self, *, force: bool = False) -> None:
        git_in(self.work, "push", "-q", *(["--force"] if force else []), "origin", "HEAD:main")

    def names(self) -> list[str]:
        return git_in(self.work, "ls-files").split()

    def commits(self) -> list[str]:
        return git_in(self.work, "rev-list", "HEAD").split()


def remote_tree(remote: Path) -> dict[str, str]:
    """Name → blob id of the remote branch's tree."""
    out = subprocess.run(
        ["git", f"--git-dir={remote}", "ls-tree", "-r", "main"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line.split("\t", 1)[1]: line.split()[2] for line in out.splitlines()}


def engine_sync(machine: Machine) -> SyncReport:
    return SyncEngine(machine.root).sync()


def honest_pair(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    """A laptop that set up sync and a desk that joined, in-process, each with one decision,
    both synced so each holds both; returns them and the bare remote."""
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-laptop-1", "Pick the cache eviction policy")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    SyncEngine(laptop.root).init(url, encrypt=True, key_file=str(laptop.key_file))
    desk.put("decision-desk-1", "Decide the log format")
    desk.key_file.parent.mkdir(parents=True, exist_ok=True)
    desk.key_file.write_text(laptop.key_file.read_text())
    desk.key_file.chmod(0o600)
    key = load_key(KeyLocation("file", "", str(desk.key_file)))
    SyncEngine(desk.root).join(url, key=key, key_file=str(desk.key_file))
    engine_sync(laptop)
    engine_sync(desk)
    return laptop, desk, remote


def blob_name(machine: Machine, path: str) -> str:
    """The remote name of a journal path (the attacker sees names, not which is which; the
    test picks the one that matters)."""
    return SyncEngine(machine.root).codec().name(path)
