"""Desktop notifications through the freedesktop notification service, where one runs.

Why not only the tray balloon: Qt's balloon is drawn by Qt next to the tray and covers
whatever is there for seconds, while a notification service (GNOME Shell, KDE Plasma, dunst,
mako, xfce4-notifyd) places, stacks and times out notifications as the person configured, and
keeps them in its history. QtDBus finds out whether the service is there; the message itself
is sent by GLib's `gdbus`, because `Notify` needs an unsigned integer argument and PySide6
cannot put one into a D-Bus message (Python integers go out as signed). `gdbus` types every
argument from the service's own introspection data, so the call matches what the service
expects. Without the service or `gdbus`, the caller falls back to the tray balloon.
"""

from __future__ import annotations

import html
import shutil
import sys

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment

from app.frozen import child_env

SERVICE = "org.freedesktop.Notifications"
OBJECT_PATH = "/org/freedesktop/Notifications"
APP_NAME = "Decision Journal"
APP_ICON = "decision-journal"
DESKTOP_ENTRY = "decision-journal"
EXPIRE_MS = 8000


def gvariant_string(text: str) -> str:
    """`text` as a GVariant text-format string literal (quoted, escaped), for `gdbus call`."""
    out = []
    for char in text:
        if char in ("\\", "'"):
            out.append("\\" + char)
        elif char.isprintable() or char == " ":
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
    return "'" + "".join(out) + "'"


def notify_arguments(title: str, body: str) -> list[str]:
    """The `gdbus call` arguments for one Notify call; the body is escaped for markup,
    because services that support body markup would otherwise read `<` and `&` as tags."""
    hints = f"{{'desktop-entry': <{gvariant_string(DESKTOP_ENTRY)}>, 'urgency': <byte 1>}}"
    return [
        "call",
        "--session",
        "--dest",
        SERVICE,
        "--object-path",
        OBJECT_PATH,
        "--method",
        f"{SERVICE}.Notify",
        gvariant_string(APP_NAME),
        "0",
        gvariant_string(APP_ICON),
        gvariant_string(title),
        gvariant_string(html.escape(body, quote=False)),
        "[]",
        hints,
        str(EXPIRE_MS),
    ]


def service_running() -> bool:
    """Whether the session bus has a notification service (running or activatable)."""
    if sys.platform in ("darwin", "win32"):
        return False
    from PySide6.QtDBus import QDBusConnection  # noqa: PLC0415  # only where D-Bus exists

    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    interface = bus.interface()
    if interface is None:
        return False
    reply = interface.isServiceRegistered(SERVICE)
    if reply.isValid() and reply.value():
        return True
    activatable = interface.call("ListActivatableNames")
    names = activatable.arguments()[0] if activatable.arguments() else []
    return isinstance(names, list) and SERVICE in names


class DesktopNotifier(QObject):
    """Sends notifications without blocking: each one is a detached `gdbus` process.

    Args:
        gdbus: the `gdbus` program (default: found on PATH); "" means none.
        available: whether the service runs (default: asked once over D-Bus, when first
            needed), for tests.
    """

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        gdbus: str | None = None,
        available: bool | None = None,
    ) -> None:
        super().__init__(parent)
        self._gdbus = (shutil.which("gdbus") or "") if gdbus is None else gdbus
        self._available = available

    def available(self) -> bool:
        """Whether `notify` can reach a notification service."""
        if not self._gdbus:
            return False
        if self._available is None:
            self._available = service_running()
        return self._available

    def notify(self, title: str, body: str) -> bool:
        """Ask the service to show a notification; False when it cannot be sent."""
        if not self.available():
            return False
        process = QProcess(self)
        environment = QProcessEnvironment()
        for name, value in child_env().items():
            environment.insert(name, value)
        process.setProcessEnvironment(environment)
        process.setProgram(self._gdbus)
        process.setArguments(notify_arguments(title, body))
        process.setStandardOutputFile(QProcess.nullDevice())
        process.setStandardErrorFile(QProcess.nullDevice())
        started = process.startDetached()
        process.deleteLater()
        return bool(started)
