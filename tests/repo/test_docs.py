"""The docs check themselves, as sqlite-utils checks its docs: `docs/architecture.md` names
every module of `core` and `app` in its package's row, and every backticked dotted name
(`core.store.decisions.CommitListener`) or repository path (`core/record/validation.py`) in a
doc or a docstring still resolves. That the README lists every CLI command and subcommand with
its options is checked beside the command line, in tests/app/cli/test_readme_commands.py.

Modules are added and moved often; each failure says which line to write, and where.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.repo.tree import ROOT, dotted, python_modules, relative

ARCHITECTURE = ROOT / "docs" / "architecture.md"
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
DOCSTRING_TREES = ("core", "app", "tests", "bench", "packaging")
TABLES = {"core": "## Packages of `core/`", "app": "## Packages of `app/`"}
"""The table of each top-level package's packages, by the heading above it."""

SPAN = re.compile(r"`([^`\n]+)`")
DOTTED_NAME = re.compile(r"(?:core|app)(?:\.[A-Za-z_]\w*)+")
REPO_PATH = re.compile(r"(?:core|app|tests|bench|packaging|resources|docs)/[\w./-]*")


@dataclass(frozen=True)
class Row:
    """One row of a package table: the package it is for and the backticked names it gives."""

    table: str
    package: str
    names: frozenset[str]


def _rows() -> list[Row]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    rows: list[Row] = []
    for top, heading in TABLES.items():
        assert heading in text, f"docs/architecture.md has lost its heading {heading!r}"
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        for line in section.splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) < 2 or not line.startswith("|") or set(cells[0]) <= {"-", " "}:
                continue
            first = SPAN.findall(cells[0])
            if cells[0] == "Root modules" or (first and first[0].endswith(".py")):
                package = top  # the root modules' row, and a facade module's own row
            elif first and first[0].startswith(f"{top}/"):
                package = first[0].rstrip("/")
            else:
                continue  # the header row
            names = {*SPAN.findall(cells[1]), *(f[:-3] for f in first if f.endswith(".py"))}
            rows.append(Row(heading, package, frozenset(names)))
    return rows


def _names(span: str) -> set[str]:
    """The module names a backticked span in a row can stand for: `entry.IndexEntry` names
    `entry`, `sources/madr` and `errors.py` name `madr` and `errors`."""
    last = span.rstrip("/").rsplit("/", 1)[-1].removesuffix(".py")
    return {last, last.split(".", 1)[0], span.split(".", 1)[0]}


def _undocumented(rows: list[Row], module: Path) -> str | None:
    """Why `module` is not in docs/architecture.md, as the line to write; None when it is."""
    path = relative(module)
    top, *folders = path.split("/")[:-1]
    table = TABLES[top]
    if folders:  # a module of a package is named in the row of the package or a parent of it
        packages = ["/".join([top, *folders[:size]]) for size in range(len(folders), 0, -1)]
        mine = [row for package in packages for row in rows if row.package == package]
        package = next((p for p in packages if any(row.package == p for row in rows)), "")
        if not mine:
            return f"{path}: add a row for `{top}/{folders[0]}` to the table under {table!r}"
    else:
        package, mine = top, [row for row in rows if row.package == top]
    stem = module.stem
    if any(stem in _names(name) for row in mine for name in row.names):
        return None
    where = "the 'Root modules' row" if package == top else f"the `{package}` row"
    return (
        f"{path}: name `{stem}` in {where} of the table under {table!r}, "
        f"with what it owns: `{stem}` (…)"
    )


def test_architecture_names_every_module_in_its_packages_row() -> None:
    rows = _rows()
    missing = [
        reason
        for top in TABLES
        for module in python_modules(top)
        if (reason := _undocumented(rows, module)) is not None
    ]
    assert missing == [], "docs/architecture.md does not name these modules:\n  " + "\n  ".join(
        missing
    )


def test_a_module_missing_from_its_row_is_reported_with_the_line_to_write() -> None:
    rows = [Row(TABLES["core"], "core/sync", frozenset({"engine", "gitrepo"}))]
    engine, new = ROOT / "core/sync/engine.py", ROOT / "core/sync/new_part.py"
    assert _undocumented(rows, engine) is None
    assert _undocumented(rows, new) == (
        "core/sync/new_part.py: name `new_part` in the `core/sync` row of the table under "
        "'## Packages of `core/`', with what it owns: `new_part` (…)"
    )
    assert _undocumented(rows, ROOT / "core/fresh/thing.py") == (
        "core/fresh/thing.py: add a row for `core/fresh` to the table under "
        "'## Packages of `core/`'"
    )


