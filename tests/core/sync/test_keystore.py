"""Key storage: the keyring's fail backend gives the documented error; key files are private."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from core.errors import SyncKeyUnavailable
from core.sync.crypto import SyncKey
from core.sync.keystore import KeyLocation, load_key, store_key


@pytest.fixture
def no_keyring() -> Iterator[None]:
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(before)


def test_no_backend_names_the_fix_and_never_falls_back(no_keyring: None, tmp_path: Path) -> None:
    location = KeyLocation("keyring", "journal-0011223344556677")
    with pytest.raises(SyncKeyUnavailable) as caught:
        store_key(location, SyncKey.generate())
    message = str(caught.value)
    assert "no usable OS keyring to keep the sync key" in message
    assert "keyring.backends.fail.Keyring" in message
    assert "Secret Service" in message and "--key-file PATH" in message
    with pytest.raises(SyncKeyUnavailable, match="no usable OS keyring"):
        load_key(location)
    assert list(tmp_path.iterdir()) == []


def test_a_key_file_is_written_0600_and_read_back(tmp_path: Path) -> None:
    key = SyncKey.generate()
    location = KeyLocation("file", "journal-1", str(tmp_path / "sync.key"))
    store_key(location, key)
    assert (tmp_path / "sync.key").stat().st_mode & 0o777 == 0o600
    assert load_key(location) == key
    store_key(location, key)  # the same key again is fine
    with pytest.raises(SyncKeyUnavailable, match="already holds another key"):
        store_key(location, SyncKey.generate())


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sync.key"
    path.write_text(SyncKey.generate().secret + "\n")
    path.chmod(0o644)
    with pytest.raises(
        SyncKeyUnavailable, match=r"readable by others \(mode 0644\); run `chmod 600"
    ):
        load_key(KeyLocation("file", "journal-1", str(path)))


def test_a_linked_key_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "real.key"
    target.write_text(SyncKey.generate().secret + "\n")
    target.chmod(0o600)
    (tmp_path / "link.key").symlink_to(target)
    with pytest.raises(SyncKeyUnavailable, match="not a regular file"):
        load_key(KeyLocation("file", "journal-1", str(tmp_path / "link.key")))


def test_where_the_key_is_says_an_unavailable_keyring_is_unavailable(no_keyring: None) -> None:
    text = KeyLocation("keyring", "journal-0011223344556677").describe()
    assert text.startswith("OS keyring, which is unavailable in this session")
    assert "--key-file PATH" in text
    assert "fail" not in text


def test_a_missing_key_file_says_to_write_the_pairing_string_into_it(tmp_path: Path) -> None:
    path = tmp_path / "sync.key"
    with pytest.raises(SyncKeyUnavailable) as caught:
        load_key(KeyLocation("file", "journal-1", str(path)))
    message = str(caught.value)
    assert f"key file {path} does not exist" in message
    assert "write the pairing string from `decision-journal sync export-key`" in message
    assert f"`chmod 600 {path}`" in message


def test_a_key_file_in_folders_that_do_not_exist_yet_creates_them_private(tmp_path: Path) -> None:
    """`sync init --key-file ~/.config/decision-journal/sync.key` on a fresh home."""
    key = SyncKey.generate()
    path = tmp_path / "config" / "decision-journal" / "sync.key"
    store_key(KeyLocation("file", "journal-1", str(path)), key)
    assert load_key(KeyLocation("file", "journal-1", str(path))) == key
    for folder in (path.parent, path.parent.parent):
        assert folder.stat().st_mode & 0o777 == 0o700
    assert path.stat().st_mode & 0o777 == 0o600
