"""The sync key, the encryption of every pushed file, and the keyed names on the remote.

Why an age X25519 identity and not an scrypt passphrase: age's scrypt recipient is deliberately
slow (about a second per file at its default work factor), and a journal is tens of thousands of
files; an X25519 identity is a random 256-bit key, as strong as its storage, and the exported
pairing string *is* the age identity, so `age -d -i key.txt FILE` opens any pushed file.

Remote file names are an HMAC-SHA-256 of the journal-relative path under a key derived from the
identity, so the same path gets the same name on every machine (a three-way merge can compare
them) while the remote learns no decision or project id. A second key, derived under another
context, authenticates the manifests (`core.sync.authenticity`): age alone gives secrecy, and
anyone who reads the recipient can encrypt to it.

Every sealed plaintext is padded with newlines to a Padmé bucket, so a ciphertext's size tells
the remote little more than the order of magnitude of the file's; `age -d` still opens every
file (a JSON record followed by blank lines), and the reader cuts the padding at the length
the authenticated manifest lists.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

import pyrage
from pyrage import x25519

from core.errors import SyncKeyWrong

KEY_PREFIX = "AGE-SECRET-KEY-1"
NAME_CONTEXT = b"decision-journal-sync/v1/file-names"
AUTH_CONTEXT = b"decision-journal-sync/v2/manifest-authentication"
PAD_MIN = 512
"""The smallest padded plaintext: every record, note and short log is this size on the remote."""
PAD_BYTE = b"\n"
NAME_HEX = 32
ENCRYPTED_SUFFIX = ".age"
DATA_DIR = "d"


@dataclass(frozen=True, slots=True)
class SyncKey:
    """One journal's sync key: the age identity and what is derived from it."""

    secret: str

    @classmethod
    def generate(cls) -> SyncKey:
        return cls(str(x25519.Identity.generate()))

    @classmethod
    def parse(cls, text: str) -> SyncKey:
        """A pairing string as the user pasted it (surrounding blanks are ignored).

        Raises:
            SyncKeyWrong: it is not an age X25519 secret key.
        """
        candidate = text.strip()
        if not candidate.upper().startswith(KEY_PREFIX):
            raise SyncKeyWrong(
                f"the pairing string must start with {KEY_PREFIX} (got {len(candidate)} "
                "characters that do not); copy the whole line `sync export-key` printed"
            )
        try:
            x25519.Identity.from_str(candidate.upper())
        except (pyrage.IdentityError, ValueError) as exc:
            raise SyncKeyWrong(
                "the pairing string is damaged (its checksum does not match); copy the whole "
                "line `sync export-key` printed"
            ) from exc
        return cls(candidate.upper())

    def _identity(self) -> x25519.Identity:
        return x25519.Identity.from_str(self.secret)

    @property
    def recipient(self) -> str:
        return str(self._identity().to_public())

    def name_key(self) -> bytes:
        return hmac.new(self.secret.encode("ascii"), NAME_CONTEXT, hashlib.sha256).digest()

    def auth_key(self) -> bytes:
        """The key of the manifests' MACs: HMAC-SHA-256 of the secret under its own context,
        so it is independent of the name key (names are visible on the remote)."""
        return hmac.new(self.secret.encode("ascii"), AUTH_CONTEXT, hashlib.sha256).digest()


def padded_size(length: int) -> int:
    """Padmé (Nikitin et al., PETS 2019): the size rounded up so that only its top bits stay,
    at most 12 % more bytes, and a size reveals O(log log n) bits instead of O(log n)."""
    length = max(length, PAD_MIN)
    exponent = length.bit_length() - 1
    low_bits = exponent - exponent.bit_length()
    mask = (1 << low_bits) - 1
    return (length + mask) & ~mask


def pad(data: bytes) -> bytes:
    return data + PAD_BYTE * (padded_size(len(data)) - len(data))


class Codec:
    """How a journal file is named and stored in the working copy: encrypted or plain."""

    encrypted = False

    def name(self, path: str) -> str:
        return path

    auth_key = b""
    """The manifests' MAC key; empty on a plain remote, which authenticates nothing."""
    recipient = ""

    def seal(self, data: bytes) -> bytes:
        return data

    def open(self, data: bytes, length: int | None = None) -> bytes:
        return data if length is None else data[:length]


class AgeCodec(Codec):
    """age-encrypted contents under keyed names `d/ab/cdef….age`."""

    encrypted = True

    def __init__(self, key: SyncKey) -> None:
        self._identity = x25519.Identity.from_str(key.secret)
        self._recipient = self._identity.to_public()
        self._name_key = key.name_key()
        self.auth_key = key.auth_key()
        self.recipient = str(self._recipient)

    def name(self, path: str) -> str:
        digest = hmac.new(self._name_key, path.encode("utf-8"), hashlib.sha256).hexdigest()
        digest = digest[:NAME_HEX]
        return f"{DATA_DIR}/{digest[:2]}/{digest[2:]}{ENCRYPTED_SUFFIX}"

    def seal(self, data: bytes) -> bytes:
        return bytes(pyrage.encrypt(pad(data), [self._recipient]))

    def open(self, data: bytes, length: int | None = None) -> bytes:
        """The plaintext of one pushed file, cut at `length` (the authenticated length, which
        drops the padding) when given.

        Raises:
            SyncKeyWrong: this key did not encrypt it.
        """
        try:
            plain = bytes(pyrage.decrypt(data, [self._identity]))
        except pyrage.DecryptError as exc:
            raise SyncKeyWrong(
                f"the sync key does not open this remote ({exc}); join with the pairing "
                "string of the machine that ran `sync init`"
            ) from exc
        return plain if length is None else plain[:length]
