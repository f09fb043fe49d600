"""Fixtures of the real-client tests: each client installed once per session from npm, and the
app on a desktop for a module's `client_home` (the HOME its client was set up in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.support.agent_desktop import desktop_for
from tests.clients.support.npm_clients import (
    CLAUDE_CODE,
    CODEX,
    COPILOT,
    GEMINI,
    OPENCODE,
    QWEN,
    install,
)
from tests.integration.agent_support import Desktop


@pytest.fixture(scope="module")
def client_desktop(client_home: Path) -> Iterator[Desktop]:
    """Xvfb with a tray and the real app serving the default journal of the module's
    `client_home` fixture, for the tests in which a person answers at the window."""
    with desktop_for(client_home) as desk:
        yield desk


@pytest.fixture(scope="session")
def claude_executable() -> Path:
    """The pinned (or `DJ_CLAUDE_CODE_VERSION`) `claude`; skips where Node is missing."""
    return install(CLAUDE_CODE)


@pytest.fixture(scope="session")
def codex_executable() -> Path:
    """The pinned (or `DJ_CODEX_VERSION`) `codex`; skips where Node is missing."""
    return install(CODEX)


@pytest.fixture(scope="session")
def gemini_executable() -> Path:
    """The pinned (or `DJ_GEMINI_VERSION`) `gemini`; skips where Node is missing."""
    return install(GEMINI)


@pytest.fixture(scope="session")
def copilot_executable() -> Path:
    """The pinned (or `DJ_COPILOT_VERSION`) `copilot`; skips where Node is missing."""
    return install(COPILOT)


@pytest.fixture(scope="session")
def qwen_executable() -> Path:
    """The pinned (or `DJ_QWEN_VERSION`) `qwen`; skips where Node is missing."""
    return install(QWEN)


@pytest.fixture(scope="session")
def opencode_executable() -> Path:
    """The pinned (or `DJ_OPENCODE_VERSION`) `opencode`; skips where Node is missing."""
    return install(OPENCODE)
