"""The platform's "start at login" entry: written when the user turns it on, removed when off."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
from pathlib import Path

from app.frozen import self_command

ENTRY_NAME = "decision-journal"


def launch_command() -> list[str]:
    """How to start the tray app again: the frozen executable, or this Python with our module."""
    return [*self_command(), "app"]


def linux_entry_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "autostart" / f"{ENTRY_NAME}.desktop"


def mac_entry_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / "dev.decision-journal.tray.plist"


def _desktop_entry(command: list[str]) -> str:
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=Decision Journal\n"
        "Comment=Ask at implementation forks and keep a journal of decisions\n"
        f"Exec={shlex.join(command)}\n"
        "Icon=decision-journal\n"
        "Terminal=false\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def _launch_agent(command: list[str]) -> str:
    arguments = "".join(f"    <string>{part}</string>\n" for part in command)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
        '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        '<plist version="1.0"><dict>\n'
        "  <key>Label</key><string>dev.decision-journal.tray</string>\n"
        f"  <key>ProgramArguments</key><array>\n{arguments}  </array>\n"
        "  <key>RunAtLoad</key><true/>\n"
        "</dict></plist>\n"
    )


def is_enabled() -> bool:
    if sys.platform == "win32":
        return _windows_value() is not None
    path = mac_entry_path() if sys.platform == "darwin" else linux_entry_path()
    return path.exists()


def set_enabled(enabled: bool, command: list[str] | None = None) -> None:
    command = command or launch_command()
    if sys.platform == "win32":
        _set_windows(enabled, command)
        return
    if sys.platform == "darwin":
        path, text = mac_entry_path(), _launch_agent(command)
    else:
        path, text = linux_entry_path(), _desktop_entry(command)
    if enabled:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    else:
        path.unlink(missing_ok=True)


_RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


if sys.platform == "win32":
    import winreg

    def _windows_value() -> str | None:
        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, _RUN_KEY) as key:
                value, _ = winreg.QueryValueEx(key, "DecisionJournal")
                return str(value)
        except OSError:
            return None

    def _set_windows(enabled: bool, command: list[str]) -> None:
        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, _RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            if enabled:
                line = subprocess.list2cmdline(command)
                winreg.SetValueEx(key, "DecisionJournal", 0, winreg.REG_SZ, line)
            else:
                with contextlib.suppress(FileNotFoundError):
                    winreg.DeleteValue(key, "DecisionJournal")

else:

    def _windows_value() -> str | None:
        return None

    def _set_windows(enabled: bool, command: list[str]) -> None:
        raise OSError("the Run registry key exists on Windows only")
