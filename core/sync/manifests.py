"""The authenticated manifests on an encrypted remote: one per machine, `m/<machine>.age`.

A manifest lists every file of the tree its machine committed: the working-copy name, the
journal path it stands for, the SHA-256 of the ciphertext blob and the plaintext's length
(which cuts the padding off). It carries the machine's sequence number (one more on every
manifest it writes), the sequence numbers of the other machines' manifests it had verified, the
digest of the whole listing, and an HMAC-SHA-256 under the journal's authentication key over
all of it (`core.sync.authenticity` checks it). So a file on the remote is accepted only when a
key holder listed exactly its bytes, and a name maps to a path only through such a listing.

Why one file per machine, rewritten, and not one per sync: a listing of the complete state is
what lets a reader check a tree as a whole and see a rollback, and two machines never write the
same file, so a merge never meets two versions of one manifest. The bytes are gzip-compressed
JSON (`age -d -i key.txt m/….age | zcat` reads one).

Format 1 remotes held name manifests `m/<machine>-<number>.age` with only paths, no MAC; the
first sync by a key holder on this version folds them into its format-2 manifest and removes
them (`core.sync.authenticity.migrate`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from dataclasses import dataclass, field
from operator import itemgetter

from core.bulk.sorted_json import sorted_json
from core.errors import SyncManifestInvalid

FOLDER = "m"
FORMAT = 2
_NAME = re.compile(r"(?P<machine>[0-9a-f]{8})\.age")
_LEGACY_NAME = re.compile(r"(?P<machine>[0-9a-f]{8})-(?P<number>\d{6,})\.age")
MANIFEST_MAX = 256 * 1024 * 1024
"""The largest manifest plaintext a reader inflates (a listing of a million files fits)."""
MANIFEST_BLOB_MAX = 64 * 1024 * 1024
"""The largest manifest blob read from a remote (gzip-compressed, a million files fit)."""


@dataclass(frozen=True, slots=True)
class Listed:
    """One file a manifest vouches for."""

    path: str
    """The journal path, or "" for the remote's own files (the marker, the key check)."""
    digest: str
    """SHA-256 of the ciphertext blob, hex."""
    length: int
    """The plaintext's length before padding; -1 for a file that is not padded."""


@dataclass(slots=True)
class Manifest:
    """One machine's listing of the tree it committed (see the module docstring)."""

    machine: str
    name: str
    seq: int
    files: dict[str, Listed] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)
    machines: dict[str, str] = field(default_factory=dict)
    at: str = ""
    """When its machine wrote it, by that machine's clock (RFC 3339, UTC; "" in manifests of
    earlier versions): covered by the MAC, so the others can say how old a writer's newest
    state is (a frozen remote shows them an old one)."""
    _state: str = field(default="", init=False, repr=False, compare=False)

    @property
    def state(self) -> str:
        """`state_digest` of the files, computed once (a manifest's files never change)."""
        if not self._state:
            self._state = state_digest(self.files)
        return self._state

    def body(self) -> dict[str, object]:
        """Everything the MAC covers, in one canonical shape."""
        return {
            "format": FORMAT,
            "machine": self.machine,
            "name": self.name,
            "seq": self.seq,
            "seen": dict(sorted(self.seen.items())),
            "machines": dict(sorted(self.machines.items())),
            "state": self.state,
            "files": [[n, e.path, e.digest, e.length] for n, e in _by_name(self.files)],
            **({"at": self.at} if self.at else {}),
        }

    def names(self) -> dict[str, str]:
        """Machine id → name: the ones listed, then the writer's own."""
        return {**self.machines, self.machine: self.name}


def canonical(body: dict[str, object]) -> bytes:
    """The bytes a MAC covers: `plain_canonical`'s, written in C (`core.bulk.sorted_json`, exact
    for what a manifest holds: text, integers, lists and dicts; `decode` refuses a float)."""
    return sorted_json(body)


