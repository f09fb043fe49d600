"""Go's indented JSON array of records, written in C from each record's compact Go JSON.

Faster variant of `core.exporters.json_export.export_records` (the whole-journal JSON export and
`list --json`) for records whose compact JSON is at hand, as the index holds it for every record.
Why: the export's own encoder builds each record's model, walks its values in Python and sends
any record with an integral or tiny float (an imported `detector_confidence: 1`) to the pure
Python Go encoder. Here nothing is decoded below the top level: the compact bytes are Go's own
text (`core.record.codec.compact_record`), so every number and escape is already written as Go
writes it. The fields a privacy-reduced export leaves out are dropped from the top level, whose
values stay raw bytes, and msgspec indents the text as Go's `MarshalIndent` does, copying every
token as it is. `tests/core/bulk/test_indented_json.py` holds the bytes equal to the plain export.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

import msgspec

_FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ENCODER = msgspec.json.Encoder()
_INDENT = 2


def indented_element(compact: bytes, leave_out: Collection[str] = ()) -> bytes:
    """One record as an element of the indented array (its lines indented one level), without
    the top-level fields in `leave_out`."""
    if leave_out:
        fields = _FIELDS.decode(compact)
        for name in leave_out:
            fields.pop(name, None)
        compact = _ENCODER.encode(fields)
    return msgspec.json.format(compact, indent=_INDENT).replace(b"\n", b"\n  ")


def indented_array(compacts: Iterable[bytes], leave_out: Collection[str] = ()) -> Iterator[bytes]:
    """The indented array of the records, in pieces to write one after another (a newline
    ends it, as the export's file does): `[]` when there are none."""
    first = True
    for compact in compacts:
        yield (b"[\n  " if first else b",\n  ") + indented_element(compact, leave_out)
        first = False
    yield b"[]\n" if first else b"\n]\n"
