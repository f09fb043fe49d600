"""`core.bulk.log_index.LogIndex.lines` against the full read it replaces,
`[e for e in AppendLog.read().entries if e.get(key) == value]`.

A wrong answer would let the decider miss a prediction it logged (and score nothing) or count an
overrule twice, so the two are compared after every step of generated histories: appends,
garbage and torn lines written around the lock, blank lines, carriage returns inside a line, a
log rewritten in place or replaced, and a cache file deleted or overwritten with garbage.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bulk.log_index import LogIndex
from core.store.append_log import AppendLog

IDS = ("a", "b", "c")
KEYS = ("decision_id", "kind")

_entry = st.fixed_dictionaries(
    {"decision_id": st.one_of(st.sampled_from(IDS), st.integers(0, 3), st.none())},
    optional={
        "kind": st.sampled_from(("k1", "k2")),
        "text": st.text(alphabet="ab\r\x0b\x1c 한", max_size=6),
    },
)
_raw = st.sampled_from(
    (
        b"not json\n",
        b"\n",
        b"   \n",
        b'["a list"]\n',
        b'{"decision_id": "a", "note": "raw\rline"}\n',
        b'{"decision_id": "b", "kind": "k1"',  # torn: no newline
        b'{"decision_id": "c"}',  # a whole object, its newline not written yet
        b"\xff\xfe\n",
    )
)
_step = st.one_of(
    st.tuples(st.just("append"), st.lists(_entry, min_size=1, max_size=4)),
    st.tuples(st.just("raw"), _raw),
    st.tuples(st.just("rewrite"), st.lists(_entry, max_size=4)),
    st.tuples(st.just("replace"), st.lists(_entry, max_size=4)),
    st.tuples(st.just("drop-cache"), st.none()),
    st.tuples(st.just("garbage-cache"), st.none()),
    st.tuples(st.just("refresh"), st.none()),
)


def _plain(log: AppendLog, **where: str) -> list[dict[str, Any]]:
    return [e for e in log.read().entries if all(e.get(k) == v for k, v in where.items())]


def _lines(entries: list[dict[str, Any]]) -> bytes:
    return b"".join((json.dumps(e, ensure_ascii=False) + "\n").encode() for e in entries)


def _apply(step: tuple[str, Any], log: AppendLog, index: LogIndex) -> None:
    what, value = step
    if what == "append":
        log.append(value)
    elif what == "raw":
        with open(log.path, "ab") as handle:
            handle.write(value)
    elif what == "rewrite":
        log.path.write_bytes(_lines(value))  # same file, new content (and often a new size)
    elif what == "replace":
        spare = log.path.with_suffix(".new")
        spare.write_bytes(_lines(value))
        os.replace(spare, log.path)
    elif what == "drop-cache":
        index.path.unlink(missing_ok=True)
    elif what == "garbage-cache":
        index.path.write_bytes(b"SQLite format 3\x00 but not really")
    else:
        index.refresh()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(_step, max_size=12))
def test_lookups_equal_the_full_read(
    tmp_path_factory: pytest.TempPathFactory, steps: list[Any]
) -> None:
    root = tmp_path_factory.mktemp("journal")
    log = AppendLog(root, root / "decider" / "ledger.ndjson")
    index = LogIndex(log, root / "cache" / "ledger.sqlite3", KEYS)
    log.path.parent.mkdir(mode=0o700)
    index.path.parent.mkdir(mode=0o700)
    for step in steps:
        _apply(step, log, index)
        for decision_id in IDS:
            assert index.lines(decision_id=decision_id) == _plain(log, decision_id=decision_id)
        assert index.lines(kind="k1") == _plain(log, kind="k1")
        assert index.lines(decision_id="a", kind="k2") == _plain(log, decision_id="a", kind="k2")


def test_an_append_is_indexed_and_later_reads_use_the_cache(tmp_path: Path) -> None:
    log = AppendLog(tmp_path, tmp_path / "decider" / "ledger.ndjson")
    index = LogIndex(log, tmp_path / "cache" / "ledger.sqlite3", KEYS)
    log.append([{"decision_id": "a", "kind": "k1"}, {"decision_id": "b", "kind": "k1"}])
    index.refresh()
    assert index.path.stat().st_mode & 0o777 == 0o600
    log.append([{"decision_id": "a", "kind": "k2"}])
    assert index.lines(decision_id="a") == [
        {"decision_id": "a", "kind": "k1"},
        {"decision_id": "a", "kind": "k2"},
    ]
    assert index.lines(kind="k1") == _plain(log, kind="k1")
    with pytest.raises(ValueError, match="look lines up by"):
        index.lines(text="x")


def test_a_log_that_does_not_exist_has_no_lines(tmp_path: Path) -> None:
    log = AppendLog(tmp_path, tmp_path / "decider" / "ledger.ndjson")
    assert LogIndex(log, tmp_path / "cache" / "ledger.sqlite3", KEYS).lines(decision_id="a") == []


def test_without_pread_the_same_lines_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows has no `os.pread`: the lookup seeks and reads instead."""
    log = AppendLog(tmp_path, tmp_path / "decider" / "ledger.ndjson")
    log.append([{"decision_id": "a", "kind": "k1"}, {"decision_id": "b"}, {"decision_id": "a"}])
    monkeypatch.delattr(os, "pread")
    index = LogIndex(log, tmp_path / "cache" / "ledger.sqlite3", KEYS)
    assert index.lines(decision_id="a") == _plain(log, decision_id="a")
    log.append([{"decision_id": "a", "kind": "k2"}])
    assert index.lines(decision_id="a") == _plain(log, decision_id="a")
