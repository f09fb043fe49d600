"""Authenticated manifests, the check of what a remote holds, and the padding of ciphertexts."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import SyncManifestInvalid
from core.sync import authenticity, manifests
from core.sync.authenticity import RemoteCheck, blob_digest, sign, verify
from core.sync.crypto import PAD_MIN, AgeCodec, SyncKey, pad, padded_size
from core.sync.manifests import Listed, Manifest
from core.sync.report import ROLLBACK, TAMPERED, UNDECRYPTABLE, SyncReport

LAPTOP, DESK = "0a0a0a0a", "0d0d0d0d"
KEY = SyncKey.generate()
CODEC = AgeCodec(KEY)


def _manifest(
    machine: str, seq: int, files: dict[str, bytes], seen: dict[str, int] | None = None
) -> Manifest:
    listing = {
        name: Listed(f"records/{name[-12:-4]}.json", blob_digest(blob), 10)
        for name, blob in files.items()
    }
    return Manifest(machine, "laptop", seq, listing, seen or {}, {})


def _sealed(manifest: Manifest, codec: AgeCodec = CODEC) -> bytes:
    return codec.seal(sign(manifest, codec.auth_key))


def test_the_authentication_key_is_not_the_name_key() -> None:
    assert KEY.auth_key() != KEY.name_key()
    assert KEY.auth_key() == SyncKey.parse(KEY.secret).auth_key()
    assert SyncKey.generate().auth_key() != KEY.auth_key()


def test_a_signed_manifest_verifies_and_any_change_breaks_it() -> None:
    blob = CODEC.seal(b'{"id":"x"}\n')
    manifest = _manifest(LAPTOP, 3, {"d/ab/cdef.age": blob})
    plain = sign(manifest, KEY.auth_key())
    found = verify(plain, KEY.auth_key(), manifests.name_of(LAPTOP))
    assert found.files == manifest.files and found.seq == 3 and found.state == manifest.state
    with pytest.raises(SyncManifestInvalid, match="authentication does not match"):
        verify(plain, SyncKey.generate().auth_key(), manifests.name_of(LAPTOP))
    with pytest.raises(SyncManifestInvalid, match="stored as"):
        verify(plain, KEY.auth_key(), manifests.name_of(DESK))
    forged = _manifest(LAPTOP, 4, {"d/ab/cdef.age": CODEC.seal(b"forged")})
    body = forged.body()
    with pytest.raises(SyncManifestInvalid, match="authentication does not match"):
        verify(
            manifests.encode(body, hashlib.sha256(b"guess").hexdigest()),
            KEY.auth_key(),
            "m/0a0a0a0a.age",
        )
    with pytest.raises(SyncManifestInvalid):
        verify(b"not gzip at all", KEY.auth_key(), manifests.name_of(LAPTOP))


def test_the_remote_check_opens_only_listed_bytes_and_cuts_the_padding() -> None:
    honest = CODEC.seal(b'{"id":"x"}')
    forged = CODEC.seal(b'{"id":"forged"}')  # anyone can encrypt to the recipient
    check = RemoteCheck(CODEC, {}, DESK)
    report = SyncReport("synced")
    manifest = _manifest(LAPTOP, 1, {"d/ab/cdef.age": honest})
    check.add(manifests.name_of(LAPTOP), _sealed(manifest), report)
    assert check.strict and report.refused == []
    assert check.open("d/ab/cdef.age", honest, report) == b'{"id":"x"}'
    assert check.open("d/ab/cdef.age", forged, report) is None
    assert check.open("d/00/other.age", honest, report) is None  # listed under another name
    assert [r.kind for r in report.refused] == [TAMPERED, TAMPERED]
    assert "changed on the remote by someone without the key" in report.refused[0].message


def test_forged_foreign_and_rolled_back_manifests_are_named() -> None:
    report = SyncReport("synced")
    check = RemoteCheck(CODEC, {LAPTOP: 5}, DESK)
    check.add(manifests.name_of(LAPTOP), _sealed(_manifest(LAPTOP, 4, {})), report)
    check.add("m/0b0b0b0b.age", CODEC.seal(b"garbage"), report)
    other = AgeCodec(SyncKey.generate())
    check.add("m/0c0c0c0c.age", _sealed(_manifest("0c0c0c0c", 1, {}), other), report)
    kinds = {r.name: r.kind for r in report.refused}
    assert kinds == {
        manifests.name_of(LAPTOP): ROLLBACK,
        "m/0b0b0b0b.age": TAMPERED,
        "m/0c0c0c0c.age": UNDECRYPTABLE,
    }
    assert report.refused[0].message.startswith("the remote was rolled back")


@pytest.mark.parametrize(
    ("plain", "said"),
    # ids from the wording: gzip's header holds the time, and parallel workers must collect the
    # same test names
    [
        (b"not gzip at all", "it is not gzip-compressed"),
        (gzip.compress(b"{not json"), "its contents are not JSON"),
        (gzip.compress(b'{"format": 2, "mac": "00"}'), "it lacks the field 'files'"),
        (
            gzip.compress(
                json.dumps(
                    {
                        "format": 2,
                        "machine": LAPTOP,
                        "name": "x",
                        "seq": "one",
                        "files": [],
                        "seen": {},
                        "machines": {},
                        "state": "0" * 64,
                        "mac": "0" * 64,
                    }
                ).encode()
            ),
            "a field holds the wrong kind of value",
        ),
    ],
    ids=["not gzip", "not JSON", "no files", "wrong kind"],
)
def test_a_manifest_that_does_not_decode_is_refused_in_plain_words(plain: bytes, said: str) -> None:
    report = SyncReport("synced")
    RemoteCheck(CODEC, {}, DESK).add(manifests.name_of(LAPTOP), CODEC.seal(plain), report)
    [refusal] = report.refused
    assert refusal.kind == TAMPERED
    assert said in refusal.message and "changed on the remote by someone" in refusal.message
    for python_words in ("invalid literal", "Expecting", "Error", "codec", "KeyError"):
        assert python_words not in refusal.message


def test_a_writer_older_than_another_writer_saw_is_a_rollback() -> None:
    report = SyncReport("synced")
    check = RemoteCheck(CODEC, {}, "0e0e0e0e")
    check.add(manifests.name_of(LAPTOP), _sealed(_manifest(LAPTOP, 2, {})), report)
    check.add(manifests.name_of(DESK), _sealed(_manifest(DESK, 7, {}, {LAPTOP: 3})), report)
    check._cross_check(report)
    assert [(r.name, r.kind) for r in report.refused] == [(manifests.name_of(LAPTOP), ROLLBACK)]


def test_a_plain_remote_checks_nothing() -> None:
    from core.sync.crypto import Codec

    check = RemoteCheck(Codec(), {}, DESK)
    assert not check.strict
    assert check.open("records/x.json", b"{}", None) == b"{}"


@given(st.integers(min_value=0, max_value=50_000_000))
def test_padme_sizes_grow_by_at_most_twelve_percent_and_reveal_few_bits(length: int) -> None:
    size = padded_size(length)
    assert size >= max(length, PAD_MIN)
    assert size <= max(length, PAD_MIN) * 1.12 + 1
    exponent = size.bit_length() - 1
    kept = exponent.bit_length()  # Padmé keeps about log2(log2(n)) + 1 significant bits
    assert size % (1 << (exponent - kept)) == 0 if exponent > kept else True


@given(st.binary(max_size=3000))
def test_padding_is_cut_at_the_listed_length(data: bytes) -> None:
    padded = pad(data)
    assert len(padded) == padded_size(len(data)) and padded.startswith(data)
    assert set(padded[len(data) :]) <= {ord("\n")}
    assert CODEC.open(CODEC.seal(data), len(data)) == data


def _payload(sealed: bytes) -> bytes:
    """An age file after its header (whose size age varies itself, with a random stanza)."""
    header_end = sealed.index(b"\n---")
    return sealed[sealed.index(b"\n", header_end + 1) + 1 :]


def test_equal_sized_buckets_hide_small_differences() -> None:
    sizes = {len(_payload(CODEC.seal(b"x" * n))) for n in range(0, 513, 7)}
    assert sizes == {16 + PAD_MIN + 16}  # nonce, one chunk, its tag
    assert len({len(_payload(CODEC.seal(b"x" * n))) for n in range(2049, 2100)}) == 1


def test_listed_bytes_with_one_byte_appended_are_tampered_not_undecryptable() -> None:
    """A genuine blob changed on the remote (here: one byte appended, so it no longer opens)
    is named as changed without the key; `undecryptable` is kept for listed bytes that do
    not open."""
    honest = CODEC.seal(b'{"id":"x"}')
    check = RemoteCheck(CODEC, {}, DESK)
    report = SyncReport("synced")
    check.add(
        manifests.name_of(LAPTOP), _sealed(_manifest(LAPTOP, 1, {"d/ab/cdef.age": honest})), report
    )
    assert check.open("d/ab/cdef.age", honest + b"x", report) is None
    assert [r.kind for r in report.refused] == [TAMPERED]
    garbage = b"age-encryption.org/v1\n-> garbage\n"
    listed = RemoteCheck(CODEC, {}, DESK)
    listed.add(
        manifests.name_of(LAPTOP), _sealed(_manifest(LAPTOP, 1, {"d/ab/cdef.age": garbage})), report
    )
    assert listed.open("d/ab/cdef.age", garbage, report) is None
    assert report.refused[-1].kind == UNDECRYPTABLE


def test_a_manifest_checked_once_is_taken_from_the_memo_only_for_its_exact_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blob = CODEC.seal(b'{"id":"x"}')
    sealed = _sealed(_manifest(LAPTOP, 5, {"d/ab/cdef.age": blob}))
    name = manifests.name_of(LAPTOP)
    RemoteCheck(CODEC, {}, DESK).add(name, sealed, SyncReport("synced"))
    opened: list[bytes] = []
    real_verify = authenticity.verify
    monkeypatch.setattr(authenticity, "verify", lambda *a: opened.append(a[0]) or real_verify(*a))
    again = RemoteCheck(CODEC, {}, DESK)
    again.add(name, sealed, SyncReport("synced"))
    assert opened == [] and again.valid[name].seq == 5  # the same bytes: not opened again
    tampered = sealed[:-1] + bytes([sealed[-1] ^ 1])
    report = SyncReport("synced")
    third = RemoteCheck(CODEC, {}, DESK)
    third.add(name, tampered, report)
    assert name not in third.valid and [r.kind for r in report.refused] == [UNDECRYPTABLE]
    other = RemoteCheck(CODEC, {}, DESK)
    other.add(manifests.name_of(DESK), sealed, report)  # the same bytes under another name
    assert manifests.name_of(DESK) not in other.valid and len(opened) == 1
