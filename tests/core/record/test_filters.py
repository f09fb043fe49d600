"""`resolve_project`: a project named by its id or by the alias the list shows."""

from __future__ import annotations

import pytest

from core.errors import InvalidDecision, NotFound
from core.record.filters import resolve_project

ALIASES = {
    "project-1a2b": "payments-api",
    "project-3c4d": "Web",
    "project-5e6f": "tools",
    "project-7a8b": "tools",
}


@pytest.mark.parametrize(
    ("wanted", "expected"),
    [
        ("payments-api", "project-1a2b"),
        ("PAYMENTS-API", "project-1a2b"),
        (" web ", "project-3c4d"),
        ("project-5e6f", "project-5e6f"),
        ("PROJECT-5E6F", "project-5e6f"),
        ("", ""),
    ],
)
def test_an_id_or_an_alias_names_one_project(wanted: str, expected: str) -> None:
    assert resolve_project(wanted, ALIASES) == expected


def test_an_id_wins_over_an_alias_that_spells_it() -> None:
    assert resolve_project("project-x", {"project-x": "a", "project-y": "project-x"}) == (
        "project-x"
    )


def test_an_alias_of_several_projects_asks_for_the_id() -> None:
    with pytest.raises(InvalidDecision, match=r"'tools' names 2 projects \(project-5e6f, "):
        resolve_project("tools", ALIASES)


def test_an_unknown_name_lists_the_journal_s_projects() -> None:
    with pytest.raises(NotFound) as caught:
        resolve_project("payments", ALIASES)
    assert str(caught.value) == (
        "no project has the id or name 'payments'; the journal's projects: payments-api, tools, Web"
    )


def test_a_long_project_list_is_cut() -> None:
    aliases = {f"project-{n}": f"name-{n:02d}" for n in range(25)}
    with pytest.raises(NotFound, match=r"name-09 and 15 more$"):
        resolve_project("nope", aliases)
    with pytest.raises(NotFound, match="the journal has none"):
        resolve_project("nope", {})
