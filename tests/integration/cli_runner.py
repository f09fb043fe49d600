"""Runs the `decision-journal` CLI as scripts and agents do: in this process (the default), or
as a real subprocess (`run_cli_process`, for the smoke tests of the installed entry point).

Why in-process by default: the exact-output tests run hundreds of commands, and each new
interpreter pays the start-up of Python, pydantic and the command's modules again; `main(argv)`
with its own standard streams, working folder and environment gives the same stdout, stderr
and exit code. What a subprocess would not share is reset around each call: the streams,
the working folder, `os.environ`, the root logger's stderr (Python's last-resort handler, which
pytest's log capture would otherwise replace) and the SIGINT handler.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUBPROCESS_ENV = "DJ_CLI_SUBPROCESS"


def run_cli(
    journal: Path, *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`decision-journal --journal JOURNAL ARGS…` through `app.cli.main.main`, in-process
    (in a subprocess when DJ_CLI_SUBPROCESS=1: the baseline the two are timed against)."""
    if os.environ.get(SUBPROCESS_ENV) == "1":
        return run_cli_process(journal, *args, stdin=stdin, cwd=cwd)
    return run_main(["--journal", str(journal), *args], stdin=stdin, cwd=cwd)


def run_main(
    argv: list[str],
    *,
    stdin: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`main(argv)` with its own stdin, stdout, stderr, working folder and environment
    (`env` is the whole environment, as for a subprocess; None keeps this one's, without
    DECISION_JOURNAL_HOME)."""
    from app.cli.main import main

    out, err = _stream(), _stream()
    with _isolated(out, err, stdin, cwd or ROOT, env):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors and --help, --version
            code = _exit_code(exc, err)
        except Exception:  # what an uncaught error does to a process: traceback, exit 1
            traceback.print_exc(file=err)
            code = 1
    return subprocess.CompletedProcess(["decision-journal", *argv], code, _text(out), _text(err))


def run_cli_process(
    journal: Path, *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The same command in a real `python -m app.cli.main` process."""
    env = {k: v for k, v in os.environ.items() if k != "DECISION_JOURNAL_HOME"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", "--journal", str(journal), *args],
        cwd=cwd or ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    # What text=True gives a subprocess's output: decoded, with universal newlines.
    return buffer.getvalue().decode("utf-8", "replace").replace("\r\n", "\n")


def _exit_code(exc: SystemExit, err: io.TextIOWrapper) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=err)
    return 1


@contextlib.contextmanager
def _isolated(
    out: io.TextIOWrapper,
    err: io.TextIOWrapper,
    stdin: str | None,
    cwd: Path,
    env: dict[str, str] | None,
) -> Iterator[None]:
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_sigint = signal.getsignal(signal.SIGINT)
    handler = logging.StreamHandler(err)  # as the last-resort handler: WARNING, message only
    handler.setLevel(logging.WARNING)
    root_logger = logging.getLogger()
    sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    os.environ.pop("DECISION_JOURNAL_HOME", None)
    time.tzset()  # local times follow the TZ the command was given
    os.chdir(cwd)
    root_logger.addHandler(handler)
    try:
        yield
    finally:
        root_logger.removeHandler(handler)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        signal.signal(signal.SIGINT, saved_sigint)
