"""Fixtures of the real-client tests: each client installed once per session from npm."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.support.npm_clients import (
    CLAUDE_CODE,
    CODEX,
    COPILOT,
    GEMINI,
    OPENCODE,
    QWEN,
    install,
)


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
