"""Compact JSON with sorted keys, written in C: the bytes a sync manifest's MAC covers.

Faster variant of `core.sync.manifests.plain_canonical` (`json.dumps(value, ensure_ascii=False,
sort_keys=True, separators=(",", ":"))`, UTF-8) for values of strings, integers, booleans,
None, lists and dicts with string keys: what a manifest holds (a reader refuses a manifest
holding a float before it gets here). Why: a manifest lists every file of the journal, so each
sync that writes or checks one encodes a hundred thousand entries at 100,000 records, and the
bytes must be exactly those every other machine (and every older version) computes, or no MAC
would match. msgspec escapes the same characters the same way (quote, backslash, the control
characters, with the short forms for the five that have one), writes other text as UTF-8, and
refuses a lone surrogate as `str.encode` does. `tests/core/bulk/test_sorted_json.py` holds the
two equal on generated values.
"""

from __future__ import annotations

import msgspec

_ENCODER = msgspec.json.Encoder(order="sorted")


def sorted_json(value: object) -> bytes:
    """`value` as compact JSON with every dict's keys sorted, UTF-8.

    Raises:
        UnicodeEncodeError: a string holds a lone surrogate (as `str.encode` raises).
    """
    return _ENCODER.encode(value)
