"""The listening Unix socket of one journal, private to this user from its first moment."""

from __future__ import annotations

import contextlib
import os
import socket


def bind_listener(path: os.PathLike[str] | str, backlog: int = 1024) -> socket.socket:
    """A listening Unix socket at `path`, private to this user from its first moment.

    Bound under a temporary name in the same (private) directory, made owner-only, then
    renamed over `path`, so a stale socket file is replaced atomically.
    """
    final = os.fspath(path)
    temporary = os.path.join(os.path.dirname(final), f"t-{os.getpid()}.sock")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(temporary)
        os.chmod(temporary, 0o600)
        os.replace(temporary, final)
        sock.listen(backlog)
    except OSError:
        sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return sock
