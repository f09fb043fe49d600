"""No test module imports another test module.

Why: importing a test module runs its module-level set-up again under another name, collects
its tests twice when a fixture comes along, and ties two files that move independently. What
tests share lives in a support module (`tests/factories.py`, `tests/<folder>/support/`) or a
`conftest.py`.
"""

from __future__ import annotations

import ast

from tests.repo.tree import ROOT, relative


def _is_test_module(dotted: str) -> bool:
    return dotted.rsplit(".", 1)[-1].startswith("test_")


def _imported_test_modules(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of each test module a file of `package` imports, relative ones included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            if _is_test_module(base):
                found.append((node.lineno, base))
            found += [
                (node.lineno, f"{base}.{a.name}") for a in node.names if _is_test_module(a.name)
            ]
    return found


def test_no_test_module_imports_another() -> None:
    found = [
        f"{relative(path)}:{line} imports {module}"
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        for line, module in _imported_test_modules(
            path.read_text(encoding="utf-8"), relative(path.parent).replace("/", ".")
        )
    ]
    assert found == [], (
        "test modules importing other test modules; move what they share into a support module "
        "(tests/factories.py, tests/<folder>/support/) or a conftest.py and import that:\n  "
        + "\n  ".join(found)
    )


def test_imports_of_test_modules_are_found_in_every_spelling() -> None:
    source = (
        "import tests.core.index.test_journal_index\n"
        "from tests.core.index.test_journal_index import on_disk\n"
        "from tests.core.index import test_journal_index\n"
        "from . import test_parallel_read\n"
        "from .test_parallel_read import journal\n"
        "from ..index.test_entry import entry\n"
        "from tests.factories import stored\n"
        "from .support.reads import shape_values\n"
    )
    assert [module for _, module in _imported_test_modules(source, "tests.core.bulk")] == [
        "tests.core.index.test_journal_index",
        "tests.core.index.test_journal_index",
        "tests.core.index.test_journal_index",
        "tests.core.bulk.test_parallel_read",
        "tests.core.bulk.test_parallel_read",
        "tests.core.index.test_entry",
    ]
