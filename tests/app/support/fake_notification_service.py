"""A stand-in freedesktop notification service on a private session bus, for tray tests.

Run as `python -m tests.app.support.fake_notification_service OUT`: it owns
`org.freedesktop.Notifications`, answers introspection like a real service (so `gdbus` types
the call's arguments from it), and appends each Notify call's signature and arguments to OUT
as one JSON line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtDBus import QDBusConnection, QDBusMessage, QDBusVirtualObject

INTROSPECTION = """<interface name="org.freedesktop.Notifications">
 <method name="Notify">
  <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
  <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
  <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/>
  <arg type="u" direction="out"/>
 </method>
</interface>"""


class Service(QDBusVirtualObject):
    def __init__(self, out: Path) -> None:
        super().__init__()
        self._out = out

    def introspect(self, path: str) -> str:
        return INTROSPECTION

    def handleMessage(self, message: QDBusMessage, connection: QDBusConnection) -> bool:
        if message.member() != "Notify":
            return False
        args = message.arguments()
        plain = [a for a in args if isinstance(a, str | int)]
        with self._out.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"signature": message.signature(), "plain": plain}) + "\n")
        connection.send(message.createReply([1]))
        return True


def main() -> int:
    app = QCoreApplication(sys.argv[:1])
    bus = QDBusConnection.sessionBus()
    service = Service(Path(sys.argv[1]))
    if not bus.registerVirtualObject("/org/freedesktop/Notifications", service):
        return 1
    if not bus.registerService("org.freedesktop.Notifications"):
        return 1
    print("ready", flush=True)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
