"""Desktop notifications through the freedesktop notification service, where one runs.

Why not only the tray balloon: Qt's balloon is drawn by Qt next to the tray and covers
whatever is there for seconds, while a notification service (GNOME Shell, KDE Plasma, dunst,
mako, xfce4-notifyd) places, stacks and times out notifications as the person configured, and
keeps them in its history. QtDBus finds out whether the service is there; the message itself
is sent by GLib's `gdbus`, because `Notify` needs an unsigned integer argument and PySide6
cannot put one into a D-Bus message (Python integers go out as signed). `gdbus` types every
argument from the service's own introspection data, so the call matches what the service
expects. Without the service or `gdbus`, the caller falls back to the tray balloon.

Notifications with buttons (the spec's "actions": "Overrule" on an automatic answer) are sent
only to a service whose `GetCapabilities` lists `actions`; the capabilities are asked once, by
a `gdbus` process, so nothing waits on the service. The notification's id comes back on that
`Notify` call's output, and the service's `ActionInvoked` and `NotificationClosed` signals are
heard over QtDBus, from the owner of the service's name only: a button press reaches the
caller as `action_invoked(key, action)` with the key it gave, and an id this notifier did not
send is ignored.
"""

from __future__ import annotations

import html
import re
import shutil
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Signal, Slot

if TYPE_CHECKING:  # QtDBus is imported where D-Bus exists (not on macOS or Windows)
    from PySide6.QtDBus import QDBusConnection, QDBusMessage

from app.frozen import child_env

SERVICE = "org.freedesktop.Notifications"
OBJECT_PATH = "/org/freedesktop/Notifications"
APP_NAME = "Decision Journal"
APP_ICON = "decision-journal"
DESKTOP_ENTRY = "decision-journal"
EXPIRE_MS = 8000
ACTIONS_CAPABILITY = "actions"
BUS_NAME = "decision-journal-notifications"
"""QtDBus's name for our connection to a bus given by address (tests' private buses)."""
KEY_PROPERTY = "decision-journal-key"
"""The QProcess property that carries a Notify call's key to its reply."""
_ID_REPLY = re.compile(r"\(\s*(?:uint32\s+)?(\d+)\s*,?\s*\)")
_WORD = re.compile(r"'((?:[^'\\]|\\.)*)'")


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


def _call(method: str, *arguments: str) -> list[str]:
    return [
        "call",
        "--session",
        "--dest",
        SERVICE,
        "--object-path",
        OBJECT_PATH,
        "--method",
        f"{SERVICE}.{method}",
        *arguments,
    ]


def notify_arguments(title: str, body: str, actions: Sequence[str] = ()) -> list[str]:
    """The `gdbus call` arguments for one Notify call; the body is escaped for markup,
    because services that support body markup would otherwise read `<` and `&` as tags.
    `actions` alternate key and label, as the spec has them."""
    hints = f"{{'desktop-entry': <{gvariant_string(DESKTOP_ENTRY)}>, 'urgency': <byte 1>}}"
    return _call(
        "Notify",
        gvariant_string(APP_NAME),
        "0",
        gvariant_string(APP_ICON),
        gvariant_string(title),
        gvariant_string(html.escape(body, quote=False)),
        "[" + ", ".join(gvariant_string(a) for a in actions) + "]",
        hints,
        "0" if actions else str(EXPIRE_MS),  # a question with buttons stays until answered
    )


def notification_id(output: str) -> int | None:
    """The id in `gdbus call`'s printed reply to Notify, `(uint32 7,)`."""
    match = _ID_REPLY.search(output)
    return int(match.group(1)) if match else None


def capabilities_of(output: str) -> frozenset[str]:
    """The words in `gdbus call`'s printed reply to GetCapabilities, `(['actions', 'body'],)`."""
    return frozenset(m.group(1) for m in _WORD.finditer(output))


def _output(process: QProcess) -> str:
    return bytes(process.readAllStandardOutput().data()).decode("utf-8", "replace")


def _bus(address: str | None) -> QDBusConnection:
    from PySide6.QtDBus import QDBusConnection  # noqa: PLC0415  # only where D-Bus exists

    if address is None:
        return QDBusConnection.sessionBus()
    return QDBusConnection.connectToBus(address, f"{BUS_NAME} {address}")


