"""Everything a journal keeps on disk, as a leak test must read it: each file's bytes, and each
record the journal index caches, unpacked (the index stores them LZ4-compressed, so a secret in
one would not show in the file's raw bytes)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.index.entry import unpack_json


def stored_bytes(root: Path) -> list[tuple[str, bytes]]:
    """(where, bytes) of every file under root, then of every cached record of every index."""
    files = [path for path in sorted(root.rglob("*")) if path.is_file()]
    places = [(str(path), path.read_bytes()) for path in files]
    for path in files:
        if path.name == "index.sqlite3":
            places += _cached_records(path)
    return places


def _cached_records(path: Path) -> list[tuple[str, bytes]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT rid, json FROM record_json").fetchall()
    return [(f"{path} cached record {rid}", unpack_json(blob)) for rid, blob in rows]
