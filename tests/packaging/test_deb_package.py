"""The .deb and .tar.gz from `make package`: the files land where the brief says, and no more.

The package is unpacked into a scratch root with `dpkg -x` (nothing is installed on this
machine); its control data, desktop entry and maintainer scripts are checked as dpkg and the
desktop would read them.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT, project_version

pytestmark = pytest.mark.packaging

PNG_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
DIST = ROOT / "dist"


@pytest.fixture(scope="module")
def deb(bundle: Path) -> Path:
    del bundle  # only to skip or fail the same way when nothing was built
    path = DIST / f"decision-journal_{project_version()}_amd64.deb"
    assert path.is_file(), f"{path} missing: packaging/linux/build_deb.py did not run"
    return path


@pytest.fixture(scope="module")
def scratch(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("root")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    return root


def _field(deb: Path, name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_control_names_the_package_its_version_and_libraries(deb: Path) -> None:
    assert _field(deb, "Package") == "decision-journal"
    assert _field(deb, "Version") == project_version()
    assert _field(deb, "Architecture") == "amd64"
    depends = _field(deb, "Depends")
    for package in ("libc6 (>=", "libxcb-cursor0", "libxkbcommon-x11-0", "libfontconfig1"):
        assert package in depends
    assert int(_field(deb, "Installed-Size")) > 50_000


def test_files_land_under_opt_with_a_command_menu_entry_and_icons(scratch: Path) -> None:
    executable = scratch / "opt" / "decision-journal" / "decision-journal"
    assert executable.is_file()
    assert executable.stat().st_mode & 0o111
    link = scratch / "usr" / "bin" / "decision-journal"
    assert link.is_symlink()
    assert str(link.readlink()) == "/opt/decision-journal/decision-journal"
    icons = scratch / "usr" / "share" / "icons" / "hicolor"
    svg = icons / "scalable" / "apps" / "decision-journal.svg"
    assert svg.read_bytes() == (ROOT / "resources" / "icons" / "decision-journal.svg").read_bytes()
    for size in PNG_SIZES:
        png = (icons / f"{size}x{size}" / "apps" / "decision-journal.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", png[16:24]) == (size, size)
    assert (scratch / "usr" / "share" / "doc" / "decision-journal" / "copyright").is_file()


def test_nothing_starts_at_login_by_default(scratch: Path) -> None:
    assert not (scratch / "etc").exists(), "no /etc/xdg/autostart entry: the user opts in"
    owned = [p.relative_to(scratch).parts[:2] for p in scratch.rglob("*")]
    assert {parts[0] for parts in owned} == {"opt", "usr"}


def test_desktop_entry_is_valid_and_starts_the_tray_app(scratch: Path) -> None:
    if shutil.which("desktop-file-validate") is None:
        pytest.fail("desktop-file-validate missing: `make package` installs desktop-file-utils")
    entry = scratch / "usr" / "share" / "applications" / "decision-journal.desktop"
    result = subprocess.run(
        ["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    lines = entry.read_text(encoding="utf-8").splitlines()
    assert "Exec=decision-journal app" in lines
    assert "Icon=decision-journal" in lines
    assert "Terminal=false" in lines


def test_maintainer_scripts_refresh_caches_on_install_and_removal(
    deb: Path, tmp_path: Path
) -> None:
    control = tmp_path / "control"
    subprocess.run(["dpkg-deb", "-e", str(deb), str(control)], check=True)
    assert sorted(p.name for p in control.iterdir()) == ["control", "postinst", "postrm"]
    for name in ("postinst", "postrm"):
        script = control / name
        assert script.stat().st_mode & 0o111
        subprocess.run(["/bin/sh", "-n", str(script)], check=True)
        text = script.read_text(encoding="utf-8")
        assert "update-desktop-database" in text
        assert "gtk-update-icon-cache" in text
    # Removal runs with the package's files already gone and no tools guaranteed: it must pass.
    subprocess.run(
        ["/bin/sh", str(control / "postrm"), "remove"], check=True, env={"PATH": "/nonexistent"}
    )


def test_unpacked_executable_runs_from_its_new_place(scratch: Path) -> None:
    result = subprocess.run(
        [str(scratch / "opt" / "decision-journal" / "decision-journal"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout.strip()) == (
        0,
        f"decision-journal {project_version()}",
    )


def test_tarball_holds_the_bundle_in_one_folder(bundle: Path) -> None:
    tarball = DIST / f"decision-journal-{project_version()}-linux-x86_64.tar.gz"
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
    assert {name.split("/", 1)[0] for name in names} == {"decision-journal"}
    assert "decision-journal/decision-journal" in names
    assert len([n for n in names if not n.endswith("/")]) >= sum(
        1 for p in bundle.rglob("*") if not p.is_dir()
    )
