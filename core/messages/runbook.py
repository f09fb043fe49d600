"""The runbook that ships with the app: where it is installed, its entries, and how messages
name them.

Why a shipped file and a command: an error that says "see docs/runbook.md" sends a user of the
.deb or the wheel to a file they do not have. Every package carries `resources/runbook.md`,
and `decision-journal help runbook ENTRY` prints one entry from it, so the reference in a
message works wherever the app is installed.
"""

from __future__ import annotations

import re
from pathlib import Path

import resources

RUNBOOK = "docs/runbook.md"
"""The runbook's place in the source tree, for machine-readable references (`data.runbook`)."""
RUNBOOK_FILE = "runbook.md"
HELP_COMMAND = "decision-journal help runbook"
_HEADING = re.compile(r"^## ([a-z0-9-]+)\s*$", re.MULTILINE)


class UnknownEntry(LookupError):
    """The runbook has no entry of that name."""


def installed_path() -> Path:
    """The runbook file of this installation (source tree, wheel or frozen bundle).

    Found beside the `resources` package rather than through `importlib.resources`, whose
    import alone would slow every hook call that names an entry.
    """
    return resources.RESOURCES_DIR / RUNBOOK_FILE


def reference(anchor: str) -> str:
    """A runbook entry as messages name it: the command that prints it, and the file."""
    return f"{HELP_COMMAND} {anchor}; {installed_path()}#{anchor}"


def see(anchor: str) -> str:
    """`reference` as the end of an error message: `see: decision-journal help runbook …`."""
    return f"see: {reference(anchor)}"


def entries(text: str | None = None) -> dict[str, str]:
    """Every entry of the runbook by anchor, each from its heading to the next one."""
    body = installed_path().read_text(encoding="utf-8") if text is None else text
    headings = list(_HEADING.finditer(body))
    out = {}
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        end = following.start() if following is not None else len(body)
        out[heading.group(1)] = body[heading.start() : end].rstrip() + "\n"
    return out


def entry(anchor: str) -> str:
    """One entry's text.

    Raises:
        UnknownEntry: no entry has that anchor; the message lists the ones that exist.
    """
    known = entries()
    if anchor not in known:
        raise UnknownEntry(
            f"the runbook has no entry {anchor!r}; entries: {', '.join(sorted(known))}"
        )
    return known[anchor]