def plain_canonical(value: object) -> bytes:
    """Compact JSON with sorted keys, UTF-8: what every version's MAC covers."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def _no_float(text: str) -> object:
    raise SyncManifestInvalid(
        f"not a format-{FORMAT} manifest: it holds a number that is not an integer ({text[:20]})"
    )


def state_digest(files: dict[str, Listed]) -> str:
    """The digest of a complete listing: name, blob digest and length of every file, sorted."""
    lines = "".join([f"{n} {e.digest} {e.length}\n" for n, e in _by_name(files)])
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def _by_name(files: dict[str, Listed]) -> list[tuple[str, Listed]]:
    return sorted(files.items(), key=itemgetter(0))  # by name alone: names are unique


def encode(body: dict[str, object], mac: str) -> bytes:
    text = canonical({**body, "mac": mac})
    # level 3 compresses a listing of hex digests about as well as 6, and much faster
    return gzip.compress(text, compresslevel=3, mtime=0)


def decode(plain: bytes) -> tuple[Manifest, dict[str, object], str]:
    """The manifest, the body its MAC covers, and the MAC as written (not yet checked).

    Raises:
        SyncManifestInvalid: not gzip-compressed JSON of the format-2 shape.
    """
    try:
        inflater = zlib.decompressobj(wbits=31)  # gzip; the padding after it is ignored
        text = inflater.decompress(plain, MANIFEST_MAX)
        if inflater.unconsumed_tail:
            raise SyncManifestInvalid(f"a manifest inflates past {MANIFEST_MAX} bytes")
        # no writer puts a float in a manifest, and the MAC's encoding is exact without them
        raw = json.loads(text, parse_float=_no_float, parse_constant=_no_float)
        mac = raw.pop("mac")
        files = {str(n): Listed(str(p), str(d), int(length)) for n, p, d, length in raw["files"]}
        manifest = Manifest(
            str(raw["machine"]),
            str(raw["name"]),
            int(raw["seq"]),
            files,
            {str(k): int(v) for k, v in raw["seen"].items()},
            {str(k): str(v) for k, v in raw["machines"].items()},
            str(raw.get("at", "")),
        )
        if raw["format"] != FORMAT or raw["state"] != manifest.state or not isinstance(mac, str):
            raise SyncManifestInvalid("a manifest's format or state digest does not match")
    except (zlib.error, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise SyncManifestInvalid(f"not a format-{FORMAT} manifest: {_why(exc)}") from exc
    return manifest, raw, mac


def _why(error: Exception) -> str:
    """What was wrong with a manifest that does not decode, in plain words (never Python's
    own message: "invalid literal for int()" says nothing to a person)."""
    if isinstance(error, zlib.error):
        return "it is not gzip-compressed"
    if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
        return "its contents are not JSON"
    if isinstance(error, KeyError):
        return f"it lacks the field {error.args[0]!r}" if error.args else "it lacks a field"
    return "a field holds the wrong kind of value (a number, text or list where another is due)"


def name_of(machine: str) -> str:
    return f"{FOLDER}/{machine}.age"


def machine_of(name: str) -> str | None:
    """The machine a manifest name belongs to; None for any other name."""
    folder, _, base = name.partition("/")
    match = _NAME.fullmatch(base) if folder == FOLDER else None
    return match.group("machine") if match else None


def is_manifest(name: str) -> bool:
    """Whether a working-copy name (POSIX, relative) is a format-2 manifest."""
    return machine_of(name) is not None


def is_legacy(name: str) -> bool:
    """Whether a working-copy name is a format-1 name manifest."""
    folder, _, base = name.partition("/")
    return folder == FOLDER and _LEGACY_NAME.fullmatch(base) is not None


@dataclass(frozen=True, slots=True)
class LegacyManifest:
    """A format-1 name manifest: paths one machine named first, its name, other names."""

    machine: str
    name: str
    paths: list[str]
    machines: dict[str, str]

    @classmethod
    def decode(cls, data: bytes) -> LegacyManifest:
        raw = json.loads(data)
        return cls(raw["machine"], raw["name"], list(raw["paths"]), dict(raw.get("machines", {})))
