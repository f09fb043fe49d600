"""The JSON array export, privacy-reduced unless asked, byte-identical to `DecisionStore.export`.

It reuses `core.store.decisions.export_records` chunk by chunk: each chunk's array body is exactly
what
the whole array would hold at that place, so progress and cancellation come for free.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from core.exporters.staging import Progress, write_single
from core.record.models import DecisionRecord
from core.store.decisions import export_records

_CHUNK = 200


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