def service_running(address: str | None = None) -> bool:
    """Whether the session bus (or the bus at `address`) has a notification service (running
    or activatable)."""
    if sys.platform in ("darwin", "win32"):
        return False
    bus = _bus(address)
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
    """Sends notifications without blocking: each one is a `gdbus` process.

    Signals:
        action_invoked(str, str): (the key given to `notify_actions`, the action's key) when
            the person pressed a button of one of our notifications.

    Args:
        gdbus: the `gdbus` program (default: found on PATH); "" means none.
        available: whether the service runs (default: asked once over D-Bus, when first
            needed), for tests.
        bus_address: the session bus to use (default: the session's own), for tests.
        capabilities: the service's capabilities (default: asked once, by `probe`), for tests.
    """

    action_invoked = Signal(str, str)

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        gdbus: str | None = None,
        available: bool | None = None,
        bus_address: str | None = None,
        capabilities: frozenset[str] | None = None,
    ) -> None:
        super().__init__(parent)
        self._gdbus = (shutil.which("gdbus") or "") if gdbus is None else gdbus
        self._available = available
        self._address = bus_address
        self._capabilities = capabilities
        self._probing = False
        self._keys: dict[int, str] = {}
        self._listening = False

    def available(self) -> bool:
        """Whether `notify` can reach a notification service."""
        if not self._gdbus:
            return False
        if self._available is None:
            self._available = service_running(self._address)
        return self._available

    def supports_actions(self) -> bool:
        """Whether the service shows buttons: known once `probe` has its answer."""
        return self.available() and ACTIONS_CAPABILITY in (self._capabilities or ())

    def probe(self) -> None:
        """Asks the service for its capabilities, once, without waiting for the answer."""
        if self._capabilities is not None or self._probing or not self.available():
            return
        self._probing = True
        process = self._process(_call("GetCapabilities"))
        process.setStandardErrorFile(QProcess.nullDevice())
        # bound methods, not closures: a notifier being destroyed hears nothing from its
        # children's last signals
        process.finished.connect(self._probed)
        process.start()

    @Slot()
    def _probed(self) -> None:
        process = self.sender()
        if not isinstance(process, QProcess):
            return
        self._capabilities = capabilities_of(_output(process))
        self._probing = False
        process.deleteLater()

    def _environment(self) -> QProcessEnvironment:
        environment = QProcessEnvironment()
        for name, value in child_env().items():
            environment.insert(name, value)
        if self._address is not None:
            environment.insert("DBUS_SESSION_BUS_ADDRESS", self._address)
        return environment

    def _process(self, arguments: list[str]) -> QProcess:
        process = QProcess(self)
        process.setProcessEnvironment(self._environment())
        process.setProgram(self._gdbus)
        process.setArguments(arguments)
        return process

    def notify(self, title: str, body: str) -> bool:
        """Ask the service to show a notification; False when it cannot be sent."""
        if not self.available():
            return False
        process = self._process(notify_arguments(title, body))
        process.setStandardOutputFile(QProcess.nullDevice())
        process.setStandardErrorFile(QProcess.nullDevice())
        started = process.startDetached()
        process.deleteLater()
        return bool(started)

    def notify_actions(self, title: str, body: str, key: str, actions: Sequence[str]) -> bool:
        """A notification with buttons (`actions`: key, label, key, label…); a press comes back
        as `action_invoked(key, action)`. False when the service shows no buttons."""
        if not self.supports_actions():
            return False
        self._listen()
        process = self._process(notify_arguments(title, body, actions))
        process.setStandardErrorFile(QProcess.nullDevice())
        process.setProperty(KEY_PROPERTY, key)
        process.finished.connect(self._notified)
        process.start()
        return True

    @Slot()
    def _notified(self) -> None:
        process = self.sender()
        if not isinstance(process, QProcess):
            return
        number = notification_id(_output(process))
        key = process.property(KEY_PROPERTY)
        if number is not None and isinstance(key, str):
            self._keys[number] = key
        process.deleteLater()

    def _listen(self) -> None:
        if self._listening:
            return
        bus = _bus(self._address)
        for name, slot in (
            ("ActionInvoked", "1_action(QDBusMessage)"),
            ("NotificationClosed", "1_closed(QDBusMessage)"),
        ):
            # PySide6 takes the slot's signature as text, whatever its type stubs say
            bus.connect(SERVICE, OBJECT_PATH, SERVICE, name, self, slot)  # type: ignore[call-overload]
        self._listening = True

    @Slot("QDBusMessage")
    def _action(self, message: QDBusMessage) -> None:
        arguments = message.arguments()
        if len(arguments) != 2 or not isinstance(arguments[1], str):
            return
        key = self._keys.get(arguments[0]) if isinstance(arguments[0], int) else None
        if key is not None:
            self.action_invoked.emit(key, arguments[1])

    @Slot("QDBusMessage")
    def _closed(self, message: QDBusMessage) -> None:
        arguments = message.arguments()
        if arguments and isinstance(arguments[0], int):
            self._keys.pop(arguments[0], None)

    def close_all(self) -> None:
        """Withdraws our notifications with buttons (the app is quitting: nobody would hear a
        press); detached, so quitting never waits on the service."""
        for number in list(self._keys):
            process = self._process(_call("CloseNotification", f"uint32 {number}"))
            process.setStandardOutputFile(QProcess.nullDevice())
            process.setStandardErrorFile(QProcess.nullDevice())
            process.startDetached()
            process.deleteLater()
        self._keys.clear()

    def sent(self) -> dict[int, str]:
        """The notifications with buttons still open: id → key."""
        return dict(self._keys)
