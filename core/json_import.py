"""Imports a JSON array of canonical records (e.g. a --private export from another machine)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import ValidationError

from core.codec import pydantic_problem
from core.errors import InvalidDecision, JournalDamaged, RevisionConflict
from core.gojson import loads_strict
from core.models import DecisionRecord
from core.store import DecisionStore, derive_record_id


@dataclass(slots=True)
class ImportReport:
    inserted: int = 0
    unchanged: int = 0
    conflicting: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)


def import_records(store: DecisionStore, data: bytes, *, source: str) -> ImportReport:
    """Each record goes through Put: same ID and content is unchanged, different is a conflict."""
    items = loads_strict(data, what=source)
    if not isinstance(items, list):
        raise JournalDamaged(f"{source}: expected a JSON array of decision records")
    report = ImportReport()
    for index, item in enumerate(items):
        where = f"{source}[{index}]"
        try:
            record = DecisionRecord.model_validate(item)
        except ValidationError as exc:
            report.invalid.append(f"{where}: {pydantic_problem(exc)}")
            continue
        if not record.id.strip():
            record.id = derive_record_id(record)
        try:
            existed = store.exists(record.id.strip())
            store.put(record)
        except RevisionConflict:
            report.conflicting.append(record.id)
            continue
        except InvalidDecision as exc:
            report.invalid.append(f"{where}: {exc}")
            continue
        if existed:
            report.unchanged += 1
        else:
            report.inserted += 1
    return report
