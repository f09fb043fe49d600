"""`JournalIndex.current_shape`, what `show` reads: the index's row for one record, only while
the index proves the file unchanged since the strict read that filled it; else None, and the
caller reads the file the strict way (`DecisionStore.get`)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import core.bulk.file_identity
from bench.journal_gen import write_journal
from core.errors import JournalError
from core.index.journal_index import JournalIndex
from core.store.decisions import DecisionStore
from core.store.safefs import ensure_private_dir
from tests.core.bulk.support.raw_records import base_raw, raw_records
from tests.core.bulk.support.reads import shape_values

RECORD_ID = "decision-abc123"


def _journal(root: Path, raw: dict[str, Any]) -> tuple[DecisionStore, JournalIndex, Path]:
    ensure_private_dir(root, root / "records")
    path = root / "records" / f"{RECORD_ID}.json"
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    store = DecisionStore(root)
    return store, JournalIndex(root, store), path


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written a moment ago count as settled, so the build stores their signatures."""
    monkeypatch.setattr(core.bulk.file_identity, "RACY_NS", -(10**18))


_ONCE_FOR_ALL = [HealthCheck.function_scoped_fixture]
"""`trusting` only patches a constant, the same for every example."""


@settings(max_examples=60, deadline=None, suppress_health_check=_ONCE_FOR_ALL)
@given(raw=raw_records())
def test_the_index_row_is_the_strict_read_or_nothing(trusting: None, raw: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store, index, _path = _journal(Path(tmp) / "journal", raw)
        index.reconcile()
        try:
            shape = index.current_shape(RECORD_ID)
            try:
                strict = store.get(RECORD_ID)
            except JournalError:
                assert shape is None  # an unreadable file has no row to answer from
                return
            assert shape is not None
            assert shape_values(shape) == shape_values(strict)
        finally:
            index.close()


def test_a_file_changed_after_the_build_is_read_again(tmp_path: Path, trusting: None) -> None:
    _store, index, path = _journal(tmp_path / "journal", base_raw())
    index.reconcile()
    assert index.current_shape(RECORD_ID) is not None
    changed = base_raw() | {"problem": "Another problem, written by an editor"}
    path.write_text(json.dumps(changed), encoding="utf-8")
    assert index.current_shape(RECORD_ID) is None
    os.unlink(path)
    assert index.current_shape(RECORD_ID) is None
    index.close()


def test_a_row_read_just_after_its_file_changed_is_not_trusted(tmp_path: Path) -> None:
    """The racy rule: a file changed within a timestamp tick of its read may change again
    unseen, so its row answers nothing until a later reconcile reads it again."""
    _store, index, _path = _journal(tmp_path / "journal", base_raw())
    index.reconcile()
    assert index.current_shape(RECORD_ID) is None
    index.close()


def test_no_index_file_means_no_answer_and_none_is_made(tmp_path: Path) -> None:
    store, index, _path = _journal(tmp_path / "journal", base_raw())
    assert index.current_shape(RECORD_ID) is None
    assert not index.path.exists()
    assert index.current_shape("not a valid id/..") is None  # the strict read words the error
    assert store.get(RECORD_ID).id == RECORD_ID


def test_a_linked_records_folder_is_left_to_the_strict_read(tmp_path: Path, trusting: None) -> None:
    root = tmp_path / "journal"
    _store, index, _path = _journal(root, base_raw())
    index.reconcile()
    index.close()
    os.rename(root / "records", tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", root / "records")
    assert index.current_shape(RECORD_ID) is None
    index.close()


def test_every_record_of_a_generated_journal_reads_as_the_strict_read(
    tmp_path: Path, trusting: None
) -> None:
    root = tmp_path / "journal"
    ids = write_journal(root, 40)
    store = DecisionStore(root)
    index = JournalIndex(root, store)
    index.reconcile()
    for record_id in ids:
        shape = index.current_shape(record_id)
        assert shape is not None, record_id
        assert shape_values(shape) == shape_values(store.get(record_id))
    index.close()
