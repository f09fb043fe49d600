"""The .deb and .tar.gz from `make package`: the files land where the brief says, and no more.

The package is unpacked into a scratch root with `dpkg -x`, and installed by dpkg itself into
another scratch root (`dpkg --root`; nothing is installed on this machine); its control data,
desktop entry and maintainer scripts are checked as dpkg and the desktop would read them, and
the installed command runs.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT, project_version, run

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


def _dpkg(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """dpkg on the scratch root; maintainer scripts run here with DPKG_ROOT set (chrootless),
    since the root holds no shell or tools of its own."""
    return subprocess.run(
        ["dpkg", f"--root={root}", "--force-script-chrootless", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def installed(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root where dpkg installed the package, its database a copy of this machine's: dpkg
    checks Depends against the packages installed here (no --force-depends) and runs postinst."""
    root = tmp_path_factory.mktemp("installed")
    database = root / "var" / "lib" / "dpkg"
    (database / "updates").mkdir(parents=True)
    (database / "info").mkdir()
    shutil.copy2("/var/lib/dpkg/status", database / "status")
    for listing in Path("/var/lib/dpkg/info").glob("*.list"):
        shutil.copy2(listing, database / "info" / listing.name)
    result = _dpkg(root, "-i", str(deb))
    assert (result.returncode, result.stderr) == (0, ""), result.stdout + result.stderr
    return root


def test_dpkg_installs_it_with_its_dependencies_met_and_runs_postinst(installed: Path) -> None:
    status = _dpkg(installed, "-s", "decision-journal")
    assert "Status: install ok installed" in status.stdout, status.stdout + status.stderr
    # postinst refreshed the desktop database of the root it installed into.
    assert (installed / "usr" / "share" / "applications" / "mimeinfo.cache").is_file()


def test_the_installed_command_runs(installed: Path, tmp_path: Path) -> None:
    link = installed / "usr" / "bin" / "decision-journal"
    command = installed / link.readlink().relative_to("/")  # the link names /opt in its root
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    version = run(command, tmp_path / "journal", "--version", env=env)
    assert (version.returncode, version.stdout.strip()) == (
        0,
        f"decision-journal {project_version()}",
    )
    doctor = run(command, tmp_path / "journal", "doctor", "--json", env=env)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert json.loads(doctor.stdout)["findings"] == []


def test_dpkg_removes_it_and_leaves_the_root_clean(installed: Path) -> None:
    removed = _dpkg(installed, "--purge", "decision-journal")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not (installed / "opt" / "decision-journal").exists()
    assert not (installed / "usr" / "bin" / "decision-journal").exists()
    assert _dpkg(installed, "-s", "decision-journal").returncode == 1  # dpkg knows it no more


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
