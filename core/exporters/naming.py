"""One export naming scheme for the CLI and the GUI: `decision-journal-<format>-<stamp>.<ext>`.

Why one builder: an export made from the window and one made with `decision-journal export`
should sort together in a downloads folder and say what they hold, whichever made them. The
stamp is UTC (`YYYYmmdd-HHMMSS`), so names sort by time and never depend on the zone of the
machine that wrote them. A MADR export is a folder and has no extension.
"""

from __future__ import annotations

from core.gocompat.gotime import GoTime

PREFIX = "decision-journal"
EXTENSIONS = {"json": ".json", "markdown": ".md", "csv": ".csv", "madr": ""}
"""Each export format's file extension; MADR writes a folder."""


def export_name(fmt: str, when: GoTime | None = None, *, private: bool = False) -> str:
    """The default file (or folder, for MADR) name of an export.

    Args:
        fmt: an export format, one of `EXTENSIONS`.
        when: the export's time; now when omitted.
        private: the export keeps private local metadata; the name says so
            (`decision-journal-json-private-…`), so it is not shared by mistake.

    Raises:
        ValueError: fmt is no export format.
    """
    if fmt not in EXTENSIONS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(EXTENSIONS)}")
    label = f"{fmt}-private" if private else fmt
    stamp = (when or GoTime.now()).compact_stamp()
    return f"{PREFIX}-{label}-{stamp}{EXTENSIONS[fmt]}"
