"""The frozen bundle behaves like the source: every command, the tray app, a real answer, MCP.

Why: a PyInstaller build is a platform of its own. A module loaded through importlib, a Qt
plugin pruned too eagerly or a library picked up from the build machine fails only there, so
the bundle is run the way users and agents run it, and its stderr must stay clean.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.autostart import WINDOW_CLASS
from bench.journal_gen import write_journal
from core.bulk.parallel_read import PARALLEL_MIN_FILES, WORKERS_ENV
from tests.factories import proposal_dict
from tests.integration.agent_support import KEY_GUARD_MS
from tests.packaging.conftest import (
    ROOT,
    project_version,
    run,
    start_app,
    stop_app,
    unexpected_stderr,
    wait_running,
)
from tests.packaging.xsession import XSession, missing_tools, x_session

pytestmark = pytest.mark.packaging

START_TIMEOUT = 20.0
QT_UNUSED_LIBS = ("Qt6Qml", "Qt6Quick", "Qt6Pdf", "Qt6WebEngine", "Qt63D", "Qt6Multimedia")
SYSTEM_LIBS = ("libX11.", "libxcb.", "libGL.", "libEGL.", "libfontconfig.", "libstdc++.")


def _wait_exit(process: subprocess.Popen[str], timeout: float) -> tuple[int | None, str]:
    """The exit code and stderr once the process ends by itself; None if it does not."""
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return None, err
    return process.returncode, err


def _reap(process: subprocess.Popen[str]) -> None:
    """Kill what is still running and close its pipes (a failed test must not leak them)."""
    if process.poll() is None:
        process.kill()
    process.communicate()


def test_version_is_the_projects(frozen: Path, frozen_env: dict[str, str]) -> None:
    result = subprocess.run(
        [str(frozen), "--version"], env=frozen_env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"decision-journal {project_version()}"
    assert result.stderr == ""


def test_every_command_of_the_source_is_bundled(frozen: Path, frozen_env: dict[str, str]) -> None:
    """Subcommand modules are imported by name; a missing one would vanish from --help."""
    env = dict(frozen_env, COLUMNS="120")
    source = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "--help"],
        env=dict(env, PYTHONPATH=str(ROOT)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    bundled = subprocess.run(
        [str(frozen), "--help"], env=env, capture_output=True, text=True, timeout=60
    )
    assert source.returncode == 0, source.stderr
    assert bundled.returncode == 0, bundled.stderr
    assert bundled.stdout == source.stdout
    assert bundled.stderr == ""


def test_bundle_carries_what_the_app_loads_and_nothing_it_must_not(bundle: Path) -> None:
    internal = bundle / "_internal"
    dangling = [str(p) for p in internal.rglob("*") if p.is_symlink() and not p.exists()]
    assert dangling == []
    assert list(internal.rglob("*.qm")) == [], "Qt translations are dropped: the UI is English"
    names = [p.name for p in internal.rglob("*.so*")]
    assert [n for n in names if n.startswith(tuple(f"lib{q}" for q in QT_UNUSED_LIBS))] == []
    assert [n for n in names if n.startswith(SYSTEM_LIBS)] == [], "system libraries bundled"
    plugins = internal / "PySide6" / "Qt" / "plugins"
    for needed in (
        "platforms/libqxcb.so",
        "platforms/libqoffscreen.so",
        "platforms/libqwayland.so",
        "iconengines/libqsvgicon.so",
        "imageformats/libqsvg.so",
        "platforminputcontexts/libibusplatforminputcontextplugin.so",
    ):
        assert (plugins / needed).is_file(), needed
    for svg in (ROOT / "resources" / "icons").glob("*.svg"):
        assert (internal / "resources" / "icons" / svg.name).read_bytes() == svg.read_bytes()


def test_headless_app_answers_status_and_stops_on_sigterm(
    frozen: Path, frozen_env: dict[str, str], home: Path
) -> None:
    env = dict(frozen_env, QT_QPA_PLATFORM="offscreen")
    journal = home / "journal"
    app = start_app(frozen, journal, env)
    try:
        status = wait_running(frozen, journal, env)
        assert status["version"] == project_version()
        assert status["journal"] == str(journal)
        assert str(status["socket"]).startswith(env["XDG_RUNTIME_DIR"])
        assert status["pending"] == []
        pending = run(frozen, journal, "pending", "--json", env=env)
        assert (pending.returncode, json.loads(pending.stdout)) == (0, [])
        listed = run(frozen, journal, "list", "--json", env=env)
        assert listed.returncode == 0, listed.stderr
    finally:
        code, err = stop_app(app)
    assert code == 0
    assert unexpected_stderr(err) == []


def test_sigterm_stops_an_idle_app(frozen: Path, frozen_env: dict[str, str], home: Path) -> None:
    env = dict(frozen_env, QT_QPA_PLATFORM="offscreen")
    app = start_app(frozen, home / "journal", env)
    try:
        wait_running(frozen, home / "journal", env)
        time.sleep(6.5)  # past the 5 s wait for a tray, after which no Python code runs
        code, _ = stop_app(app, timeout=5)
    finally:
        _reap(app)
    assert code == 0


# --- under Xvfb, with a tray host and real keystrokes -----------------------------------------


def _need_x() -> None:
    missing = missing_tools(tray=True)
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: `make package` installs them")


def _xdotool(xs: XSession, *args: str) -> str:
    result = subprocess.run(
        ["xdotool", *args],
        env={"DISPLAY": xs.display, "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout


def _wait_embedded(xs: XSession, before: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while xs.tray_windows() <= before:
        assert time.monotonic() < deadline, "the tray icon was never embedded"
        time.sleep(0.02)


def _answer_window(xs: XSession, selection_reason: str, rejection_reason: str) -> None:
    """What a person does: 1 picks the first approach, Enter goes on, reasons, Ctrl+Enter."""
    window = _xdotool(xs, "search", "--sync", "--onlyvisible", "--name", "Decision: ").split()[0]
    _xdotool(xs, "windowfocus", "--sync", window)
    time.sleep(KEY_GUARD_MS / 1000 + 0.3)  # keys in a window's first moment are ignored
    for step in (
        ("key", "1"),
        ("key", "Return"),
        ("type", "--delay", "5", selection_reason),
        ("key", "Tab"),
        ("type", "--delay", "5", rejection_reason),
        ("key", "ctrl+Return"),
    ):
        _xdotool(xs, *step)
        time.sleep(0.15)


def _quit_from_tray(xs: XSession) -> None:
    """Right-click the embedded icon, then Up (the last item, Quit) and Enter."""
    tree = subprocess.run(
        ["xwininfo", "-tree", "-id", str(xs.tray_window)],
        env={"DISPLAY": xs.display},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # The icon's window carries the app's window class (the desktop entry's StartupWMClass).
    window_class = f'("{WINDOW_CLASS}" "{WINDOW_CLASS}")'
    icons = [line.split()[0] for line in tree.splitlines() if window_class in line]
    assert icons, f"no window of class {WINDOW_CLASS} in the tray:\n{tree}"
    _xdotool(xs, "mousemove", "--window", icons[0], "5", "5", "click", "3")
    time.sleep(0.7)
    _xdotool(xs, "key", "Up", "Return")


def _ask(
    frozen: Path, journal: Path, env: dict[str, str], workspace: Path
) -> subprocess.Popen[str]:
    proposal = workspace / "proposal.json"
    proposal.write_text(json.dumps(proposal_dict()), encoding="utf-8")
    return subprocess.Popen(
        [
            str(frozen),
            "--journal",
            str(journal),
            "ask",
            str(proposal),
            "--agent",
            "smoke",
            "--session",
            "smoke-1",
            "--workspace",
            str(workspace),
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _recorded(ask: subprocess.Popen[str]) -> dict[str, object]:
    try:
        out, err = ask.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        ask.kill()
        out, err = ask.communicate()
    assert unexpected_stderr(err) == []
    assert ask.returncode == 0, out + err
    result: dict[str, object] = json.loads(out)
    assert result["status"] == "recorded"
    return result


@pytest.mark.xvfb
def test_ask_is_answered_in_the_real_window_and_the_tray_quits(
    frozen: Path, frozen_env: dict[str, str], home: Path
) -> None:
    _need_x()
    journal = home / "journal"
    with x_session() as xs:
        env = xs.env(frozen_env)
        before = xs.tray_windows()
        app = start_app(frozen, journal, env)
        ask = None
        try:
            _wait_embedded(xs, before)
            ask = _ask(frozen, journal, env, home)
            _answer_window(xs, "independent files avoid lost updates", "one rewrite for all")
            result = _recorded(ask)
            assert result["selected_option_id"] == "per-record-json"
            assert result["selection_reason"] == "independent files avoid lost updates"
            shown = run(frozen, journal, "show", str(result["decision_id"]), "--json", env=env)
            assert shown.returncode == 0, shown.stderr
            _quit_from_tray(xs)
            code, err = _wait_exit(app, timeout=15)
        finally:
            for process in (ask, app):
                if process is not None:
                    _reap(process)
    assert code == 0, "Quit in the tray menu did not end the app"
    assert unexpected_stderr(err) == []


def _app_pid(journal: Path) -> int | None:
    """The tray app `ask` started for this journal (not our child, so found through /proc)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(journal).encode() in argv and b"app" in argv:
            return int(entry.name)
    return None


