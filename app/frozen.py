"""What differs when the app runs from the PyInstaller bundle instead of a Python install.

Why: on Linux the bundle's bootloader points `LD_LIBRARY_PATH` at the bundled libraries (Qt,
OpenSSL, libpython...) and saves the user's value as `LD_LIBRARY_PATH_ORIG`. Every process the
app starts inherits that, so a system program (a browser, `xdg-open`, a terminal) would load our
copies instead of its own and may crash. The bootloader also talks to its own second stage
through `_PYI_*` variables; a bundled program started with them (our own executable, or another
PyInstaller app) takes itself for that second stage. Child processes therefore get the user's
original environment back, and the bundle's executable, started again, sets itself up afresh.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

_PRESERVED_BY_BOOTLOADER = ("LD_LIBRARY_PATH",)
_BOOTLOADER_PRIVATE_PREFIX = "_PYI_"
STARTUP_PROBE_ENV = "DECISION_JOURNAL_STARTUP_PROBE"
_IMPORTED_AT = time.monotonic()


def is_frozen() -> bool:
    """True inside a PyInstaller bundle."""
    return bool(getattr(sys, "frozen", False))


def self_command() -> list[str]:
    """How to run this program's CLI again: the bundled executable, or this Python's module."""
    if is_frozen():
        return [sys.executable]
    return [sys.executable, "-m", "app.cli.main"]


def child_env(
    environ: Mapping[str, str] | None = None, *, frozen: bool | None = None
) -> dict[str, str]:
    """The environment for a process started by the app, as the user's shell would give it.

    Args:
        environ: the environment to start from (default: this process's).
        frozen: whether the bootloader changed it (default: detected), for tests.

    Returns:
        A new dict: unchanged when not frozen; otherwise each variable the bootloader rewrote
        is set back to its saved `<NAME>_ORIG` value, or removed when the user had none, and the
        bootloader's private `_PYI_*` variables are removed.
    """
    env = dict(os.environ if environ is None else environ)
    if not (is_frozen() if frozen is None else frozen):
        return env
    for name in _PRESERVED_BY_BOOTLOADER:
        original = env.pop(f"{name}_ORIG", None)
        if original is None:
            env.pop(name, None)
        else:
            env[name] = original
    for name in [key for key in env if key.startswith(_BOOTLOADER_PRIVATE_PREFIX)]:
        del env[name]
    return env


def ms_since_process_start() -> int:
    """Milliseconds since the kernel started this process (Linux, 10 ms ticks).

    Elsewhere, since this module was imported: a lower bound that misses the bootloader.
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime
        return round((time.clock_gettime(time.CLOCK_BOOTTIME) - started) * 1000)
    except (OSError, ValueError, IndexError, AttributeError):
        return round((time.monotonic() - _IMPORTED_AT) * 1000)


def report_startup(event: str) -> None:
    """Prints `<event> <ms since process start>` to stderr when the start-up probe is on.

    Why: `make package` holds the bundle to a start-up budget (tray icon within 1 s) and reads
    this line from the frozen app; with the variable unset nothing is printed.
    """
    if os.environ.get(STARTUP_PROBE_ENV):
        print(f"{event} {ms_since_process_start()}", file=sys.stderr, flush=True)
