"""Index rows by name: the insert's columns are the table's, and each value lands in its own."""

from __future__ import annotations

from pathlib import Path

import msgspec

from core.gocompat.gotime import GoTime
from core.index.columns import KEY_COLUMNS, RecordKeys
from core.index.entry import IndexEntry, key
from core.index.index_file import RECORD_COLUMNS, open_index
from core.index.journal_index import JournalIndex
from core.store.decisions import DecisionStore
from tests.factories import make_record


def test_the_insert_writes_every_column_of_the_table(tmp_path: Path) -> None:
    connection = open_index(tmp_path)
    try:
        table = [row[1] for row in connection.execute("PRAGMA table_info(records)")]
    finally:
        connection.close()
    assert table == ["rowid", *RECORD_COLUMNS]
    assert ("file_name", "sig", *KEY_COLUMNS, "digest") == RECORD_COLUMNS


def test_each_value_is_the_column_of_its_name() -> None:
    record = make_record(
        project_alias="Payments API", risk_level="HIGH", updated_at=GoTime(1_760_000_000_123, 3600)
    )
    entry = IndexEntry.of("decision-test-1.json", "sig", record)
    columns = dict(zip(RECORD_COLUMNS, entry.columns(), strict=True))
    assert columns["file_name"] == "decision-test-1.json" and columns["sig"] == "sig"
    assert columns["id"] == record.id and columns["id_key"] == record.id.lower()
    assert columns["project_alias"] == "Payments API"
    assert (columns["risk_level"], columns["risk_key"]) == ("HIGH", key("HIGH"))
    assert columns["selected_label"] == record.selected_label()
    assert columns["revision"] == record.revision and columns["digest"] == entry.digest
    assert (columns["upd_s"], columns["upd_sub"], columns["upd_offset"]) == (1760, 123, 3600)


def test_keys_cross_a_process_boundary_as_an_array() -> None:
    entry = IndexEntry.of("decision-test-1.json", "sig", make_record())
    packed = msgspec.msgpack.encode(entry)
    assert msgspec.msgpack.decode(packed, type=IndexEntry) == entry
    assert isinstance(msgspec.msgpack.decode(msgspec.msgpack.encode(entry.keys)), list)
    assert isinstance(entry.keys, RecordKeys)


def test_a_list_row_reads_its_columns_by_name(tmp_path: Path) -> None:
    store = DecisionStore(tmp_path / "journal")
    stored = store.put(make_record(project_alias="Payments API"))
    index = JournalIndex(store.root, store)
    try:
        [row] = index.rows([stored.id])
    finally:
        index.close()
    assert (row.id, row.project_alias, row.problem) == (stored.id, "Payments API", stored.problem)
    assert (row.status, row.revision, row.deleted) == (stored.status, 1, False)
    assert row.updated_at == stored.updated_at
    assert row.selected_label == stored.selected_label()