@pytest.mark.xvfb
def test_ask_starts_the_frozen_app_with_the_users_environment(
    frozen: Path, bundle: Path, frozen_env: dict[str, str], home: Path
) -> None:
    """`ask` re-runs the bundle's executable for the app (app.frozen.self_command) and hands it
    the user's LD_LIBRARY_PATH, not the bootloader's (app.frozen.child_env)."""
    _need_x()
    journal = home / "journal"
    user_libs = str(home / "user-libs")
    with x_session() as xs:
        env = dict(xs.env(frozen_env), LD_LIBRARY_PATH=user_libs)
        before = xs.tray_windows()
        ask = _ask(frozen, journal, env, home)
        pid = None
        try:
            _answer_window(xs, "started on demand", "the other one")
            _recorded(ask)
            pid = _app_pid(journal)
            assert pid is not None, "ask did not leave the tray app running"
            environ = dict(
                item.split("=", 1)
                for item in Path(f"/proc/{pid}/environ").read_text().split("\0")
                if "=" in item
            )
            assert environ.get("LD_LIBRARY_PATH_ORIG") == user_libs
            assert environ["LD_LIBRARY_PATH"] == f"{bundle / '_internal'}:{user_libs}"
            _wait_embedded(xs, before)
            _quit_from_tray(xs)
            deadline = time.monotonic() + 15
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not Path(f"/proc/{pid}").exists(), "Quit in the tray menu did not end the app"
        finally:
            _reap(ask)
            if pid is not None and Path(f"/proc/{pid}").exists():
                os.kill(pid, signal.SIGKILL)


