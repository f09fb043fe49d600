"""The real tray app process, its real socket, and hostile or impatient clients."""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.errors import IpcTimeout
from core.index.db import index_path
from core.index.journal_index import JournalIndex
from core.ipc.client import IpcClient
from core.ipc.framing import encode_frame
from core.ipc.runtime_paths import socket_path
from core.profile.store import ProfileStore
from core.store.decisions import DecisionStore
from tests.factories import decision, proposal_dict
from tests.integration.cli_runner import ROOT
from tests.integration.desktop import app_env, running_app


def _raw(journal: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.connect(str(socket_path(journal)))
    return sock


def _read_reply(sock: socket.socket) -> dict[str, object]:
    header = sock.recv(4)
    (length,) = struct.unpack(">I", header)
    body = b""
    while len(body) < length:
        body += sock.recv(length - len(body))
    return json.loads(body)


def _hello_still_works(journal: Path) -> None:
    with IpcClient(socket_path(journal), timeout=5) as client:
        assert client.hello().protocol == 1


def _present(journal: Path, timeout: float, **overrides: object) -> dict[str, object]:
    params = {
        "proposal": proposal_dict(**overrides),
        "workspace": str(ROOT),
        "session_id": "e2e-session",
        "agent": "pytest",
    }
    with IpcClient(socket_path(journal), timeout=5) as client:
        return client.call("decision.present", params, timeout=timeout)


def test_hostile_clients_never_crash_or_block_the_app(tmp_path: Path, runtime_dir: Path) -> None:
    journal = tmp_path / "journal"
    with running_app(journal, app_env(runtime_dir)) as proc:
        hostile_frames = [
            struct.pack(">I", 0xFFFFFFFF),  # a 4 GiB length header
            struct.pack(">I", 9) + b"{not json",
            encode_frame({"jsonrpc": "2.0", "id": 1, "method": "no.such.method", "params": {}}),
            encode_frame({"jsonrpc": "2.0", "id": 2, "method": "hello", "params": {}, "x": 1}),
            struct.pack(">I", 3) + b"NaN",
        ]
        for frame in hostile_frames:
            with _raw(journal) as sock:
                sock.sendall(frame)
                reply = _read_reply(sock)
                assert "error" in reply and isinstance(reply["error"], dict)
                assert isinstance(reply["error"]["code"], int)
            _hello_still_works(journal)
        with _raw(journal) as sock:
            sock.sendall(struct.pack(">I", 100) + b'{"jsonrpc":')  # then vanish mid-frame
        _hello_still_works(journal)
        assert proc.poll() is None


def test_pending_survives_app_restart(tmp_path: Path, runtime_dir: Path) -> None:
    journal = tmp_path / "journal"
    env = app_env(runtime_dir)
    with running_app(journal, env), pytest.raises(IpcTimeout):
        _present(journal, timeout=1.5)
    with running_app(journal, env):
        with IpcClient(socket_path(journal), timeout=5) as client:
            pending = client.call("decision.pending", {})["pending"]
        assert len(pending) == 1 and pending[0]["stage"] == "choice"
        status = subprocess.run(
            [sys.executable, "-m", "app.cli.main", "--journal", str(journal), "status", "--json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        data = json.loads(status.stdout)
        assert data["app_running"] is True
        assert [p["decision_id"] for p in data["pending"]] == [pending[0]["decision_id"]]
    assert list(journal.glob("records/*.json")) == []


def test_invalid_proposal_lists_every_field(tmp_path: Path, runtime_dir: Path) -> None:
    journal = tmp_path / "journal"
    from core.errors import RemoteError

    with running_app(journal, app_env(runtime_dir)), pytest.raises(RemoteError) as info:
        _present(journal, timeout=10, problem="", detector_confidence=0.1)
    assert "problem" in info.value.message and "detector_confidence" in info.value.message
    assert not (journal / "pending").exists() or not list((journal / "pending").iterdir())


def test_second_app_instance_forwards_and_exits(tmp_path: Path, runtime_dir: Path) -> None:
    journal = tmp_path / "journal"
    env = app_env(runtime_dir)
    with running_app(journal, env) as first:
        second = subprocess.run(
            [sys.executable, "-m", "app.cli.main", "--journal", str(journal), "app"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 0
        assert "already running" in second.stdout
        assert first.poll() is None


def test_sigterm_stops_an_idle_app_cleanly(tmp_path: Path, runtime_dir: Path) -> None:
    journal = tmp_path / "journal"
    with running_app(journal, app_env(runtime_dir)) as proc:
        time.sleep(6.5)  # past the wait for a tray: from here only Qt's loop runs
        proc.terminate()
        assert proc.wait(5) == 0
    assert not socket_path(journal).exists()


def test_a_cli_delete_brings_the_running_apps_profile_up_to_date(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """The CLI tells the app (`journal.changed`); the app rebuilds the now stale profile."""
    journal = tmp_path / "journal"
    store = DecisionStore(journal)
    for number in range(1, 5):
        store.put(decision(number))
    ProfileStore(journal, store).rebuild()
    env = app_env(runtime_dir)
    with running_app(journal, env):
        _wait_for_warm_up(journal)  # its own catch-up must not be what rebuilds the profile
        deleted = subprocess.run(
            [*_cli(journal), "delete", "decision-2", "--expected-revision", "1"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert deleted.returncode == 0, deleted.stderr
        profiles = ProfileStore(journal, DecisionStore(journal))
        deadline = time.monotonic() + 10
        while profiles.status().state != "current" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert profiles.status().state == "current"
        assert profiles.load().record_count == 3


def test_the_app_builds_a_missing_profile_soon_after_start(
    tmp_path: Path, runtime_dir: Path
) -> None:
    journal = tmp_path / "journal"
    store = DecisionStore(journal)
    for number in range(1, 5):
        store.put(decision(number))
    index = JournalIndex(journal, store)
    index.reconcile()  # an index that is already current: the app's reconcile finds no change
    index.close()
    profiles = ProfileStore(journal, DecisionStore(journal))
    assert profiles.status().state == "stale"
    with running_app(journal, app_env(runtime_dir)):
        deadline = time.monotonic() + 20
        while profiles.status().state != "current" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert profiles.status().state == "current"
        assert profiles.load().record_count == 4


def test_without_an_app_a_cli_delete_still_succeeds_at_once(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    DecisionStore(journal).put(decision(1))
    started = time.monotonic()
    deleted = subprocess.run(
        [*_cli(journal), "delete", "decision-1", "--expected-revision", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stderr == ""
    assert time.monotonic() - started < 10
    assert ProfileStore(journal, DecisionStore(journal)).status().state == "stale"


def _cli(journal: Path) -> list[str]:
    return [sys.executable, "-m", "app.cli.main", "--journal", str(journal)]


def _wait_for_warm_up(journal: Path) -> None:
    """The app builds its index a moment after start (`JOURNAL_WARM_MS`); wait that out."""
    deadline = time.monotonic() + 20
    while not index_path(journal).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert index_path(journal).exists()
    time.sleep(1.0)
