"""The repository's own files, as the checks of tests/repo read them.

Walked from the folder (never `git ls-files`), so the checks pass the same in a git checkout, an
unpacked source archive and CI. What is not the project's own text is left out: virtualenvs,
caches, build output, node_modules, and `tests/data` (files copied from other projects, held
byte for byte as those projects wrote them).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "build", "dist"})
SKIPPED_PATHS = frozenset({"tests/data"})
TEXT_SUFFIXES = frozenset(
    {".py", ".md", ".toml", ".ini", ".cfg", ".txt", ".yml", ".yaml", ".json", ".js", ".sh"}
    | {".desktop", ".in", ".qss", ".spec", ".rst"}
)
TEXT_NAMES = frozenset({"Makefile"})


def relative(path: Path) -> str:
    """path relative to the repository root, '/'-separated."""
    return path.relative_to(ROOT).as_posix()


def text_files() -> Iterator[Path]:
    """Every text file of the project's own: code, docs, benches, tests, configuration."""
    for dirpath, dirnames, filenames in os.walk(ROOT):
        here = Path(dirpath)
        dirnames[:] = sorted(
            name
            for name in dirnames
            if not name.startswith(".")
            and name not in SKIPPED_DIRS
            and not name.endswith(".egg-info")
            and relative(here / name) not in SKIPPED_PATHS
        )
        for name in sorted(filenames):
            path = here / name
            if path.suffix in TEXT_SUFFIXES or name in TEXT_NAMES or name.startswith("."):
                yield path


def python_modules(package: str) -> list[Path]:
    """Every module of a top-level package (`core`, `app`), `__init__.py` files left out."""
    return sorted(
        path
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    )


def dotted(path: Path) -> str:
    """`core/record/models.py` → `core.record.models`."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)