# --- MCP ---------------------------------------------------------------------------------------


def test_mcp_server_lists_its_tools(frozen: Path, frozen_env: dict[str, str], home: Path) -> None:
    if not (ROOT / "app" / "mcp").is_dir():
        pytest.skip("app/mcp does not exist yet: the frozen `mcp` command cannot be checked")
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    errlog_path = home / "mcp-stderr.txt"
    params = StdioServerParameters(
        command=str(frozen), args=["--journal", str(home / "journal"), "mcp"], env=frozen_env
    )

    async def list_tools() -> list[str]:
        with errlog_path.open("w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

    names = asyncio.run(asyncio.wait_for(list_tools(), timeout=60))
    assert "present_implementation_decision" in names
    assert unexpected_stderr(errlog_path.read_text(encoding="utf-8")) == []


# --- reading a large journal in worker processes -------------------------------------------


def _reading_workers(parent: int) -> int:
    """How many of parent's children are reading workers: the bundle started again (spawned),
    or the parent itself forked (same command line)."""
    try:
        parent_command = (Path("/proc") / str(parent) / "cmdline").read_bytes()
    except OSError:
        return 0
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent_pid = int(stat.rsplit(")", 1)[1].split()[1])
        if parent_pid == parent and (
            b"--multiprocessing-fork" in command or command == parent_command
        ):
            count += 1
    return count


def test_a_large_journal_is_read_by_worker_processes_of_the_bundle(
    frozen: Path, frozen_env: dict[str, str], home: Path
) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("counts worker processes through /proc")
    journal = home / "journal"
    write_journal(journal, PARALLEL_MIN_FILES + 200)
    env = {**frozen_env, WORKERS_ENV: "2"}
    command = [str(frozen), "--journal", str(journal), "doctor", "--reindex", "--json"]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    most = 0
    while process.poll() is None:
        most = max(most, _reading_workers(process.pid))
        time.sleep(0.02)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert json.loads(out)["indexed"] == PARALLEL_MIN_FILES + 200
    assert most == 2
    assert unexpected_stderr(err) == []
    rebuilt = run(frozen, journal, "profile", "rebuild", env=env)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert unexpected_stderr(rebuilt.stderr) == []
