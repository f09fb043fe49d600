"""Name manifests on an encrypted remote, and their compaction.

An encrypted remote names each file by a keyed hash of its journal path, so a machine learns
which path a name stands for from the manifests in `m/`: `<machine>-<number>.age`, each listing
the paths that machine named first since its previous manifest, with the machine's name. Every
sync that brings a new path (a decision, a revision, a note file) writes one, so without
compaction the folder grows by one file per such sync for as long as the journal lives, and
a machine that joins decrypts every one of them.

Compaction: when the working copy holds more than `BOUND` manifests, the syncing machine writes
one manifest with the union of every path and machine name they list, then removes the ones it
folded. Why a concurrent machine still converges:

- A manifest is never rewritten once written, so a removal on one side and a new manifest on
  the other never touch the same file; a merge takes the other side's removals and keeps both
  sides' new manifests (`core.sync.incoming`).
- The union keeps every path ever listed, not only those of files still present: a machine
  that restores a file it had named before writes no new manifest for it, so a path dropped
  from the union could be a name nobody can read any more.
- Numbers only grow: each new manifest is numbered above every manifest in the working copy,
  the folded one included, so a removed name never comes back with other content.

Two machines that compact at once fold the same manifests; the merge keeps both folded files
(which list the same paths) and the next compaction folds them into one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from core.sync.crypto import Codec

FOLDER = "m"
BOUND = 64
"""Manifests a working copy may hold before the next export folds them into one."""
_NAME = re.compile(r"(?P<machine>[0-9a-f]{8})-(?P<number>\d{6,})\.age")


@dataclass(slots=True)
class Manifest:
    """Paths one machine named, its name, and (in a folded manifest) other machines' names."""

    machine: str
    name: str
    paths: list[str]
    machines: dict[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        body: dict[str, object] = {"machine": self.machine, "name": self.name, "paths": self.paths}
        if self.machines:
            body["machines"] = self.machines
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    @classmethod
    def decode(cls, data: bytes) -> Manifest:
        raw = json.loads(data)
        return cls(raw["machine"], raw["name"], list(raw["paths"]), dict(raw.get("machines", {})))

    def names(self) -> dict[str, str]:
        """Machine id → name: the ones listed, then the writer's own."""
        return {**self.machines, self.machine: self.name}


def is_manifest(name: str) -> bool:
    """Whether a working-copy name (POSIX, relative) is a manifest."""
    folder, _, base = name.partition("/")
    return folder == FOLDER and _NAME.fullmatch(base) is not None


def listed(working_copy: Path) -> list[str]:
    """The manifests in the working copy, as working-copy names, oldest number first."""
    folder = working_copy / FOLDER
    found = [n for n in os.listdir(folder) if _NAME.fullmatch(n)] if folder.is_dir() else []
    return [f"{FOLDER}/{n}" for n in sorted(found, key=listed_key)]


def listed_key(name: str) -> tuple[int, str]:
    """The order manifests are listed and folded in: by number, then by name."""
    return _number(name), name.rsplit("/", 1)[-1]


def _number(name: str) -> int:
    match = _NAME.fullmatch(name.rsplit("/", 1)[-1])
    return int(match.group("number")) if match else 0


def next_name(working_copy: Path, machine: str) -> str:
    """A name for this machine's next manifest, numbered above every manifest present."""
    number = 1 + max((_number(n) for n in listed(working_copy)), default=0)
    return f"{FOLDER}/{machine}-{number:06d}.age"


def folded(manifests: list[Manifest], machine: str, machine_name: str) -> Manifest:
    """One manifest with every path and machine name the given ones list, first seen first."""
    paths = list(dict.fromkeys(path for item in manifests for path in item.paths))
    names: dict[str, str] = {}
    for item in manifests:
        names.update(item.names())
    names.pop(machine, None)
    return Manifest(machine, machine_name, paths, names)


@dataclass(frozen=True, slots=True)
class Compaction:
    """What one compaction did: the manifests it removed and the one it wrote."""

    removed: list[str]
    written: str


def compact(
    working_copy: Path,
    codec: Codec,
    writer: Manifest,
    write_blob: Callable[[str, bytes], None],
    remove_blob: Callable[[str], None],
    *,
    bound: int | None = None,
) -> Compaction | None:
    """Folds every manifest into one when there are more than `bound`; None when not needed.

    The folded manifest is written before any is removed, so a compaction cut short leaves
    only extra manifests behind, which the next one folds. `writer` names the machine that
    compacts (its paths are ignored).

    Raises:
        SyncKeyWrong: a manifest does not open with this key (nothing is removed).
    """
    names = listed(working_copy)
    if len(names) <= (BOUND if bound is None else bound):
        return None
    manifests = [Manifest.decode(codec.open((working_copy / name).read_bytes())) for name in names]
    union = folded(manifests, writer.machine, writer.name)
    target = next_name(working_copy, writer.machine)
    write_blob(target, codec.seal(union.encode()))
    for name in names:
        remove_blob(name)
    return Compaction(names, target)
