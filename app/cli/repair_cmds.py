"""`decision-journal doctor --repair`: the repairs that are always safe, then the check.

Safe means nothing a user wrote is changed: stale temporary files of interrupted writes are
removed (by name, age and a free lock; `core.store.temp_sweep`), and history revisions that have no
digest yet get one (`core.store.history_files`). Everything else doctor finds is left for the
runbook.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from app.cli.exit_codes import DAMAGED, OK
from core.messages import runbook
from core.messages.wording import count

if TYPE_CHECKING:  # loaded by the command, not by every `list` or `show` that parses
    from core.doctor import Finding
    from core.journal import Journal


def cmd_repair(journal: Journal, args: argparse.Namespace) -> int:
    from core.doctor import repair_journal

    report = repair_journal(journal.store)
    findings = report.health.findings
    if args.json:
        print(
            json.dumps(
                {
                    "journal": str(journal.root),
                    "removed_temp_files": report.removed_temps,
                    "kept_temp_files": report.kept_temps,
                    "history_digests_written": report.sealed,
                    "findings": [f.as_dict() for f in findings],
                }
            )
        )
        return DAMAGED if findings else OK
    print(f"Removed {count(len(report.removed_temps), 'stale temporary file')}.")
    if report.kept_temps:
        print(
            f"Kept {count(len(report.kept_temps), 'temporary file')}: younger than five "
            "minutes or locked, so a write may still be using them."
        )
    print(f"Wrote {count(report.sealed, 'history digest')} (revisions that had none).")
    print_findings(findings)
    if not findings:
        print(f"Journal {journal.root} is healthy.")
    return DAMAGED if findings else OK


def print_findings(findings: list[Finding]) -> None:
    for finding in findings:
        print(f"{finding.path}: {finding.problem} ({runbook.see(finding.runbook)})")


def unsealed_line(unsealed: int) -> str:
    """The note for history revisions without a digest: not a problem, but unprotected."""
    return (
        f"{count(unsealed, 'history revision')} written before digests were kept (or by "
        "KernForge) cannot be checked for changes yet; `decision-journal doctor --repair` "
        "writes their digests."
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repair",
        action="store_true",
        help="remove stale temporary files and write missing history digests, then check",
    )
