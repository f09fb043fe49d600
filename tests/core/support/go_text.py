"""Text for the tests of Go's string rules: every kind of Go space, NUL (the separator of the
list-at-once tests), control characters Go does not trim, case and non-ASCII letters."""

from __future__ import annotations

from hypothesis import strategies as st

from core.gocompat.text import GO_SPACE

_PIECES = st.sampled_from(
    [*GO_SPACE, "\x00", "\x1c", "\x1f", "a", "B", "z9", "İ", "ß", "Σ", "é", "-", "_", "  "]
)
ITEM = st.lists(_PIECES | st.text(max_size=3), max_size=6).map("".join)
"""One text built from those pieces."""
ITEMS = st.lists(ITEM, max_size=6)
"""A list of such texts."""
