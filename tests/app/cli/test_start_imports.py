"""What each read-only command loads, seen from a fresh interpreter: a CLI start costs what it
imports (`bench/start_bench.py`), so each command loads only what it uses.

A journal of a few records with a current index: the first `list` builds the index (and loads
the reading processes for that), the runs checked here find it current.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from app.cli.main import COMMANDS
from bench.journal_gen import write_journal
from core.bulk.file_identity import RACY_NS
from tests.app.support.cli_imports import modules_loaded_by

EVERY_READ_FORBIDS = (
    "core.capture.machine", "core.capture.drafts", "core.profile",
    "core.sync", "core.doctor", "core.importers", "core.exporters", "core.agents",
    "core.outcomes", "multiprocessing", "concurrent.futures", "app.launch", "app.mcp",
    "app.hooks", "app.cli.ask_flow", "app.cli.terminal_ask", "app.cli.app_notice",
    "keyring",
)  # fmt: skip
"""Nothing a read-only command needs: capture, profile, sync, the other adapters."""
NO_MODELS = (
    "pydantic",
    "pydantic_core",
    "core.record.models",
    "core.record.codec",
    "core.record.redaction",
    "importlib.metadata",
)
"""The record models and what loads with them: a read is a plain view (the index's rows, the
pending index's entries); the models load when a record is written or checked."""
NO_PENDING_STORE = ("core.capture.pending", "core.capture.proposal", "core.store.decisions")
"""`status` and `pending` list from the pending index, which describes the pending files."""
NO_STORE = ("core.store.decisions", "core.record.identity", "core.store.history_files", "secrets")
"""A current index answers `list` and `show` without the store, whose module brings the write
path (new ids, history, locks): the index opens the store only to scan it without SQLite."""
NOT_GIVEN_JOURNAL = ("platformdirs", "logging")
"""The journal is given (`--journal`), so no per-user default is looked up; and the index's
warnings, which load `logging`, are for its failures only."""
NO_DIGESTS = ("hashlib",)
"""A read of a current index computes no digest (an entry's digest is made as it is written)."""
DECODES_NONE = ("core.bulk.record_view", "core.record.validation")
"""`list` prints the index's list columns and decodes no cached record (`show` does)."""
OWN_RUNTIME_DIR = () if sys.platform in ("darwin", "win32") else ("platformdirs",)
"""`status` names the app's socket; platformdirs gives its folder on macOS and Windows only."""
FORBIDS = {
    "list": (*NO_MODELS, *NO_STORE, *NOT_GIVEN_JOURNAL, *NO_DIGESTS, "core.ipc", "core.capture",
             "core.bulk.parallel_read", "portalocker", *DECODES_NONE),
    "show": (*NO_MODELS, *NO_STORE, *NOT_GIVEN_JOURNAL, *NO_DIGESTS, "core.ipc", "core.capture",
             "core.bulk.parallel_read", "portalocker"),
    "status": (*NO_MODELS, *NO_PENDING_STORE, *OWN_RUNTIME_DIR, "logging", "core.index",
               "sqlite3", "core.ipc.client"),
    "pending": (*NO_MODELS, *NO_PENDING_STORE, *NOT_GIVEN_JOURNAL, "core.index", "sqlite3",
                "core.ipc"),
}  # fmt: skip
"""With no app running (the socket's client loads only when there is a socket to probe)."""


def _loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules for p in packages if m == p or m.startswith(p + "."))


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("start") / "journal"
    write_journal(root, 5)
    time.sleep(RACY_NS / 1e9 + 0.1)  # files changed just before a scan are read again each time
    code, _ = modules_loaded_by(["--journal", str(root), "list"])  # builds the index
    assert code == 0
    return root, sorted(root.glob("records/*.json"))[0].stem


@pytest.mark.parametrize("command", list(FORBIDS))
def test_a_read_only_command_loads_only_what_it_reads(
    journal: tuple[Path, str], command: str
) -> None:
    root, record_id = journal
    argv = ["--journal", str(root), command, *([record_id] if command == "show" else [])]
    code, modules = modules_loaded_by(argv)
    assert code == 0
    loaded = _loaded(modules, EVERY_READ_FORBIDS + FORBIDS[command])
    assert not loaded, f"{command} loaded {loaded}"
    commands = sorted(m for m in modules if m.removeprefix("app.cli.") in COMMANDS)
    assert commands == [
        "app.cli.capture_cmds" if command in ("status", "pending") else "app.cli.journal_cmds"
    ]


def test_version_loads_nothing_of_the_app_but_the_entry_point() -> None:
    code, modules = modules_loaded_by(["--version"])
    assert code == 0
    ours = sorted(m for m in modules if m.split(".")[0] in ("app", "core"))
    assert ours == ["app", "app.cli", "app.cli.main", "core"]
