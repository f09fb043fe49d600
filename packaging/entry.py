"""The frozen executable's entry point: one `decision-journal` binary runs every subcommand.

Why a separate script: PyInstaller runs its script as `__main__`; importing `app.cli.main` from
here keeps that module importable under its own name, as tests and `python -m` expect.
"""

import multiprocessing
import sys


def _attach_parent_console() -> None:
    """Windows: the GUI-subsystem executable has no stdout when typed in a terminal.

    Agents and hooks start it with pipes, which work as they are; a person typing
    `decision-journal status` in cmd or PowerShell gets the output in that console.
    """
    if sys.platform != "win32" or sys.stdout is not None:
        return
    import ctypes  # noqa: PLC0415 - Windows only; other platforms never pay for it

    if ctypes.windll.kernel32.AttachConsole(-1):  # ATTACH_PARENT_PROCESS
        sys.stdout = open("CONOUT$", "w", encoding="utf-8")  # noqa: SIM115 - process lifetime
        sys.stderr = open("CONOUT$", "w", encoding="utf-8")  # noqa: SIM115


if __name__ == "__main__":
    # A cold index or profile build reads records in spawned worker processes
    # (core/bulk/parallel_read.py); in the bundle each worker is this executable started again.
    multiprocessing.freeze_support()
    _attach_parent_console()
    from app.cli.main import main  # after the console is attached

    sys.exit(main())
