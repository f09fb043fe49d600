"""A record without the importers' stand-in option, for the Markdown exports a person reads.

Why: an import whose source named only the chosen approach gets a stand-in second option,
"Alternatives not recorded in the source" (a record needs two). Listed in an exported ADR or
log it reads as an alternative someone considered and rejected "(not recorded in the source)".
The JSON and CSV exports keep it, since they carry the record as stored.
"""

from __future__ import annotations

from core.record.models import DecisionRecord, Option, RejectedReason
from core.record.summary import is_stand_in_label


def is_stand_in(option: Option) -> bool:
    """The importers' stand-in for alternatives the source did not record."""
    return is_stand_in_label(option.label)


def options_without_stand_in(record: DecisionRecord) -> list[Option]:
    """The record's options without the stand-in."""
    return [option for option in record.options if not is_stand_in(option)]


def rejections_without_stand_in(record: DecisionRecord) -> list[RejectedReason]:
    """The rejection reasons of the options the source really recorded."""
    stand_ins = {option.id for option in record.options if is_stand_in(option)}
    return [r for r in record.rejected_reasons if r.option_id not in stand_ins]
