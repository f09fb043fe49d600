"""Fixtures shared by every test folder."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    """A private XDG_RUNTIME_DIR short enough for a Unix socket path (sun_path is 104 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="dj-"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)
