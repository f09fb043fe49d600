"""Control characters in text from outside: refused in an agent's proposal, shown as escapes
wherever stored text reaches a person.

Why: a C0 or C1 control makes a terminal act instead of print (ESC starts OSC 52, which writes
the clipboard, OSC 0, which retitles the window, and CSI, which moves the cursor over what was
printed), and a bidi embedding, override or isolate (U+202A to U+202E, U+2066 to U+2069) makes
text read differently from what is stored: a label stored as U+202E and "etadpu ton od"
shows as "do not update". What a person sees must be what is stored. Line breaks and tabs are
text, where a field may hold more than one line. Records written before this rule, or arriving
by sync or import, may still hold such characters: every place that shows stored text shows
them escaped.
"""

from __future__ import annotations

import re

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
"""Every control but tab and line feed: C0 (with carriage return), DEL, C1, and the bidi
embeddings, overrides and isolates."""
_IN_TEXT = re.compile(f"[{_CONTROLS}]")
_IN_LINE = re.compile(f"[\t\n{_CONTROLS}]")


def control_problem(text: str, *, multiline: bool) -> str | None:
    """What is wrong with `text` if it holds a control character, naming the first one and
    where it is; None when it holds none. `multiline` fields may hold line breaks and tabs."""
    found = (_IN_TEXT if multiline else _IN_LINE).search(text)
    if found is None:
        return None
    allowed = " (line breaks and tabs are allowed)" if multiline else ""
    return (
        f"must not contain control characters{allowed}: U+{ord(found.group()):04X} at "
        f"character {found.start() + 1}"
    )


def _escaped(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def visible_controls(text: str) -> str:
    """`text` with each control character but line feed and tab written as its escape
    (`\\u001b`, `\\u202e`), so it shows what is stored and no terminal or layout obeys it.

    The escape is JSON's, so JSON text passed through stays valid and means the same.
    """
    if _IN_TEXT.search(text) is None:
        return text
    return _IN_TEXT.sub(_escaped, text)
