"""Turns the PyInstaller bundle in dist/ into a .deb and a .tar.gz for Linux x86-64.

The .deb installs the bundle under /opt/decision-journal, links /usr/bin/decision-journal to its
executable, and adds a menu entry and hicolor icons. It never installs an autostart entry: the
app writes ~/.config/autostart itself when the user turns "Start at login" on. Removing the
package leaves nothing of its own behind; user journals are never touched.

Depends is worked out from the bundle itself: every shared library a bundled binary links that
the bundle does not carry is looked up with `dpkg -S` on this (the build) machine, so the
package fits the Debian or Ubuntu release it was built on.

Usage: python packaging/linux/build_deb.py [--bundle dist/decision-journal] [--out dist]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))

import icons  # noqa: E402 - packaging/ is not a package; see sys.path above

PACKAGE = "decision-journal"
INSTALL_DIR = Path("/opt/decision-journal")
ARCH = "amd64"
MAINTAINER = os.environ.get(
    "DEB_MAINTAINER", "Decision Journal maintainers <maintainers@decision-journal.dev>"
)
# Plugins Qt loads only when their system libraries are present (a GTK theme, Wayland, input
# methods): their libraries are recommended, never required.
OPTIONAL_PLUGIN_DIRS = (
    "platformthemes",
    "platforminputcontexts",
    "wayland-decoration-client",
    "wayland-graphics-integration-client",
    "wayland-shell-integration",
)
OPTIONAL_PLUGINS = ("platforms/libqwayland",)
LIB_DIRS = ("/lib/", "/usr/lib/", "/lib64/", "/usr/lib64/")

DESKTOP_ENTRY = """\
[Desktop Entry]
Type=Application
Version=1.4
Name=Decision Journal
GenericName=Decision journal
Comment=Ask at implementation forks and keep a private journal of decisions
Exec=decision-journal app
TryExec=decision-journal
Icon=decision-journal
Terminal=false
Categories=Development;
Keywords=decision;journal;agent;MCP;
StartupNotify=false
"""

# Debian's desktop-file-utils and gtk-update-icon-cache also refresh these through dpkg
# triggers; the explicit calls cover systems whose packages do not. $DPKG_ROOT is empty for a
# normal install and the target root for `dpkg --root R --force-script-chrootless`, so an install
# into another root refreshes that root's caches, never this system's.
REFRESH = """\
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$DPKG_ROOT/usr/share/applications" || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 \\
        && [ -f "$DPKG_ROOT/usr/share/icons/hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t -f "$DPKG_ROOT/usr/share/icons/hicolor" || true
fi
"""
POSTINST = f"""\
#!/bin/sh
set -e
if [ "$1" = "configure" ]; then
{REFRESH}fi
exit 0
"""
POSTRM = f"""\
#!/bin/sh
set -e
case "$1" in
    remove|purge)
{REFRESH}        ;;
esac
exit 0
"""

COPYRIGHT = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: decision-journal

Files: *
License: MIT

Files: opt/decision-journal/_internal/PySide6/*
Comment: Qt for Python (PySide6, shiboken6) and the Qt 6 libraries, loaded as shared
 libraries that can be replaced; see https://www.qt.io/licensing/
License: LGPL-3.0-only

Files: opt/decision-journal/_internal/*
Comment: The Python runtime (PSF-2.0) and the Python packages listed in
 opt/decision-journal/_internal/*.dist-info, each under the licence stated there.
License: various
"""


def project_version() -> str:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(data["project"]["version"])


def debian_version(version: str) -> str:
    """PEP 440 pre-releases sort before the release in Debian only with a tilde (1.0~rc1)."""
    return re.sub(r"\.?(a|b|rc|dev)(\d*)", r"~\1\2", version)


def _elf_files(bundle: Path) -> list[Path]:
    found = []
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    found.append(path)
    return found


def _needed(path: Path) -> list[str]:
    out = subprocess.run(
        ["objdump", "-p", str(path)], capture_output=True, text=True, check=True
    ).stdout
    return [line.split()[1] for line in out.splitlines() if line.strip().startswith("NEEDED")]


