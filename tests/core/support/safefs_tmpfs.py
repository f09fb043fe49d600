"""A small real file system for disk-full and read-only tests: a tmpfs, mounted where the
tests run as root, else the test is skipped (the injected-errno tests still run)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

SIZE = "512k"


@contextlib.contextmanager
def mounted_tmpfs(parent: Path, size: str = SIZE) -> Iterator[Path]:
    """A fresh tmpfs of `size` under parent, unmounted afterwards; skips the test where mount
    fails."""
    mount_point = parent / f"tmpfs-{uuid.uuid4().hex[:8]}"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mount_point)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def resize(mount_point: Path, size: str) -> None:
    """Grows (or shrinks) a mounted tmpfs: room again after a disk-full test."""
    subprocess.run(["mount", "-o", f"remount,size={size}", str(mount_point)], check=True)


def fill(directory: Path) -> None:
    """Writes until the file system has no byte left (big blocks, then single bytes)."""
    fd = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for block in (65536, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * block)
    finally:
        os.close(fd)
