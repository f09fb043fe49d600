"""The merge rules: descent wins, divergence is a conflict with both sides kept, logs unite."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

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


def _stamped(n: int, at: str, **extra: object) -> bytes:
    return json.dumps({"revision": n, "problem": "p", "updated_at": at, **extra}).encode()


def test_the_same_content_written_on_two_machines_is_no_conflict_and_the_first_stands() -> None:
    early, late = "2026-12-02T01:31:50.30865045Z", "2026-12-02T01:31:55.456658193Z"
    first, second = _side(_stamped(1, early)), _side(_stamped(1, late))
    # each machine computes the same winner, whichever side merges
    assert merge_record(first, second).outcome == LOCAL
    assert merge_record(second, first).outcome == REMOTE
    # a later revision too, when every revision differs only in its stamps
    chain_a = _side(_stamped(1, early), _stamped(2, late, deleted_at=late))
    chain_b = _side(_stamped(1, late), _stamped(2, early, deleted_at=early))
    assert merge_record(chain_a, chain_b).outcome == REMOTE
    assert merge_record(chain_b, chain_a).outcome == LOCAL
    # the same time on both: the smaller bytes, on both sides alike
    tie_a = _side(_stamped(1, early, z=1))
    tie_b = _side(_stamped(1, early, z=1) + b"\n")
    assert {merge_record(tie_a, tie_b).outcome, merge_record(tie_b, tie_a).outcome} == {
        LOCAL,
        REMOTE,
    }


def test_content_that_differs_beyond_the_stamps_is_still_a_conflict() -> None:
    at = "2026-12-02T01:31:50Z"
    mine = _side(_stamped(1, at, problem_extra="a"))
    assert merge_record(mine, _side(_stamped(1, at, problem_extra="b"))).outcome == CONFLICT
    # an earlier revision that differs is a conflict though the current ones differ only
    # in their stamps
    one_a, one_b = _stamped(1, at, x="a"), _stamped(1, at, x="b")
    later = "2026-12-02T01:32:00Z"
    merge = merge_record(_side(one_a, _stamped(2, at)), _side(one_b, _stamped(2, later)))
    assert merge.outcome == CONFLICT


def test_logs_keep_the_shared_beginning_then_the_other_lines_by_time_then_bytes() -> None:
    local = b'{"n":1}\n{"n":2}\n'
    remote = b'{"n":1}\n{"n":3}\n{"n":2}\n'
    assert merge_lines(local, remote) == b'{"n":1}\n{"n":2}\n{"n":3}\n'
    late = b'{"at":"2026-12-01T10:00:00Z","k":"a"}\n'
    early = b'{"at":"2026-12-01T09:00:00+02:00","k":"b"}\n'  # 07:00 UTC
    assert merge_lines(late, early) == merge_lines(early, late) == early + late


def test_a_torn_last_line_is_dropped_from_the_united_log() -> None:
    assert merge_lines(b'{"n":1}\n{"n":', b'{"n":2}\n{"n') == b'{"n":1}\n{"n":2}\n'


LINES = st.lists(st.sampled_from([f'{{"n":{n}}}\n'.encode() for n in range(8)]), max_size=8)


@given(shared=LINES, ours=LINES, theirs=LINES)
def test_a_log_merge_is_the_same_whichever_side_merges_and_loses_no_line(
    shared: list[bytes], ours: list[bytes], theirs: list[bytes]
) -> None:
    local, remote = b"".join(shared + ours), b"".join(shared + theirs)
    united = merge_lines(local, remote)
    assert united == merge_lines(remote, local)
    lines = united.splitlines(keepends=True)
    assert set(lines) == set(shared + ours + theirs)
    assert merge_lines(united, united) == united
    assert merge_lines(united, local) == united == merge_lines(united, remote)


@settings(max_examples=60)
@given(
    count=st.sampled_from([2, 3]),
    steps=st.lists(st.tuples(st.sampled_from(["append", "sync"]), st.integers(0, 2)), max_size=20),
)
def test_machines_exchanging_logs_converge_within_two_rounds_and_go_quiet(
    count: int, steps: list[tuple[str, int]]
) -> None:
    """A model of sync for one log: each machine's file and what it last exported; a sync
    merges the remote's file the way `core.sync.incoming` does and pushes when it changed."""
    files = [b""] * count
    exported = [b""] * count
    remote = [b""]
    pushes = [0]

    def sync(who: int) -> None:
        mine, theirs = files[who], remote[0]
        changed_here = mine != exported[who]
        if mine == theirs or not theirs:
            merged = mine
        elif not changed_here and set(mine.splitlines(True)) <= set(theirs.splitlines(True)):
            merged = theirs
        else:
            merged = merge_lines(mine, theirs)
        files[who] = exported[who] = merged
        if merged != remote[0]:
            remote[0] = merged
            pushes[0] += 1

    for n, (action, who) in enumerate(steps):
        if action == "append":
            files[who % count] += f'{{"machine":{who % count},"n":{n}}}\n'.encode()
        else:
            sync(who % count)
    for _ in range(2):
        for who in range(count):
            sync(who)
    assert len(set(files)) == 1
    settled = pushes[0]
    for who in range(count):
        sync(who)
    assert pushes[0] == settled
