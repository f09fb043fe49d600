"""Who chose a record's selection: the person, or their preference profile for them.

Why in the record package: the summary, the exports, the journal window and capture all ask it,
and the answer lives in fields KernForge round-trips (`runtime` selection provenance and the tag
below), so no reader needs our own files to tell an automatic answer from the person's.
"""

from __future__ import annotations

from core.gocompat.text import equal_fold
from core.record.shape import RecordShape

AUTOMATIC_TAG = "decided-by-profile"
"""The tag of a record the profile answered, beside its `runtime` selection and rationale
provenance."""


def is_automatic(record: RecordShape) -> bool:
    """Whether the profile, not the person, chose this record's selection."""
    return equal_fold(record.provenance.selection, "runtime") and AUTOMATIC_TAG in record.tags
