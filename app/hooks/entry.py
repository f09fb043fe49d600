"""`decision-journal hook <client>`: the process every client starts before every tool call.

Why it bypasses the CLI's parser and platformdirs: when the hook has nothing to say, all it
should cost is the interpreter's own start, and building the argparse tree (with its
terminal-size probe) and importing platformdirs each cost more than the quick check itself
(`bench/hook_bench.py` measures it). `parse_argv` reads only the exact forms clients are
configured with (`[--journal DIR] hook CLIENT`); anything else returns None and the CLI
parses it as always.
`journal_dir` answers the common case (Linux, an absolute HOME or XDG_DATA_HOME) as
platformdirs does, and hands every other case to `core.store.location`; a test holds them equal.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from app.hooks.clients import HOOKS
from app.hooks.event import STDIN_MAX
from app.hooks.pending_answer import decide

ENV_HOME = "DECISION_JOURNAL_HOME"
"""`core.store.location.ENV_HOME`; a test keeps the two equal."""
APP_NAME = "decision-journal"
"""`core.store.location.APP_NAME`."""
COMMAND = "hook"
BLOCK = 2
"""`app.hooks.pretool.BLOCK`: the exit code every client reads as "block; stderr says why"."""


def parse_argv(argv: Sequence[str]) -> tuple[str | None, str] | None:
    """(the --journal value or None, the client) for `[--journal DIR] hook CLIENT`, else None."""
    words = list(argv)
    journal: str | None = None
    while words and words[0] != COMMAND:
        word = words.pop(0)
        if word == "--journal" and words:
            journal = words.pop(0)
        elif word.startswith("--journal="):
            journal = word.partition("=")[2]
        else:
            return None
    if len(words) != 2 or words[1] not in HOOKS:
        return None
    return journal, words[1]


def journal_dir(explicit: str | None) -> Path:
    """`core.store.location.resolve_journal_dir(explicit)`, without platformdirs when it can."""
    if explicit:
        return Path(os.path.abspath(os.path.expanduser(explicit)))
    env = os.environ.get(ENV_HOME, "").strip()
    if env:
        return Path(os.path.abspath(os.path.expanduser(env)))
    if sys.platform.startswith("linux") and "ANDROID_DATA" not in os.environ:
        data_home = os.environ.get("XDG_DATA_HOME", "")
        if os.path.isabs(data_home):
            return Path(os.path.join(data_home, APP_NAME))
        home = os.environ.get("HOME", "")
        if os.path.isabs(home):
            return Path(os.path.join(home.rstrip("/") or "/", ".local/share", APP_NAME))
    from core.store.location import resolve_journal_dir  # noqa: PLC0415  # loads platformdirs

    return resolve_journal_dir(None)


def run(journal: str | None, client: str) -> int:
    """Reads the event on stdin and answers it; loads the journal only when it must."""
    hook = HOOKS[client]
    event = _stdin_text()
    root = journal_dir(journal)
    verdict = decide(root, event, hook)
    if verdict.done:
        if verdict.answer:
            sys.stdout.write(verdict.answer + "\n")
            sys.stdout.flush()
        return 0
    try:
        code = _full(root, client, event)
    except Exception as exc:  # noqa: BLE001  # the full path could not even load: fail closed, never exit 1
        return _cannot_decide(hook.client, exc)
    if verdict.stale_index:  # so the next call of every agent is quick again
        _refresh_index(root)
    return code


def _cannot_decide(client: str, exc: Exception) -> int:
    """Exit 2 (block, stderr is the reason) when the journal's code cannot run at all.

    The quick check already saw that a decision may be pending, and a traceback would exit 1,
    which every client treats as "run the tool anyway" (seen with Claude Code 2.1.332 while
    a half-changed install could not import its own code: a NotebookEdit went through).
    """
    print(
        f"decision-journal hook ({client}) could not load its code ({type(exc).__name__}: "
        f"{exc}) while an implementation decision may be pending, so this tool call is blocked. "
        "Tell the user: `decision-journal pending` lists it and `decision-journal doctor` "
        "checks the install.",
        file=sys.stderr,
    )
    return BLOCK


def _refresh_index(root: Path) -> None:
    """Rewrites the pending index; a failure only costs the next call the full path, and must
    not turn the answer already printed into a failed hook."""
    try:
        from core.capture.pending import PendingStore  # noqa: PLC0415

        PendingStore(root).refresh_index()
    except Exception as exc:  # noqa: BLE001  # the answer is out; the next call rebuilds the index
        print(f"decision-journal hook: pending index not refreshed ({exc})", file=sys.stderr)


def _stdin_text() -> str:
    """The event; bytes that are not UTF-8 are replaced, so the gate still reads the rest
    (a strict decode error would end the process with a code clients treat as "run it")."""
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:
        return sys.stdin.read(STDIN_MAX)
    return bytes(raw.read(STDIN_MAX)).decode("utf-8", "replace")


def _full(root: Path, client: str, event: str) -> int:
    """The full, fail-closed path: the journal's code decides (`app.hooks.pretool`)."""
    from app.hooks import (  # noqa: PLC0415
        claude_code,
        codex,
        copilot,
        cursor,
        gemini,
        opencode,
        qwen,
    )
    from app.hooks.pretool import main_stdio  # noqa: PLC0415
    from core.journal import Journal  # noqa: PLC0415

    modules = {"claude-code": claude_code, "codex": codex, "gemini": gemini}
    modules |= {"copilot": copilot, "cursor": cursor, "qwen": qwen, "opencode": opencode}
    module = modules[client]
    journal = Journal(root)
    return main_stdio(lambda _i, o, e: module.run(journal, io.StringIO(event), o, e))
