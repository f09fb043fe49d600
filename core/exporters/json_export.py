"""The JSON array export, privacy-reduced unless asked, byte-identical to KernForge's export.

`export_records` is the array KernForge's `export` writes; `render_json` reuses it chunk by
chunk (each chunk's array body is exactly what the whole array would hold at that place), so
progress and cancellation come for free.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from core.bulk.indented_json import indented_array
from core.bulk.listing import list_records
from core.exporters.staging import Progress, Staging, write_single
from core.gocompat.gojson import dumps_indented_bytes
from core.record.filters import ListFilter
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore

_CHUNK = 200

PRIVATE_FIELDS = (
    "session_id",
    "feature_id",
    "goal_id",
    "edit_loop_id",
    "workspace",
    "project_alias",
    "evidence_refs",
)
"""Fields a privacy-reduced export leaves out: who asked, where, and what they pointed at."""


def export_records(records: list[DecisionRecord], *, include_private: bool) -> bytes:
    """The records as one indented JSON array, without `PRIVATE_FIELDS` unless asked."""
    items = []
    for record in records:
        item = record.to_go_dict()
        if not include_private:
            for name in PRIVATE_FIELDS:
                item.pop(name, None)
        items.append(item)
    return dumps_indented_bytes(items)


def export_journal(
    store: DecisionStore, flt: ListFilter | None = None, *, include_private: bool = False
) -> bytes:
    """The journal's current records as KernForge's export writes them; fails closed when any
    record is unreadable."""
    return export_records(list_records(store, flt), include_private=include_private)


def render_json(records: Iterable[DecisionRecord], *, include_private: bool = False) -> bytes:
    bodies: list[bytes] = []
    chunk: list[DecisionRecord] = []
    for record in records:
        chunk.append(record)
        if len(chunk) == _CHUNK:
            bodies.append(_body(chunk, include_private))
            chunk = []
    if chunk:
        bodies.append(_body(chunk, include_private))
    if not bodies:
        return export_records([], include_private=include_private)
    return b"[\n" + b",\n".join(bodies) + b"\n]\n"


def _body(chunk: list[DecisionRecord], include_private: bool) -> bytes:
    """The array's elements without the brackets: `[\\n` + body + `\\n]\\n`."""
    return export_records(chunk, include_private=include_private)[2:-3]


def json_pieces(compacts: Iterable[bytes], *, include_private: bool = False) -> Iterator[bytes]:
    """`render_json` of the records whose compact JSON (as the index holds it) `compacts` are,
    in pieces to write one after another (`core.bulk.indented_json`, in C)."""
    return indented_array(compacts, () if include_private else PRIVATE_FIELDS)


def write_json_pieces(pieces: Iterable[bytes], directory: Path, file_name: str) -> Path:
    """`export_json`'s file, written atomically from `json_pieces` as they come."""
    with Staging(directory) as stage:
        stage.write(file_name, pieces)
        return stage.commit()[0]


def export_json(
    records: Iterable[DecisionRecord],
    directory: Path,
    *,
    include_private: bool = False,
    file_name: str = "decisions.json",
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> list[Path]:
    def render(items: Iterable[DecisionRecord]) -> bytes:
        return render_json(items, include_private=include_private)

    return [write_single(directory, file_name, render, records, progress=progress, cancel=cancel)]