def _glibc_floor(files: list[Path]) -> str:
    """The newest GLIBC_x.y symbol version any bundled binary asks for."""
    newest = (2, 17)
    for path in files:
        out = subprocess.run(
            ["objdump", "-T", str(path)], capture_output=True, text=True, check=False
        ).stdout
        for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", out):
            newest = max(newest, (int(major), int(minor)))
    return f"{newest[0]}.{newest[1]}"


def _packages_of(sonames: set[str]) -> tuple[dict[str, str], set[str]]:
    """soname -> Debian package that ships it in a library directory; and the unknown ones."""
    if not sonames:
        return {}, set()
    result = subprocess.run(
        ["dpkg-query", "-S", *(f"*/{name}" for name in sorted(sonames))],
        capture_output=True,
        text=True,
        check=False,
    )
    owners: dict[str, str] = {}
    for line in result.stdout.splitlines():
        packages, _, path = line.partition(": ")
        name = os.path.basename(path)
        if name not in sonames or not path.startswith(LIB_DIRS) or name in owners:
            continue
        package = packages.split(",")[0].strip().split(":")[0]
        if package.endswith("-dev"):
            continue
        owners[name] = package
    return owners, sonames - set(owners)


def _is_optional(bundle: Path, path: Path) -> bool:
    relative = path.relative_to(bundle).as_posix()
    if "/plugins/" not in relative:
        return False
    plugin = relative.split("/plugins/", 1)[1]
    return plugin.split("/", 1)[0] in OPTIONAL_PLUGIN_DIRS or plugin.startswith(OPTIONAL_PLUGINS)


def _is_library(bundle: Path, path: Path) -> bool:
    """A shared library others link (as opposed to the executable, a Python extension module
    or a Qt plugin, which something loads by path)."""
    relative = path.relative_to(bundle).as_posix()
    top_level = relative.count("/") == 1 and relative.startswith("_internal/lib")
    return top_level or relative.startswith("_internal/PySide6/Qt/lib/")


def _unbundled_needs(roots: list[Path], bundled: dict[str, Path]) -> dict[str, str]:
    """soname -> first binary that needs it, following NEEDED through bundled libraries."""
    needs: dict[str, str] = {}
    seen: set[Path] = set()
    todo = list(roots)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _needed(path):
            if name in bundled:
                todo.append(bundled[name])
            elif not name.startswith("ld-linux"):
                needs.setdefault(name, path.name)
    return needs


PROGRAM_DEPENDS = ("git",)
"""Programs the app runs rather than links: `decision-journal sync` drives the user's own git."""
PROGRAM_RECOMMENDS = ("libglib2.0-bin",)
"""`gdbus` sends desktop notifications; without it the tray balloon is used."""


def library_dependencies(bundle: Path) -> tuple[list[str], list[str], list[str]]:
    """(Depends, Recommends, notes) for the libraries the bundle links but does not carry.

    Libraries reached from the executable, the Python extension modules and the plugins Qt
    always needs are required; those reached only from optional plugins (GTK theme, Wayland,
    input methods) are recommended.

    Raises:
        SystemExit: a required library is neither bundled nor installed here, so the package
            could not name it.
    """
    files = _elf_files(bundle)
    bundled = {path.name: path.resolve() for path in bundle.rglob("*") if path.is_file()}
    roots = [path for path in files if not _is_library(bundle, path)]
    required = _unbundled_needs([p for p in roots if not _is_optional(bundle, p)], bundled)
    plugins = {
        plugin: set(_unbundled_needs([plugin], bundled)) - set(required)
        for plugin in roots
        if _is_optional(bundle, plugin)
    }
    owners, unknown = _packages_of(set(required).union(*plugins.values()))
    missing = sorted(name for name in unknown if name in required)
    if missing:
        details = ", ".join(f"{name} (linked by {required[name]})" for name in missing)
        raise SystemExit(
            f"build_deb: {details}: neither bundled nor installed here; install the Debian "
            "package that ships it (see Makefile PACKAGING_APT) and build again"
        )
    depends = {owners[name] for name in required}
    recommends: set[str] = set()
    notes = []
    for plugin, names in sorted(plugins.items()):
        absent = sorted(names & unknown)
        if absent:  # recommending half of what a plugin needs would not make it load
            notes.append(f"{plugin.name} needs {', '.join(absent)}, not installed here")
        else:
            recommends |= {owners[name] for name in names}
    depends.discard("libc6")
    floor = f"libc6 (>= {_glibc_floor(files)})"
    return [floor, *sorted(depends)], sorted(recommends - depends), notes


