"""kernforge and json: records already in our own format, merged by their own IDs.

Why no ledger: these records carry their IDs, so the store's rule is the whole contract: the
same ID with the same content is unchanged, the same ID with different content is a conflict
and the journal's copy stays. Provenance is kept as written: these are our own records, whose
provenance was established where they were captured.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from core import limits
from core.errors import JournalError
from core.gocompat.gojson import loads_strict
from core.importers.base import ImportContext, Item, ItemError, RecordItem
from core.importers.source_file import SourceRefused, is_regular_file, read_source
from core.record.codec import decode_stored_record, pydantic_problem
from core.record.models import DecisionRecord
from core.store.decisions import derive_record_id


class KernforgeImporter:
    """Another journal directory (its `records/`), e.g. KernForge's or a second machine's."""

    kind = "kernforge"

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        records_dir = source / "records" if (source / "records").is_dir() else source
        files = sorted(
            p
            for p in records_dir.glob("*.json")
            if is_regular_file(p) and not p.name.startswith(".")
        )
        ctx.set_total(len(files))
        for path in files:
            yield _file_item(path)
            ctx.step()


def _file_item(path: Path) -> Item:
    try:
        data = read_source(path, limits.RECORD_FILE_MAX)
        record = decode_stored_record(data, what=path.name, expected_id=path.stem)
    except (JournalError, OSError, SourceRefused) as exc:
        return ItemError(
            str(path), f"record file {exc}" if isinstance(exc, SourceRefused) else str(exc)
        )
    return RecordItem(f"kernforge:{record.id}", record, record.created_at, canonical=True)


class JsonArrayImporter:
    """A JSON array of canonical records (an `export --private` from another journal)."""

    kind = "json"

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        try:
            values = loads_strict(
                read_source(source, limits.IMPORT_JSON_ARRAY_MAX), what=str(source)
            )
        except SourceRefused as exc:
            yield ItemError(str(source), f"{exc}; import the journal's folder instead")
            return
        except (JournalError, OSError) as exc:
            yield ItemError(str(source), str(exc))
            return
        if not isinstance(values, list):
            yield ItemError(str(source), "expected a JSON array of decision records")
            return
        ctx.set_total(len(values))
        for index, value in enumerate(values):
            yield _array_item(f"{source}[{index}]", value)
            ctx.step()


def _array_item(where: str, value: object) -> Item:
    try:
        record = DecisionRecord.model_validate(value)
    except ValidationError as exc:
        return ItemError(where, pydantic_problem(exc))
    if not record.id.strip():
        record.id = derive_record_id(record)
    return RecordItem(f"json:{record.id}", record, record.created_at, canonical=True)
