"""A normal client's latency while hostile local clients abuse the socket, and RSS per connection.

The app runs in a process of its own (the real socket server and capture controller on a temp
journal, offscreen), the attackers in another, and the normal client here, so each side's
interpreter is its own. The normal client does what the CLI and hooks do: connect, call
`decision.pending` (answered through the GUI thread and a worker), close.

Scenarios, one after another against the same app:
  alone        the normal client by itself;
  4 MiB frames 8 hostile clients sending 4 MiB frames back to back without reading, as fast
               as the app takes them (4 MiB strings, parsed and refused as params, and a
               frame of tiny values, refused before it is built);
  slow-loris   200 connections held open, each sending one byte a second, reopened at once
               when the app closes them;
  connections  RSS of the app before and after 30,000 connect/close cycles.

Targets (what a normal client must still get while another local process abuses the socket):
p95 under attack <= 50 ms, zero refused normal clients, RSS within 5 MB.

Usage: python bench/socket_bench.py [--calls 300] [--cycles 30000] [--app-path DIR]
  --app-path runs the app from another checkout (e.g. a worktree of an older commit).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOSTILE_CLIENTS = 8
LORIS_CONNECTIONS = 200
P95_TARGET_MS = 50.0
RSS_TARGET_MB = 5.0
MIB = 1024 * 1024


# --- the app process ----------------------------------------------------------------------


def serve(journal: Path, app_path: Path) -> None:
    """Runs the socket server and the real controller from `app_path` until SIGTERM."""
    sys.path.insert(0, str(app_path))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.ipc.server import IpcServer
    from tests.app.support.controller_support import serving_controller

    app = QApplication([])
    signal.signal(signal.SIGTERM, lambda *_: app.quit())
    keep_signals = QTimer()
    keep_signals.start(100)
    keep_signals.timeout.connect(lambda: None)
    with serving_controller(journal):
        print(f"ready {sys.modules[IpcServer.__module__].__file__}", flush=True)
        app.exec()


# --- attackers (their own process) --------------------------------------------------------


def _connect(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(path)
    return sock


def _hostile_frames() -> list[bytes]:
    from core.ipc.framing import MAX_FRAME

    header = b'{"jsonrpc":"2.0","id":1,"method":"decision.pending","params":{"workspace":'
    room = MAX_FRAME - len(header) - 16
    tiny = b"[" + b",".join([b"1"] * (room // 2 - 1)) + b"]"
    text = json.dumps("s" * (room - 8)).encode()
    return [header + tiny + b"}}", header + text + b"}}"]


def _frame(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


def attack_frames(path: str, seconds: float) -> None:
    """Each client sends 4 MiB frames back to back without reading: three 4 MiB strings (each
    refused as params, the connection kept), then one of tiny values (refused, closed)."""
    tiny, text = (_frame(body) for body in _hostile_frames())
    stop = time.monotonic() + seconds
    sent = [0]

    def one() -> None:
        while time.monotonic() < stop:
            try:
                with _connect(path) as sock:
                    for payload in (text, text, text, tiny):
                        sock.sendall(payload)
                        sent[0] += 1
            except OSError:
                time.sleep(0.01)

    threads = [threading.Thread(target=one) for _ in range(HOSTILE_CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"frames": sent[0]}), flush=True)


def attack_loris(path: str, seconds: float) -> None:
    """Holds LORIS_CONNECTIONS open, one byte a second each, reopening what the app closes."""
    stop = time.monotonic() + seconds
    held: list[socket.socket | None] = [None] * LORIS_CONNECTIONS
    opened = 0
    while time.monotonic() < stop:
        for index in range(LORIS_CONNECTIONS):
            sock = held[index]
            try:
                if sock is None:
                    sock = held[index] = _connect(path)
                    opened += 1
                sock.send(b"\x00")
            except OSError:
                if sock is not None:
                    sock.close()
                held[index] = None
        time.sleep(1.0)
    for sock in held:
        if sock is not None:
            sock.close()
    print(json.dumps({"opened": opened}), flush=True)


# --- the normal client and the figures ----------------------------------------------------


def normal_calls(path: Path, calls: int, pause: float = 0.01) -> tuple[list[float], int]:
    """Latency of each connect + `decision.pending` + close, and how many failed."""
    from core.errors import IpcError
    from core.ipc.client import IpcClient

    samples: list[float] = []
    failed = 0
    for _ in range(calls):
        started = time.perf_counter()
        try:
            with IpcClient(path, timeout=10, client_name="bench") as client:
                client.call("decision.pending", {"session_id": "bench"})
        except IpcError as exc:
            failed += 1
            print(f"  normal client failed: {type(exc).__name__}: {exc}", flush=True)
            continue
        samples.append((time.perf_counter() - started) * 1000)
        time.sleep(pause)
    return samples, failed


def _percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def show(name: str, samples: list[float], failed: int, target: bool) -> None:
    if not samples:
        print(f"{name:<30} no successful calls, {failed} failed")
        return
    p50, p95 = statistics.median(samples), _percentile(samples, 0.95)
    verdict = ""
    if target:
        ok = p95 <= P95_TARGET_MS and failed == 0
        verdict = f"  target p95 <= {P95_TARGET_MS:g} ms, 0 refused: {'met' if ok else 'MISSED'}"
    print(
        f"{name:<30} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  max {max(samples):7.1f} ms"
        f"  refused {failed}/{len(samples) + failed}{verdict}"
    )


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MIB


def cycle_connections(path: Path, count: int) -> None:
    def run(share: int) -> None:
        for _ in range(share):
            while True:
                try:
                    _connect(str(path)).close()
                    break
                except BlockingIOError:
                    time.sleep(0.001)

    threads = [threading.Thread(target=run, args=(count // 4,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _spawn(mode: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, str(Path(__file__).resolve()), *mode]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--cycles", type=int, default=30_000)
    parser.add_argument("--app-path", type=Path, default=ROOT)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--attack", choices=["frames", "loris"], help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.app_path)
        return
    if args.attack == "frames":
        attack_frames(args.path, args.seconds)
        return
    if args.attack == "loris":
        attack_loris(args.path, args.seconds)
        return
    run_bench(args.calls, args.cycles, args.app_path)


def run_bench(calls: int, cycles: int, app_path: Path) -> None:
    from core.ipc.client import app_is_running
    from core.ipc.runtime_paths import socket_path

    runtime = Path(tempfile.mkdtemp(prefix="dj-"))
    runtime.chmod(0o700)
    home = Path(tempfile.mkdtemp(prefix="dj-home-"))
    journal = home / "journal"
    env = dict(
        os.environ,
        XDG_RUNTIME_DIR=str(runtime),
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        QT_QPA_PLATFORM="offscreen",
    )
    os.environ.update(XDG_RUNTIME_DIR=str(runtime))
    app_env = dict(env, PYTHONPATH=str(app_path))
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", str(journal)]
    command += ["--app-path", str(app_path)]
    app = subprocess.Popen(command, env=app_env, stdout=subprocess.PIPE, text=True, cwd=app_path)
    try:
        assert app.stdout is not None
        ready, _, server_file = app.stdout.readline().strip().partition(" ")
        assert ready == "ready"
        path = socket_path(journal)
        assert app_is_running(path, timeout=5)
        print(f"app pid {app.pid}, server {server_file}; {calls} normal calls per scenario")
        normal_calls(path, 20)
        show("alone", *normal_calls(path, calls), target=False)
        seconds = max(10.0, calls * 0.05)
        for mode, name in (
            ("frames", "8 clients x 4 MiB frames"),
            ("loris", "200 slow-loris held"),
        ):
            attacker = _spawn(
                ["--attack", mode, "--path", str(path), "--seconds", str(seconds)], env
            )
            time.sleep(2.0)
            show(name, *normal_calls(path, calls), target=True)
            out, _ = attacker.communicate(timeout=seconds + 60)
            print(f"  attacker: {out.strip()}")
        time.sleep(1.0)
        before = rss_mb(app.pid)
        started = time.monotonic()
        cycle_connections(path, cycles)
        time.sleep(1.0)
        after = rss_mb(app.pid)
        growth = after - before
        verdict = "met" if growth <= RSS_TARGET_MB else "MISSED"
        print(
            f"{cycles} connections ({time.monotonic() - started:.1f} s): app RSS {before:.1f} -> "
            f"{after:.1f} MB ({growth:+.1f} MB)  target <= {RSS_TARGET_MB:g} MB: {verdict}"
        )
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(timeout=10)
        except subprocess.TimeoutExpired:
            app.kill()


if __name__ == "__main__":
    main()
