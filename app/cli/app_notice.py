"""Telling a running app that this command changed records, so its index and profile catch up.

Why: the app learns of its own commits through the store's listener, but a CLI process writes
behind its back; without a word the open window and the profile stay behind until the next
refresh. The notice is best effort: no app, an older app or any socket trouble changes
nothing for the command, whose work is already committed.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from core.errors import JournalError

if TYPE_CHECKING:
    from core.journal import Journal

NOTICE_TIMEOUT = 1.0
"""Seconds the command may spend on the notice; the app replies at once when it is there."""


def tell_app_records_changed(journal: Journal) -> None:
    """Loads the socket client only here: the commands that change records are its callers."""
    from core.ipc.client import IpcClient
    from core.ipc.methods import JOURNAL_CHANGED
    from core.ipc.runtime_paths import socket_path

    with (
        contextlib.suppress(JournalError, OSError),
        IpcClient(socket_path(journal.root), timeout=NOTICE_TIMEOUT) as client,
    ):
        client.call(JOURNAL_CHANGED, {}, timeout=NOTICE_TIMEOUT)
