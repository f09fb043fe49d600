"""The shared export name: format, private marker, UTC stamp, extension, and refusal of others."""

from __future__ import annotations

import re

import pytest

from bench.redaction_scoring import leaked
from core.exporters import FORMATS, madr
from core.exporters.naming import EXTENSIONS, export_name
from core.gocompat.gotime import GoTime
from tests.factories import make_record

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


def test_a_madr_file_name_never_carries_a_secret_even_one_the_redactor_missed() -> None:
    """A file name is derived from the problem's first words: from redacted text, and without
    any word that looks generated, so a key with no recognisable context stays out too."""
    missed = "gpy8r3qgX72Q8qDdbKtbmyeON1x31tsn4frdZroO"
    caught = "ghp_q7Lm2Xp9Rt4Vw8Zs1Kd5Fg3Jb6Nc0Hy2Ae8Tu"
    record = make_record(problem=f"Try {missed} or {caught} against the sandbox API v2")
    name = madr.file_name(7, record)
    assert name == "0007-try-or-against-the-sandbox-api-v2.md"
    for secret in (missed, caught):
        assert not leaked(secret, record.problem, name)
