"""Our MADR export read by a real consumer: log4brains 1.1.0 from npm builds its static site.

log4brains reads status, date, deciders and tags from the MADR 2 bullets under the title and
renders everything else as the ADR's body; Backstage and python-frontmatter read the MADR 4
front matter. The export carries both, and this test reads what log4brains itself made of it
(the page data its build writes for each ADR).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from core.exporters import export
from core.gocompat.gotime import GoTime
from core.record.models import DecisionRecord
from tests.clients.support.npm_clients import LOG4BRAINS, install
from tests.factories import make_record

DAY_NS = 86_400 * 1_000_000_000
BUILD_TIMEOUT = 300


def _records() -> list[DecisionRecord]:
    first = make_record(
        id="decision-l4b-1",
        created_at=GoTime(1_760_000_000 * 10**9),
        updated_at=GoTime(1_760_000_000 * 10**9 + 2 * DAY_NS),
        tags=["storage", "reviewed"],
    )
    withdrawn = make_record(
        id="decision-l4b-2",
        problem="Pick the cache eviction policy for thumbnails",
        created_at=GoTime(1_760_500_000 * 10**9),
        updated_at=GoTime(1_760_500_000 * 10**9),
    )
    withdrawn.status = "deleted"
    withdrawn.deleted_at = withdrawn.updated_at
    return [first, withdrawn]


def _git(project: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")  # fmt: skip
    subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)


def _build_site(tmp_path: Path, records: list[DecisionRecord]) -> dict[str, dict[str, Any]]:
    """Exports into a git project (log4brains reads dates from git), builds the site and
    returns each of this project's ADR page data by slug.

    log4brains builds inside its own installed package, whose page folder also holds the pages
    of every earlier build (and of its own ADRs), so pages are kept by their source file.
    """
    executable = install(LOG4BRAINS)
    project = tmp_path / "project"
    export("madr", records, project / "docs" / "adr")
    (project / "docs" / "adr" / "index.md").unlink()  # log4brains makes its own index
    (project / ".log4brains.yml").write_text(
        "---\nproject:\n  name: Exported decisions\n  tz: Etc/UTC\n  adrFolder: ./docs/adr\n"
    )
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "export")
    site = tmp_path / "site"
    result = subprocess.run(
        [str(executable), "build", "--out", str(site)],
        cwd=project,
        env=dict(os.environ, NEXT_TELEMETRY_DISABLED="1", CI="true"),
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    pages = {}
    for page in site.glob("_next/data/*/adr/*.json"):
        adr = json.loads(page.read_text("utf-8"))["pageProps"]["currentAdr"]
        if Path(adr["file"]["absolutePath"]).is_relative_to(project):
            pages[adr["slug"]] = adr
    return pages


@pytest.mark.timeout(BUILD_TIMEOUT + 120)
def test_log4brains_reads_status_date_deciders_and_tags(tmp_path: Path) -> None:
    pages = _build_site(tmp_path, _records())
    assert len(pages) == 2, sorted(pages)
    kept, withdrawn = (pages[slug] for slug in sorted(pages))
    assert kept["title"] == "Choose the canonical cross-project decision storage layout"
    assert kept["status"] == "accepted"
    assert kept["publicationDate"].startswith("2025-10-11")
    assert kept["deciders"] == ["user"]
    assert kept["tags"] == ["storage", "reviewed"]
    assert withdrawn["status"] == "deprecated"
    for adr in (kept, withdrawn):
        body = adr["body"]["enhancedMdx"]
        assert "## Context and Problem Statement" in body
        assert "* Status:" not in body, "log4brains shows its metadata itself"
        assert "Chosen option:" in body