def _docstrings(path: Path) -> list[tuple[int, str]]:
    """Each docstring of a Python file (module, classes, functions) with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                found.append((node.body[0].lineno, doc))
    return found


def _spans() -> list[tuple[str, str]]:
    """(where, backticked text) in every doc and every docstring of the project."""
    found = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            found += [(f"{relative(doc)}:{number}", span) for span in SPAN.findall(line)]
    for tree in DOCSTRING_TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            for number, doc in _docstrings(path):
                found += [(f"{relative(path)}:{number}", span) for span in SPAN.findall(doc)]
    return found


def _has_attribute(owner: object, name: str) -> bool:
    """Whether `owner.name` exists: as an attribute, a declared field (dataclass, pydantic,
    NamedTuple, annotated), or an attribute its class sets on `self`."""
    if hasattr(owner, name):
        return True
    fields = {
        *getattr(owner, "__annotations__", {}),
        *getattr(owner, "model_fields", {}),
        *getattr(owner, "__dataclass_fields__", {}),
    }
    if name in fields:
        return True
    if inspect.isclass(owner):
        try:
            source = inspect.getsource(owner)
        except (OSError, TypeError):
            return False
        return re.search(rf"\bself\.{re.escape(name)}\s*[:=]", source) is not None
    return False


def _resolves(name: str) -> bool:
    """Whether a dotted name is a module, or an attribute chain on the longest module prefix."""
    parts = name.split(".")
    for size in range(len(parts), 0, -1):
        try:
            owner: object = importlib.import_module(".".join(parts[:size]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[size:]:
            if not _has_attribute(owner, attribute):
                return False
            owner = getattr(owner, attribute, None)
        return True
    return False


SPANS = _spans()


def _ours(name: str) -> bool:
    """Whether a dotted name is one of ours: `core.record.models`, not git's `core.sshCommand`
    or the wire's `app.show` (the part after `core.` or `app.` is one of its packages or
    modules)."""
    top, child = name.split(".")[:2]
    return (ROOT / top / child).is_dir() or (ROOT / top / f"{child}.py").is_file()


def test_every_dotted_name_in_docs_and_docstrings_resolves() -> None:
    names = [(where, span.removesuffix("()")) for where, span in SPANS]
    broken = [
        f"{where}: `{name}`"
        for where, name in names
        if DOTTED_NAME.fullmatch(name) and _ours(name) and not _resolves(name)
    ]
    assert broken == [], (
        "dotted names that no longer import (a module or attribute was renamed or moved); "
        "write the new name:\n  " + "\n  ".join(broken)
    )


def _exists(span: str) -> bool:
    """Whether a backticked path is a file or folder of the repository (`app/launch` names
    the module `app/launch.py`; `tests/core/bulk/` a folder)."""
    path = ROOT / span.rstrip("/")
    if path.exists() or path.with_name(path.name + ".py").exists():
        return True
    module, _, attribute = path.name.partition(".")  # `tests/integration/cli_runner.run_cli`
    source = path.with_name(module + ".py")
    return bool(attribute) and source.is_file() and attribute in source.read_text("utf-8")


def test_every_repository_path_in_docs_and_docstrings_exists() -> None:
    broken = [
        f"{where}: `{span}`"
        for where, span in SPANS
        if REPO_PATH.fullmatch(span) and not _exists(span)
    ]
    assert broken == [], (
        "paths that no longer exist (a file was renamed or moved); write the new path:\n  "
        + "\n  ".join(broken)
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("core.store.decisions.CommitListener", True),
        ("core.record.models.DecisionRecord.problem", True),  # a pydantic field
        ("core.profile.profile_store", False),
        ("core.store.decisions.NoSuchThing", False),
    ],
)
def test_dotted_names_resolve_through_modules_and_attributes(name: str, expected: bool) -> None:
    assert _resolves(name) is expected


def test_module_paths_name_their_modules() -> None:
    assert dotted(ROOT / "core/record/models.py") == "core.record.models"
