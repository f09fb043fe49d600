"""Real, public ADRs from other tools, read by our MADR importer.

The files come from npm packages at test time, not from this repository: the MADR project's
own first decision in its 2.1.2, 3.0.0 and 4.0.0 templates (MIT OR CC0-1.0), and the two ADRs
log4brains 1.1.0 writes into a new project (Apache-2.0). Each is a real decision in its
tool's format: MADR 2 bullets and MADR 3/4 headings, reasons given as a bullet list after
"because", linked option names with a dash and a description.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.importers import make_importer
from core.importers.engine import run_import
from core.journal import Journal
from core.record.models import DecisionRecord
from tests.clients.support.npm_clients import LOG4BRAINS, install, package_dir

MADR_VERSIONS = ("2.1.2", "3.0.0", "4.0.0")
LOG4BRAINS_ADRS = (
    "use-log4brains-to-manage-the-adrs.md",
    "use-markdown-architectural-decision-records.md",
)


def _real_adrs(into: Path) -> list[str]:
    """Copies the real ADRs into `into` (one folder, as a project keeps them); their names."""
    into.mkdir(parents=True)
    names = []
    for version in MADR_VERSIONS:
        for source in sorted((package_dir("madr", version) / "template").glob("0000-*.md")):
            names.append(f"madr-{version}-{source.name}")
            shutil.copy(source, into / names[-1])
    node_modules = install(LOG4BRAINS).parents[1]  # <prefix>/node_modules/.bin/log4brains
    assets = node_modules / "@log4brains" / "init" / "assets"
    for name in LOG4BRAINS_ADRS:
        names.append(f"log4brains-{name}")
        shutil.copy(assets / name, into / names[-1])
    return names


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[DecisionRecord]]:
    base = tmp_path_factory.mktemp("real-adrs")
    names = _real_adrs(base / "project" / "docs" / "decisions")
    journal = Journal(base / "journal")
    report = run_import(journal, make_importer("madr"), base / "project" / "docs" / "decisions")
    assert report.written["records"] == len(names), report
    return names, journal.store.list()


def test_every_real_adr_becomes_a_decision_with_its_choice(
    imported: tuple[list[str], list[DecisionRecord]],
) -> None:
    names, records = imported
    assert len(names) >= 4
    for record in records:
        chosen = record.option_label(record.selected_option_id)
        assert chosen, record.problem
        assert "Use Markdown" in record.problem or "Log4brains" in record.problem
        labels = [option.label for option in record.options]
        assert 2 <= len(labels) <= 4 and len(set(labels)) == len(labels)
        assert "Alternatives not recorded in the source" not in labels


def test_reasons_listed_as_bullets_after_because_are_kept_without_their_markers(
    imported: tuple[list[str], list[DecisionRecord]],
) -> None:
    _, records = imported
    madr = [r for r in records if r.option_label(r.selected_option_id).startswith("MADR")]
    assert madr
    for record in madr:
        reason = record.selection_reason_raw
        assert reason.startswith("Implicit assumptions should be made explicit"), reason
        assert "; The MADR format is lean" in reason or "; MADR allows" in reason
        assert not any(marker in reason for marker in ("* ", "\n", "[", "]("))


def test_link_options_keep_their_names(
    imported: tuple[list[str], list[DecisionRecord]],
) -> None:
    _, records = imported
    tools = next(r for r in records if "Log4brains to manage" in r.problem)
    assert tools.option_label(tools.selected_option_id).startswith("Log4brains")
    assert (
        tools.selection_reason_raw
        == "it includes the features of all the other tools, and even more"
    )
    assert any(o.label.startswith("ADR Tools") for o in tools.options)
