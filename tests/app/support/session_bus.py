"""A private D-Bus session bus and the stand-in notification service on it, for tests: no test
talks to the person's desktop."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def started(args: list[str], env: dict[str, str] | None = None) -> Iterator[str]:
    """A helper process that prints one line when it is ready; yields that line."""
    with subprocess.Popen(
        args, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as process:
        assert process.stdout is not None
        try:
            yield process.stdout.readline().strip()
        finally:
            process.terminate()
            process.wait(10)


@contextlib.contextmanager
def private_session_bus() -> Iterator[str]:
    """`dbus-daemon --session` of our own; yields its address."""
    for tool in ("dbus-daemon", "gdbus"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (dbus-daemon, libglib2.0-bin)")
    args = ["dbus-daemon", "--session", "--nofork", "--print-address=1", "--nopidfile"]
    with started(args) as address:
        yield address


def fake_service(
    address: str, calls: Path, capabilities: str = "actions,body"
) -> contextlib.AbstractContextManager[str]:
    """tests/app/support/fake_notification_service.py on the bus at `address`; yields "ready"."""
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": address, "PYTHONPATH": str(ROOT)}
    module = "tests.app.support.fake_notification_service"
    return started([sys.executable, "-m", module, str(calls), capabilities], env)
