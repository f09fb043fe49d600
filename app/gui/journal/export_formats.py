"""The formats the export dialog offers, mapped onto `core.exporters`, and an export's outcome.

Why the names come from `core.exporters.naming`: an export from the window and one from
`decision-journal export` are named alike (`decision-journal-<format>[-private]-<UTC stamp>`)
and sort together. Every export is a new file (or folder for MADR) next to the previous ones:
if a name is taken (two exports in one second), "-2", "-3"… is added, so exporting never
silently replaces a file someone may already have shared or edited.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core import exporters
from core.exporters import Progress
from core.exporters.naming import export_name
from core.gocompat.gotime import GoTime
from core.messages.language import ENGLISH
from core.record.models import DecisionRecord

NAME_TRIES = 100


@dataclass(frozen=True, slots=True)
class ExportFormat:
    key: str
    title: str
    description: str
    exporter: str
    folder: bool = False
    private: bool = False

    def target_name(self, when: GoTime) -> str:
        return export_name(self.exporter, when, private=self.private)

    def free_name(self, directory: Path, when: GoTime) -> str:
        """The target name, or with "-2", "-3"… before the extension when it is taken."""
        name = self.target_name(when)
        suffix = "" if self.folder else Path(name).suffix
        stem = name[: len(name) - len(suffix)]
        for number in range(1, NAME_TRIES + 1):
            candidate = name if number == 1 else f"{stem}-{number}{suffix}"
            if not (directory / candidate).exists():
                return candidate
        raise FileExistsError(f"{directory / name} and {NAME_TRIES - 1} numbered copies exist")

    def run(
        self,
        records: Sequence[DecisionRecord],
        directory: Path,
        when: GoTime,
        progress: Progress,
        cancel: threading.Event,
        *,
        language: str = ENGLISH,
    ) -> Path:
        """Writes the export under `directory` (in a worker); returns what it wrote."""
        name = self.free_name(directory, when)
        if self.folder:
            target = directory / name
            exporters.export(
                self.exporter,
                records,
                target,
                include_private=self.private,
                progress=progress,
                cancel=cancel,
                language=language,
            )
            return target
        written = exporters.export(
            self.exporter,
            records,
            directory,
            include_private=self.private,
            file_name=name,
            progress=progress,
            cancel=cancel,
            language=language,
        )
        return written[0] if written else directory / name


FORMATS: tuple[ExportFormat, ...] = (
    ExportFormat(
        "json",
        "JSON, privacy-reduced (recommended)",
        "Canonical records without session IDs, workspace paths, aliases and evidence refs",
        "json",
    ),
    ExportFormat(
        "json-private",
        "JSON with private local metadata",
        "Canonical records including workspace paths, session IDs and evidence refs",
        "json",
        private=True,
    ),
    ExportFormat(
        "madr",
        "MADR folder (one Markdown file per decision)",
        "Architecture decision records in MADR 4.0 format plus an index",
        "madr",
        folder=True,
    ),
    ExportFormat(
        "markdown",
        "decisions.md (one table of all decisions)",
        "A single Markdown decision log",
        "markdown",
    ),
    ExportFormat(
        "csv",
        "CSV (spreadsheet)",
        "One row per decision; cells that look like formulas are defused",
        "csv",
    ),
)
