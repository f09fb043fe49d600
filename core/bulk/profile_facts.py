"""The profile's per-record facts as msgspec Structs: built, sent and cached in C, unwalked.

Why here and not as named tuples in `core.profile.derive`: a cold rebuild makes two of these
per record, in a reading process, sends them over, and the facts cache keeps them for the
life of the process. A Struct without gc is never tracked by the cycle collector, so building
thousands of them while thousands of records are alive sets off no collections; a named tuple
is tracked, and its allocations set off collections that walk every live record
(`bench/profile_bench.py`, "facts + derivation of listed records"; bench/CHANGES.md). Encoded as
arrays (no field names): the facts file stores them as they are, and a named tuple of the same
fields would encode to the same bytes.
"""

from __future__ import annotations

import msgspec


class Evidence(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """What an eligible record contributes: its criterion, choice and contexts."""

    criterion: str
    signature: str
    label: str
    project_id: str
    domains: tuple[str, ...]


class RecordFacts(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """The little a rebuild needs from one record; small enough to cache for every record."""

    record_id: str
    updated_ns: int
    deleted: bool
    digest: str
    evidence: Evidence | None
