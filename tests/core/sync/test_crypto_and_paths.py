"""The key, the age encryption, the keyed names and what moves."""

from __future__ import annotations

import pytest

from core.errors import SyncKeyWrong
from core.sync.crypto import AgeCodec, Codec, SyncKey
from core.sync.paths import FILE_MODE, Unit, remote_name_problem, unit_of


def test_names_are_keyed_stable_and_reveal_no_id() -> None:
    key = SyncKey.generate()
    path = "records/decision-abc123.json"
    name = AgeCodec(key).name(path)
    assert name == AgeCodec(SyncKey.parse(key.secret)).name(path)
    assert name != AgeCodec(SyncKey.generate()).name(path)
    assert "decision" not in name and "abc123" not in name
    assert name.startswith("d/") and name.endswith(".age")
    assert Codec().name(path) == path


def test_sealed_files_open_only_with_their_key() -> None:
    codec = AgeCodec(SyncKey.generate())
    sealed = codec.seal(b"problem text")
    assert b"problem text" not in sealed
    assert sealed.startswith(b"age-encryption.org/v1\n")
    assert codec.open(sealed, 12) == b"problem text"
    assert codec.open(sealed).rstrip(b"\n") == b"problem text"  # `age -d` sees the padding
    assert codec.seal(b"same") != codec.seal(b"same")
    with pytest.raises(SyncKeyWrong, match="the sync key does not open this remote"):
        AgeCodec(SyncKey.generate()).open(sealed)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello", "must start with AGE-SECRET-KEY-1"),
        ("AGE-SECRET-KEY-1QQQQ", "pairing string is damaged"),
    ],
)
def test_pairing_strings_are_checked(text: str, message: str) -> None:
    with pytest.raises(SyncKeyWrong, match=message):
        SyncKey.parse(text)


def test_a_pasted_pairing_string_with_blanks_and_lower_case_is_accepted() -> None:
    key = SyncKey.generate()
    assert SyncKey.parse(f"  {key.secret.lower()}\n") == key


@pytest.mark.parametrize(
    ("path", "unit"),
    [
        ("records/decision-1.json", Unit("record", "decision-1")),
        ("history/decision-1/revision-000002.json", Unit("record", "decision-1")),
        ("history/decision-1/revision-000002.json.sha256", Unit("record", "decision-1")),
        (
            "notes/project-0123456789abcdef.jsonl",
            Unit("log", "notes/project-0123456789abcdef.jsonl"),
        ),
        ("outcomes/signals.ndjson", Unit("log", "outcomes/signals.ndjson")),
        ("imports/claude-code.ndjson", Unit("log", "imports/claude-code.ndjson")),
        (
            "corrections/decision-1/revision-000002.json",
            Unit("file", "corrections/decision-1/revision-000002.json"),
        ),
        (
            "sync-conflicts/decision-1/conflict.json",
            Unit("file", "sync-conflicts/decision-1/conflict.json"),
        ),
        (
            "sync-conflicts/decision-1/revision-000002.0a1b2c3d.json",
            Unit("file", "sync-conflicts/decision-1/revision-000002.0a1b2c3d.json"),
        ),
    ],
)
def test_what_moves(path: str, unit: Unit) -> None:
    assert unit_of(path) == unit


@pytest.mark.parametrize(
    "path",
    [
        "records/decision-1.json.lock",
        "records/.decision-1.json.tmp-abc",
        "history/decision-1/notes.txt",
        "cache/index.sqlite",
        "profiles/profile.json",
        "pending/session.json",
        "drafts/draft.json",
        "quarantine/decision-1.json",
        "sync/.git/config",
        "notes/project.jsonl.lock",
    ],
)
def test_what_never_moves(path: str) -> None:
    assert unit_of(path) is None


def test_a_name_outside_the_encrypted_layout_is_refused_naming_the_real_layout() -> None:
    for name in (b"m/0a0a0a0a.age", b"d/ab/" + b"c" * 30 + b".age", b"key-check.age"):
        assert remote_name_problem(name, FILE_MODE, encrypted=True) is None
    problem = remote_name_problem(b"d/evil.age", FILE_MODE, encrypted=True)
    assert problem is not None
    for real in ("decision-journal-sync.json", "key-check.age", "d/<2 hex>/<30 hex>.age"):
        assert real in problem
    assert "m/<8 hex>.age" in problem and "-<n>" not in problem  # not format 1's old names