def _installed_size_kib(tree: Path) -> int:
    """As dpkg-gencontrol counts it: each regular file rounded up to whole KiB."""
    files = [p for p in tree.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum((p.stat().st_size + 1023) // 1024 for p in files if "DEBIAN" not in p.parts)


def stage(bundle: Path, staging: Path, version: str) -> list[str]:
    """Lays out the package tree in `staging`; returns notes for the build log."""
    if staging.exists():
        shutil.rmtree(staging)
    opt = staging / INSTALL_DIR.relative_to("/")
    shutil.copytree(bundle, opt, symlinks=True)
    usr_bin = staging / "usr" / "bin"
    usr_bin.mkdir(parents=True)
    (usr_bin / PACKAGE).symlink_to(INSTALL_DIR / PACKAGE)
    applications = staging / "usr" / "share" / "applications"
    applications.mkdir(parents=True)
    (applications / f"{PACKAGE}.desktop").write_text(DESKTOP_ENTRY, encoding="utf-8")
    icons.write_hicolor(icons.APP_SVG, staging / "usr" / "share" / "icons")
    doc = staging / "usr" / "share" / "doc" / PACKAGE
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(COPYRIGHT, encoding="utf-8")

    depends, recommends, notes = library_dependencies(bundle)
    depends = sorted({*depends, *PROGRAM_DEPENDS}, key=lambda name: (name != depends[0], name))
    recommends = sorted(set(recommends) | set(PROGRAM_RECOMMENDS))
    debian = staging / "DEBIAN"
    debian.mkdir()
    fields = {
        "Package": PACKAGE,
        "Version": debian_version(version),
        "Architecture": ARCH,
        "Maintainer": MAINTAINER,
        "Installed-Size": str(_installed_size_kib(staging)),
        "Depends": ", ".join(depends),
        "Recommends": ", ".join(recommends),
        "Section": "devel",
        "Priority": "optional",
        "Description": "ask at implementation forks; keep a private journal of decisions\n"
        " Decision Journal is a desktop tray app for people who work with coding agents.\n"
        " When an agent reaches a real fork it asks you in a native window: pick an\n"
        " approach, say why, and say why each alternative lost. Every answer becomes a\n"
        " revisioned JSON record in one private journal outside all repositories.",
    }
    control = "".join(f"{key}: {value}\n" for key, value in fields.items() if value)
    (debian / "control").write_text(control, encoding="utf-8")
    for name, text in (("postinst", POSTINST), ("postrm", POSTRM)):
        script = debian / name
        script.write_text(text, encoding="utf-8")
        script.chmod(0o755)
    for path in [staging, *staging.rglob("*")]:
        if not path.is_symlink():
            mode = path.stat().st_mode & 0o777
            path.chmod(mode & ~0o022)  # group/other never write into system directories
    return notes


def build_deb(staging: Path, out_dir: Path, version: str) -> Path:
    target = out_dir / f"{PACKAGE}_{debian_version(version)}_{ARCH}.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(staging), str(target)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return target


def build_tarball(bundle: Path, out_dir: Path, version: str) -> Path:
    """The bundle as `decision-journal/` in a .tar.gz, for unpacking anywhere."""
    target = out_dir / f"{PACKAGE}-{version}-linux-x86_64.tar.gz"
    subprocess.run(
        [
            "tar",
            "--owner=0",
            "--group=0",
            "--numeric-owner",
            "--sort=name",
            "-C",
            str(bundle.parent),
            "-czf",
            str(target),
            bundle.name,
        ],
        check=True,
    )
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / PACKAGE)
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument("--staging", type=Path, default=ROOT / "build" / "deb" / PACKAGE)
    args = parser.parse_args(argv)
    if not (args.bundle / PACKAGE).is_file():
        parser.error(f"{args.bundle / PACKAGE} does not exist: run pyinstaller first")
    version = project_version()
    for note in stage(args.bundle, args.staging, version):
        print(f"note: {note}")
    print(build_deb(args.staging, args.out, version))
    print(build_tarball(args.bundle, args.out, version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
