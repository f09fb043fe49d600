"""The merge rules: descent wins, divergence is a conflict with both sides kept, logs unite."""

from __future__ import annotations

import json

from core.sync.merge import CONFLICT, LOCAL, REMOTE, SAME, RecordSide, merge_lines, merge_record


def _rev(n: int, who: str) -> bytes:
    return json.dumps({"revision": n, "by": who}).encode() + b"\n"


def _side(*chain: bytes) -> RecordSide:
    """A record whose history is every element but the last, which is current."""
    return RecordSide(chain[-1], {n + 1: data for n, data in enumerate(chain[:-1])})


def test_identical_records_are_the_same() -> None:
    assert merge_record(_side(_rev(1, "a")), _side(_rev(1, "a"))).outcome == SAME


def test_a_record_only_one_side_has() -> None:
    assert merge_record(RecordSide(None), _side(_rev(1, "a"))).outcome == REMOTE
    assert merge_record(_side(_rev(1, "a")), RecordSide(None)).outcome == LOCAL


def test_the_side_whose_history_holds_the_other_current_wins() -> None:
    one, two, three = _rev(1, "a"), _rev(2, "a"), _rev(3, "a")
    assert merge_record(_side(one), _side(one, two, three)).outcome == REMOTE
    assert merge_record(_side(one, two, three), _side(one, two)).outcome == LOCAL


def test_both_writing_the_next_revision_is_a_conflict_with_both_versions() -> None:
    one = _rev(1, "x")
    mine, theirs = _side(one, _rev(2, "laptop")), _side(one, _rev(2, "desk"), _rev(3, "desk"))
    merge = merge_record(mine, theirs)
    assert merge.outcome == CONFLICT
    assert merge.fork == 2
    assert merge.local == {2: _rev(2, "laptop")}
    assert merge.remote == {2: _rev(2, "desk"), 3: _rev(3, "desk")}


def test_a_newer_remote_that_does_not_descend_from_local_is_a_conflict() -> None:
    one = _rev(1, "x")
    merge = merge_record(_side(one, _rev(2, "a")), _side(one, _rev(2, "b"), _rev(3, "b")))
    assert merge.outcome == CONFLICT
    assert merge.fork == 2


def test_logs_unite_lines_in_local_order_then_the_remote_new_ones() -> None:
    local = b'{"n":1}\n{"n":2}\n'
    remote = b'{"n":1}\n{"n":3}\n{"n":2}\n'
    assert merge_lines(local, remote) == b'{"n":1}\n{"n":2}\n{"n":3}\n'


def test_a_torn_last_line_is_dropped_from_the_united_log() -> None:
    assert merge_lines(b'{"n":1}\n{"n":', b'{"n":2}\n{"n') == b'{"n":1}\n{"n":2}\n'
