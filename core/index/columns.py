"""The `records` table's key columns as one named structure: what a row holds besides its file.

Why a structure: the index writes these values by position (one SQL insert per row) and
workers hand them over in bulk, but a hand-kept tuple ordered against a separate list of
column names breaks silently when either changes. The column list is built from these fields,
so an insert and a row can never disagree.
"""

from __future__ import annotations

import msgspec


class RecordKeys(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """One record's filter and sort keys and list-view fields, as the `records` columns.

    Keys (`*_key`) are computed with the expressions `core.record.filters.matches` applies, so
    a SQL equality on a key column decides what `matches` decides. A Struct without gc, sent
    as an array: a cold build makes one per record in a reading process.
    """

    id: str
    id_key: str
    upd_s: int
    """updated_at: Unix seconds, nanoseconds within the second, and its UTC offset."""
    upd_sub: int
    upd_offset: int
    deleted: int
    project_id: str
    project_key: str
    project_alias: str
    workspace_clean: bytes
    """The cleaned workspace path as UTF-8 (see `core.index.entry.workspace_keys`)."""
    workspace_prefix: bytes
    decision_kind: str
    kind_key: str
    risk_level: str
    risk_key: str
    status: str
    status_key: str
    problem: str
    selected_label: str
    revision: int


KEY_COLUMNS: tuple[str, ...] = RecordKeys.__struct_fields__
"""The names of `RecordKeys`' columns, in the order its values are written."""
