"""The platform's "start at login" entry: written when the user turns it on, removed when off.

Why one entry per journal: an app running on a journal other than the default must come back
on that journal, so its entry carries `--journal`, and a second journal's entry must not
replace the first's. The default journal keeps the plain `decision-journal` names. On Linux the
entry also names the window class, so the desktop matches the running app to the entry's icon.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from app.frozen import self_command
from core.store.location import default_journal_dir

ENTRY_NAME = "decision-journal"
WINDOW_CLASS = "decision-journal"
_MAC_LABEL = "dev.decision-journal.tray"
_RUN_VALUE = "DecisionJournal"


def is_default_journal(journal_root: Path | None) -> bool:
    """True for None and for the platform's default journal folder."""
    if journal_root is None:
        return True
    return os.path.abspath(journal_root) == os.path.abspath(default_journal_dir())


def journal_tag(journal_root: Path | None) -> str:
    """ "" for the default journal, else a short stable tag of its absolute path."""
    if is_default_journal(journal_root):
        return ""
    assert journal_root is not None
    digest = hashlib.sha256(os.path.abspath(journal_root).encode("utf-8")).hexdigest()
    return digest[:10]


def launch_command(journal_root: Path | None = None) -> list[str]:
    """How to start the tray app again: the frozen executable, or this Python with our module;
    with `--journal` when it serves a journal other than the default."""
    if is_default_journal(journal_root):
        return [*self_command(), "app"]
    return [*self_command(), "--journal", os.path.abspath(str(journal_root)), "app"]


def linux_entry_path(journal_root: Path | None = None) -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    tag = journal_tag(journal_root)
    name = f"{ENTRY_NAME}-{tag}" if tag else ENTRY_NAME
    return Path(config) / "autostart" / f"{name}.desktop"


def mac_entry_path(journal_root: Path | None = None) -> Path:
    tag = journal_tag(journal_root)
    label = f"{_MAC_LABEL}.{tag}" if tag else _MAC_LABEL
    return Path.home() / "Library" / "LaunchAgents" / f"{label}.plist"


def _desktop_value(text: str) -> str:
    """A desktop-entry string value: backslash, newline, tab and carriage return escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def _desktop_exec(command: list[str]) -> str:
    """The Exec key: every argument double-quoted as the desktop-entry spec asks, with `%` and
    the reserved characters escaped, so a journal path with spaces or quotes survives."""

    def quote(argument: str) -> str:
        escaped = argument.replace("\\", "\\\\").replace('"', '\\"')
        escaped = escaped.replace("`", "\\`").replace("$", "\\$").replace("%", "%%")
        return f'"{escaped}"'

    return _desktop_value(" ".join(quote(part) for part in command))


def _desktop_entry(command: list[str], journal_root: Path | None = None) -> str:
    name = "Decision Journal"
    if not is_default_journal(journal_root):
        name = f"Decision Journal ({Path(os.path.abspath(str(journal_root))).name})"
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Name={_desktop_value(name)}\n"
        "Comment=Ask at implementation forks and keep a journal of decisions\n"
        f"Exec={_desktop_exec(command)}\n"
        "Icon=decision-journal\n"
        f"StartupWMClass={WINDOW_CLASS}\n"
        "Terminal=false\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _launch_agent(command: list[str], label: str = _MAC_LABEL) -> str:
    arguments = "".join(f"    <string>{_xml(part)}</string>\n" for part in command)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
        '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        '<plist version="1.0"><dict>\n'
        f"  <key>Label</key><string>{_xml(label)}</string>\n"
        f"  <key>ProgramArguments</key><array>\n{arguments}  </array>\n"
        "  <key>RunAtLoad</key><true/>\n"
        "</dict></plist>\n"
    )


def _run_value(journal_root: Path | None) -> str:
    tag = journal_tag(journal_root)
    return f"{_RUN_VALUE}-{tag}" if tag else _RUN_VALUE


def is_enabled(journal_root: Path | None = None) -> bool:
    """Whether this journal's entry exists."""
    if sys.platform == "win32":
        return _windows_value(_run_value(journal_root)) is not None
    if sys.platform == "darwin":
        return mac_entry_path(journal_root).exists()
    return linux_entry_path(journal_root).exists()


def set_enabled(
    enabled: bool, command: list[str] | None = None, *, journal_root: Path | None = None
) -> None:
    """Write or remove this journal's entry.

    Args:
        enabled: write (True) or remove (False).
        command: what the entry starts (default: `launch_command(journal_root)`).
        journal_root: the journal the app serves; None for the default journal.
    """
    command = command or launch_command(journal_root)
    if sys.platform == "win32":
        _set_windows(enabled, command, _run_value(journal_root))
        return
    if sys.platform == "darwin":
        path = mac_entry_path(journal_root)
        text = _launch_agent(command, path.stem)
    else:
        path, text = linux_entry_path(journal_root), _desktop_entry(command, journal_root)
    if enabled:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    else:
        path.unlink(missing_ok=True)


_RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


if sys.platform == "win32":
    import winreg

    def _windows_value(name: str) -> str | None:
        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, _RUN_KEY) as key:
                value, _ = winreg.QueryValueEx(key, name)
                return str(value)
        except OSError:
            return None

    def _set_windows(enabled: bool, command: list[str], name: str) -> None:
        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, _RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            if enabled:
                line = subprocess.list2cmdline(command)
                winreg.SetValueEx(key, name, 0, winreg.REG_SZ, line)
            else:
                with contextlib.suppress(FileNotFoundError):
                    winreg.DeleteValue(key, name)

else:

    def _windows_value(name: str) -> str | None:
        return None

    def _set_windows(enabled: bool, command: list[str], name: str) -> None:
        raise OSError("the Run registry key exists on Windows only")


def entry_command(text: str) -> list[str]:
    """The argument list a desktop entry's Exec line stands for (for checks and tests).

    Undoes `_desktop_exec`: the string escapes first, then the double-quoted arguments.
    """
    for line in text.splitlines():
        if line.startswith("Exec="):
            return _split_exec(_unescape_value(line.removeprefix("Exec=")))
    return []


def _unescape_value(value: str) -> str:
    escapes = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r", "s": " "}
    out, index = [], 0
    while index < len(value):
        char = value[index]
        if char == "\\" and index + 1 < len(value) and value[index + 1] in escapes:
            out.append(escapes[value[index + 1]])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _split_exec(value: str) -> list[str]:
    arguments: list[str] = []
    current: list[str] | None = None
    quoted = False
    index = 0
    while index < len(value):
        char = value[index]
        if quoted and char == "\\" and index + 1 < len(value):
            current = current or []
            current.append(value[index + 1])
            index += 2
            continue
        if char == '"':
            quoted = not quoted
            current = current or []
        elif char == " " and not quoted:
            if current is not None:
                arguments.append("".join(current))
            current = None
        else:
            current = current or []
            current.append(char)
        index += 1
    if current is not None:
        arguments.append("".join(current))
    return [argument.replace("%%", "%") for argument in arguments]
