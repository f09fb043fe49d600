"""The record filters `list` and `export` share, and their `--limit`, as argparse options.

Why here: both commands select records the same way, and a project is named as the list
shows it (its alias) or by its id; `core.record.filters.resolve_project` decides which.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded by the command that filters, not by every one that parses
    from core.index.query import IndexFilter
    from core.journal import Journal

LIMIT_MAX = 1_000_000
"""The largest `--limit`; without one, every matching decision is listed."""


def add_filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project", default="", metavar="NAME", help="project name (as listed) or id (project-…)"
    )
    parser.add_argument("--domain", default="")
    parser.add_argument("--kind", default="", help="decision kind")
    # No "" among the choices: the default (any status) needs none, and usage would show {,…}.
    parser.add_argument("--status", default="", choices=["completed", "corrected", "deleted"])
    parser.add_argument(
        "--query",
        default="",
        metavar="TEXT",
        help="words in the problem, options, reasons, summary, tags, domains or kind, in any "
        "form (caching finds cache); all must match, the last one as a prefix",
    )
    parser.add_argument("--include-deleted", action="store_true")


def add_limit(parser: argparse.ArgumentParser, verb: str) -> None:
    """`--limit N`: at most N of the matching decisions, newest first."""
    parser.add_argument(
        "--limit",
        type=limit,
        default=0,
        metavar="N",
        help=f"{verb} at most N decisions, newest first (1 to {LIMIT_MAX:,}; default: all)",
    )


def limit(text: str) -> int:
    """`--limit`: a whole number from 1 to `LIMIT_MAX`; argparse reports anything else."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= LIMIT_MAX:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 1 to {LIMIT_MAX:,} (got {text!r}); "
            "leave it out to list every decision"
        )
    return value


def filter_from(journal: Journal, args: argparse.Namespace, count: int = 0) -> IndexFilter:
    """The filter the options ask for; a project name becomes its id.

    Raises:
        NotFound: no project has that name or id.
        InvalidDecision: the name is shown for several projects.
    """
    from core.index.query import IndexFilter
    from core.record.filters import resolve_project

    project_id = ""
    if args.project.strip():
        aliases = {p.project_id: p.alias for p in journal.index.projects()}
        project_id = resolve_project(args.project, aliases)
    return IndexFilter(
        project_id=project_id,
        domain=args.domain,
        decision_kind=args.kind,
        status=args.status,
        query=args.query,
        include_deleted=args.include_deleted or args.status == "deleted",
        limit=count,
    )
