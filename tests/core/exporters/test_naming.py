"""The shared export name: format, private marker, UTC stamp, extension, and refusal of others."""

from __future__ import annotations

import re

import pytest

from core.exporters import FORMATS
from core.exporters.naming import EXTENSIONS, export_name
from core.gocompat.gotime import GoTime

WHEN = GoTime.parse("2026-03-04T05:06:07.5+02:00")


@pytest.mark.parametrize(
    ("fmt", "private", "expected"),
    [
        ("json", False, "decision-journal-json-20260304-030607.json"),
        ("json", True, "decision-journal-json-private-20260304-030607.json"),
        ("markdown", False, "decision-journal-markdown-20260304-030607.md"),
        ("csv", False, "decision-journal-csv-20260304-030607.csv"),
        ("madr", False, "decision-journal-madr-20260304-030607"),
    ],
)
def test_name_per_format(fmt: str, private: bool, expected: str) -> None:
    assert export_name(fmt, WHEN, private=private) == expected


def test_every_export_format_has_a_name() -> None:
    assert set(EXTENSIONS) == set(FORMATS)


def test_now_by_default() -> None:
    assert re.fullmatch(r"decision-journal-csv-\d{8}-\d{6}\.csv", export_name("csv"))


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown export format 'pdf'"):
        export_name("pdf", WHEN)
