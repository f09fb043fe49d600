"""What this machine knows of the other writers: each one's newest manifest, and when one fell
quiet while this machine kept pushing (a frozen remote looks the same)."""

from __future__ import annotations

import gzip
import json

import pytest

from core.errors import SyncManifestInvalid
from core.gocompat.gotime import GoTime
from core.sync import authenticity, peers
from core.sync.crypto import AgeCodec, SyncKey
from core.sync.manifests import Manifest
from core.sync.state import SyncState

HERE, DESK = "0a0a0a0a", "0d0d0d0d"
DAY = 86400 * 1_000_000_000
WRITTEN = "2026-12-01T10:00:00Z"
NAME = f"m/{DESK}.age"
T0 = GoTime.parse(WRITTEN).unix_ns


def _state(**seen: int) -> SyncState:
    state = SyncState()
    state.seen.update(seen)
    state.machines[DESK] = "desk"
    return state


def test_a_writers_newest_manifest_is_kept_and_an_older_one_or_this_machines_is_not() -> None:
    state = _state()
    peers.learn(state, Manifest(DESK, "desk", 5, seen={HERE: 3}, at=WRITTEN), HERE)
    peers.learn(state, Manifest(DESK, "desk", 4, seen={HERE: 1}, at="2026-11-01T00:00:00Z"), HERE)
    peers.learn(state, Manifest(HERE, "here", 9), HERE)
    assert list(state.peers) == [DESK]
    assert (state.peers[DESK]["seq"], state.peers[DESK]["saw"]) == (5, 3)
    assert state.peers[DESK]["at"] == WRITTEN


def test_a_writer_is_quiet_only_after_days_of_silence_while_this_machine_pushed() -> None:
    state = _state(**{HERE: 3})
    peers.learn(state, Manifest(DESK, "desk", 5, seen={HERE: 3}, at=WRITTEN), HERE)
    # it saw everything this machine pushed: silent for a week, but nothing waits for it
    [peer] = peers.peers(state, HERE, T0 + 7 * DAY)
    assert (peer.unseen, peer.quiet_seconds) == (0, 0)
    state.seen[HERE] = 5  # this machine pushed twice more
    [peer] = peers.peers(state, HERE, T0 + 2 * DAY)
    assert (peer.unseen, peer.quiet_seconds) == (2, 0)  # two days is not quiet yet
    [peer] = peers.peers(state, HERE, T0 + 4 * DAY)
    assert peer.quiet_seconds == 4 * 86400
    text = peers.quiet_text(peer.to_dict())
    assert text.startswith("machine desk (0d0d0d0d) has written nothing for 4 days")
    assert "pushed 2 states it has not seen" in text and "frozen" in text


def test_a_manifest_of_an_earlier_version_is_dated_by_its_arrival() -> None:
    state = _state(**{HERE: 2})
    peers.learn(state, Manifest(DESK, "desk", 1), HERE)  # no `at`
    [peer] = peers.peers(state, HERE)
    assert peer.written_at == "" and peer.heard_at
    line = peers.machine_line(peer.to_dict())
    assert line.startswith("machine desk (0d0d0d0d) last wrote its state at ")
    assert "or before (when it arrived here) (manifest 1)" in line
    assert line.endswith("it has not seen this machine's last 2 states")


def test_the_writers_time_is_inside_the_mac() -> None:
    codec = AgeCodec(SyncKey.generate())
    signed = authenticity.sign(Manifest(DESK, "desk", 1, at=WRITTEN), codec.auth_key)
    assert authenticity.verify(signed, codec.auth_key, f"m/{DESK}.age").at == WRITTEN
    older = authenticity.sign(Manifest(DESK, "desk", 1), codec.auth_key)
    assert authenticity.verify(older, codec.auth_key, f"m/{DESK}.age").at == ""
    # the remote cannot make a manifest look newer (or older) than its writer wrote it
    raw = json.loads(gzip.decompress(signed))
    raw["at"] = "2030-01-01T00:00:00Z"
    with pytest.raises(SyncManifestInvalid, match="authentication"):
        authenticity.verify(
            gzip.compress(json.dumps(raw).encode()), codec.auth_key, "m/0d0d0d0d.age"
        )
