"""Who is on the other end of a local socket, as the kernel reports it, not as the client says.

Why: the socket lives in a 0700 directory, but Qt documents that macOS ignores permissions on
socket files, and a root-run tool or a misconfigured XDG_RUNTIME_DIR could still expose it. The
kernel's answer is the last check before a single byte from the client is read.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import sys
from typing import NamedTuple

_UCRED = struct.Struct("=iII")
"""Linux `struct ucred {pid_t pid; uid_t uid; gid_t gid;}`."""
_SOL_LOCAL = 0
_LOCAL_PEERCRED = getattr(socket, "LOCAL_PEERCRED", 0x001)
_LOCAL_PEERPID = 0x002
_XUCRED = struct.Struct("=IIh")
"""The head of BSD/macOS `struct xucred {u_int cr_version; uid_t cr_uid; short cr_ngroups; ...}`."""
_XUCRED_SIZE = 76
_XUCRED_VERSION = 0
_PID = struct.Struct("=i")


class PeerCredentials(NamedTuple):
    """The connected process's user, and its process id when the platform tells."""

    uid: int
    pid: int | None


def _linux(sock: socket.socket) -> PeerCredentials:
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
    pid, uid, _gid = _UCRED.unpack(raw)
    return PeerCredentials(uid=uid, pid=pid or None)


def _bsd(sock: socket.socket) -> PeerCredentials | None:
    raw = sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED_SIZE)
    version, uid, _ngroups = _XUCRED.unpack_from(raw)
    if version != _XUCRED_VERSION:
        return None
    pid: int | None = None
    if sys.platform == "darwin":
        with contextlib.suppress(OSError):
            pid = _PID.unpack(sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERPID, _PID.size))[0] or None
    return PeerCredentials(uid=uid, pid=pid)


def peer_credentials(fd: int) -> PeerCredentials | None:
    """The peer of the connected Unix socket `fd`, or None when it cannot be learned.

    The descriptor is duplicated so that closing our Python socket object leaves the caller's
    descriptor (owned by Qt) open.
    """
    if fd < 0 or not (sys.platform.startswith(("linux", "darwin", "freebsd"))):
        return None
    try:
        dup = os.dup(fd)
    except OSError:
        return None
    try:
        sock = socket.socket(fileno=dup)
    except OSError:
        os.close(dup)
        return None
    with sock:
        try:
            if sys.platform.startswith("linux"):
                return _linux(sock)
            return _bsd(sock)
        except (OSError, struct.error):
            return None


def peer_uid(fd: int) -> int | None:
    """The user id of the process connected on `fd`, or None when it cannot be learned."""
    credentials = peer_credentials(fd)
    return None if credentials is None else credentials.uid
