"""The runbook ships with every package: the wheel, the frozen bundle and the .deb carry
`resources/runbook.md`, and the frozen command prints its entries from the installed file. The
opencode plugin that `setup opencode` installs ships beside it.

Why: every error names `decision-journal help runbook ENTRY` and the installed path; a user of
a package without the file would be sent to nothing.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT, project_version, run, source_copy, unexpected_stderr

pytestmark = pytest.mark.packaging

RUNBOOK = ROOT / "resources" / "runbook.md"
OPENCODE_PLUGIN = ROOT / "resources" / "opencode" / "decision-journal.js"


def test_the_wheel_carries_the_runbook(tmp_path: Path) -> None:
    source = source_copy(tmp_path / "src")
    out = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(out)],
        check=True,
        timeout=600,
    )
    [wheel] = out.glob(f"decision_journal-{project_version()}-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("resources/runbook.md") == RUNBOOK.read_bytes()
        plugin = archive.read("resources/opencode/decision-journal.js")
        assert plugin == OPENCODE_PLUGIN.read_bytes()


def test_the_frozen_bundle_prints_entries_from_its_own_runbook(
    bundle: Path, frozen: Path, frozen_env: dict[str, str], home: Path
) -> None:
    shipped = bundle / "_internal" / "resources" / "runbook.md"
    assert shipped.read_bytes() == RUNBOOK.read_bytes()
    plugin = bundle / "_internal" / "resources" / "opencode" / "decision-journal.js"
    assert plugin.read_bytes() == OPENCODE_PLUGIN.read_bytes()
    result = run(frozen, home / "journal", "help", "runbook", "disk-full", env=frozen_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("## disk-full\n")
    assert f"{shipped}#disk-full" in result.stdout
    assert unexpected_stderr(result.stderr) == []


def test_the_deb_installs_the_runbook_beside_the_app(bundle: Path, tmp_path: Path) -> None:
    deb = bundle.parent / f"decision-journal_{project_version()}_amd64.deb"  # dist/ in make
    assert deb.is_file(), f"{deb} missing: packaging/linux/build_deb.py did not run"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path)], check=True)
    installed = tmp_path / "opt" / "decision-journal" / "_internal" / "resources" / "runbook.md"
    assert installed.read_bytes() == RUNBOOK.read_bytes()
