"""A stand-in freedesktop notification service on a private session bus, for tray tests.

Run as `python -m tests.app.support.fake_notification_service OUT [CAPABILITIES]`: it owns
`org.freedesktop.Notifications`, answers introspection like a real service (so `gdbus` types
the call's arguments from it), `GetCapabilities` with CAPABILITIES (comma-separated, default
`actions,body`), and each `Notify` with a new id; it appends each Notify call's signature, plain
arguments, actions and id to OUT as one JSON line. A test presses a button the way a person
would through `org.decisionjournal.FakeNotifications.Invoke(id, action)`: the service then
emits `ActionInvoked(id, action)` and `NotificationClosed(id, 2)` from its own connection, with
the spec's types (uint32), as a real service does.

Written over jeepney (a pure-Python D-Bus library keyring already brings) rather than QtDBus,
because PySide6 cannot put an unsigned integer into a D-Bus message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jeepney import (
    DBusAddress,
    HeaderFields,
    MessageType,
    new_method_call,
    new_method_return,
    new_signal,
)
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import DBusConnection, open_dbus_connection

SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
CONTROL = "org.decisionjournal.FakeNotifications"
INTROSPECTION = f"""<node>
<interface name="{SERVICE}">
 <method name="Notify">
  <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
  <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
  <arg type="a{{sv}}" direction="in"/><arg type="i" direction="in"/>
  <arg type="u" direction="out"/>
 </method>
 <method name="GetCapabilities"><arg type="as" direction="out"/></method>
 <method name="CloseNotification"><arg type="u" direction="in"/></method>
 <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
 <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
</interface>
<interface name="{CONTROL}">
 <method name="Invoke"><arg type="u" direction="in"/><arg type="s" direction="in"/></method>
</interface>
</node>"""


class Service:
    def __init__(self, connection: DBusConnection, out: Path, capabilities: list[str]) -> None:
        self.connection = connection
        self.out = out
        self.capabilities = capabilities
        self.next_id = 1
        self.emitter = DBusAddress(PATH, interface=SERVICE)

    def handle(self, message: Any) -> None:
        fields = message.header.fields
        member = fields.get(HeaderFields.member)
        body = message.body
        if member == "Introspect":
            self.connection.send(new_method_return(message, "s", (INTROSPECTION,)))
        elif member == "GetCapabilities":
            self.connection.send(new_method_return(message, "as", (self.capabilities,)))
        elif member == "Notify":
            number = self.next_id
            self.next_id += 1
            plain = [a for a in body if isinstance(a, str | int)]
            line = {
                "signature": fields.get(HeaderFields.signature, ""),
                "plain": plain,
                "actions": list(body[5]),
                "id": number,
            }
            with self.out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")
            self.connection.send(new_method_return(message, "u", (number,)))
        elif member == "Invoke":
            number, action = body
            self.connection.send(new_method_return(message))
            self.connection.send(new_signal(self.emitter, "ActionInvoked", "us", (number, action)))
            self.connection.send(new_signal(self.emitter, "NotificationClosed", "uu", (number, 2)))
        elif member == "CloseNotification":
            with self.out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"closed": body[0]}) + "\n")
            self.connection.send(new_method_return(message))
            self.connection.send(new_signal(self.emitter, "NotificationClosed", "uu", (body[0], 3)))
        else:
            self.connection.send(new_method_return(message))


def main() -> int:
    out = Path(sys.argv[1])
    capabilities = (sys.argv[2] if len(sys.argv) > 2 else "actions,body").split(",")
    connection = open_dbus_connection(bus="SESSION")
    reply = connection.send_and_get_reply(message_bus.RequestName(SERVICE, 4))  # do not queue
    if reply.body[0] != 1:
        return 1
    service = Service(connection, out, [c for c in capabilities if c])
    print("ready", flush=True)
    while True:
        message = connection.receive()
        if message.header.message_type == MessageType.method_call:
            service.handle(message)


def invoke(address: str, number: int, action: str) -> None:
    """Presses a button of notification `number`, as the person would."""
    connection = open_dbus_connection(bus=address)
    try:
        target = DBusAddress(PATH, bus_name=SERVICE, interface=CONTROL)
        connection.send_and_get_reply(new_method_call(target, "Invoke", "us", (number, action)))
    finally:
        connection.close()


if __name__ == "__main__":
    sys.exit(main())
