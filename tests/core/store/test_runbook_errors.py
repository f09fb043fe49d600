"""Every runbook entry a message in `core` or `app` names exists in the shipped runbook, and
the runbook module finds, prints and names entries as messages use them."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import core
from core.errors import _STORAGE_CAUSES, JournalError
from core.messages import runbook

ROOT = Path(__file__).resolve().parents[3]
_IN_TEXT = (
    re.compile(r"runbook\.md#([a-z0-9]+(?:-[a-z0-9]+)*)"),
    re.compile(r"help runbook ([a-z0-9]+(?:-[a-z0-9]+)*)"),
)
_CALLS = {"see", "reference", "Finding"}


def _sources() -> list[Path]:
    return sorted([*(ROOT / "core").rglob("*.py"), *(ROOT / "app").rglob("*.py")])


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _anchors_in_tree(tree: ast.AST) -> set[str]:
    """`runbook_anchor = "x"`, `anchor="x"`, `see("x")`, `reference("x")`, `Finding(p, m, "x")`."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {getattr(t, "id", getattr(t, "attr", "")) for t in targets}
            if "runbook_anchor" in names and isinstance(node.value, ast.Constant):
                found.add(node.value.value)
        elif isinstance(node, ast.Call):
            name = _called_name(node)
            for keyword in node.keywords:
                if keyword.arg == "anchor" and isinstance(keyword.value, ast.Constant):
                    found.add(keyword.value.value)
            position = 2 if name == "Finding" else 0
            if name in _CALLS and len(node.args) > position:
                argument = node.args[position]
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    found.add(argument.value)
    return {anchor for anchor in found if isinstance(anchor, str)}


def _named_anchors() -> dict[str, set[str]]:
    """Every anchor named in the sources, with the files naming it."""
    named: dict[str, set[str]] = {}
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        anchors = _anchors_in_tree(ast.parse(text))
        for pattern in _IN_TEXT:
            anchors.update(pattern.findall(text))
        for anchor in anchors:
            named.setdefault(anchor, set()).add(str(path.relative_to(ROOT)))
    return named


def _error_anchors() -> set[str]:
    for module in pkgutil.walk_packages(core.__path__, "core."):
        importlib.import_module(module.name)
    anchors = {anchor for _cause, anchor in _STORAGE_CAUSES.values()}
    pending = [JournalError]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.runbook_anchor:
            anchors.add(cls.runbook_anchor)
    return anchors


def test_every_anchor_a_message_names_is_an_entry_of_the_shipped_runbook() -> None:
    entries = set(runbook.entries())
    named = _named_anchors()
    # The scan finds the messages it is meant to check: a class attribute, a doctor finding, a
    # `see(...)` in the CLI, a constant in the hooks, a literal path in a protocol error.
    assert {"history-tampered", "temp-file", "app-not-running", "decision-pending"} <= set(named)
    assert "app/hooks/deny_text.py" in named["decision-pending"]
    assert len(named) >= 12, sorted(named)
    missing = {anchor: sorted(files) for anchor, files in named.items() if anchor not in entries}
    assert missing == {}


def test_every_error_class_and_os_failure_has_an_entry() -> None:
    anchors = _error_anchors()
    assert {"disk-full", "read-only-file-system", "permission-denied", "history-tampered"} <= (
        anchors
    )
    assert anchors - set(runbook.entries()) == set()


def test_each_entry_has_what_you_see_why_and_fix_once() -> None:
    text = runbook.installed_path().read_text(encoding="utf-8")
    headings = re.findall(r"^## (\S+)$", text, re.MULTILINE)
    assert len(headings) == len(set(headings))
    for anchor, body in runbook.entries().items():
        for part in ("**You see:**", "**Why:**", "**Fix:**"):
            assert body.count(part) == 1, (anchor, part)


def test_the_github_page_lists_exactly_the_shipped_entries() -> None:
    page = (ROOT / "docs" / "runbook.md").read_text(encoding="utf-8")
    listed = re.findall(r"\(\.\./resources/runbook\.md#([a-z0-9-]+)\)", page)
    assert listed == list(runbook.entries())


def test_an_entry_is_printed_from_its_heading_to_the_next() -> None:
    body = runbook.entry("disk-full")
    assert body.startswith("## disk-full\n") and "**Fix:**" in body
    assert "## " not in body[len("## disk-full") :]


def test_an_unknown_entry_names_the_ones_that_exist() -> None:
    with pytest.raises(runbook.UnknownEntry, match="no entry 'disk-ful'; entries: app-not"):
        runbook.entry("disk-ful")


def test_messages_name_the_command_and_the_installed_file() -> None:
    assert runbook.installed_path() == ROOT / "resources" / "runbook.md"
    assert runbook.see("temp-file") == (
        f"see: decision-journal help runbook temp-file; {ROOT}/resources/runbook.md#temp-file"
    )
