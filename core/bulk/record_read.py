"""The strict read of one record file in a bulk build, with the C-decoded path first.

Why apart from the store: a bulk build (the index, the profile's facts) also needs each
record's compact bytes and the file's stat, and most files can be decoded by msgspec in C
(`core.bulk.fast_read`) at a fraction of the pydantic read's cost. The store keeps only the
plain read; this module is the one place the fast path is chosen.
"""

from __future__ import annotations

from pathlib import Path

from core import limits
from core.bulk.compact_json import compact_bytes
from core.bulk.fast_read import fast_read
from core.record.shape import StoredRead
from core.store.decisions import decode_record_file
from core.store.safefs import read_regular_file_stat


def read_for_build(
    root: Path, path: Path | str, expected_id: str, *, parents_checked: bool = False
) -> StoredRead:
    """Faster variant of `core.store.decisions.read_record_file` for bulk builds, which also
    gives the record's compact bytes and the file's stat.

    Most files take the C path; any file it does not accept is decoded the strict way from the
    same bytes, so results and errors are those of `read_record_file`.
    """
    data, info = read_regular_file_stat(
        root, path, limits.RECORD_FILE_MAX, parents_checked=parents_checked
    )
    fast = fast_read(data, expected_id)
    if fast is not None:
        return StoredRead(fast.record, fast.compact, info)
    record = decode_record_file(Path(path), data, expected_id)
    return StoredRead(record, compact_bytes(record), info)
