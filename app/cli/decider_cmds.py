"""Settled questions: `modes` (each decision kind's ask/auto and its record), `overrule` (correct
an automatic answer) and `principles export` (per-domain Markdown for agents)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli import render
from app.cli.exit_codes import INVALID, OK
from core.decider.policy import policy_path
from core.decider.principles import keep_folder, kept_folder, write_principle_docs
from core.decider.score import GRADUATION_AGREEMENT, GRADUATION_MIN_SCORED, KindScore
from core.decider.service import decider_for, principle_sources, utc_now
from core.gocompat.gojson import dumps_indented
from core.journal import Journal
from core.messages.wording import count

MODES_HEADERS = ("KIND", "MODE", "SCORED", "AGREE", "AMEND", "OVERRULE", "AGREEMENT", "AUTO")


def _score_dict(score: KindScore) -> dict[str, Any]:
    return {
        "kind": score.kind_label,
        "folded_kind": score.kind,
        "mode": score.mode,
        "scored_predictions": score.scored,
        "agree": score.agree,
        "amend": score.amend,
        "overrule": score.overrule,
        "agreement": round(score.agreement, 4),
        "auto_recommended": score.recommended,
        "reason": score.reason,
        "automatic_answers": score.automatic,
        "recent_overrules": score.recent_overrules,
        "history": [{"at": c.at, "mode": c.mode, "reason": c.reason} for c in score.history],
        "demotions": [
            {"at": c.at, "reason": c.reason}
            for c in score.history
            if c.reason.startswith("demoted")
        ],
    }


def _row(score: KindScore) -> list[str]:
    agreement = f"{score.agreement:.0%}" if score.scored else "-"
    return [
        render.ellipsize(score.kind_label, 28),
        score.mode,
        str(score.scored),
        str(score.agree),
        str(score.amend),
        str(score.overrule),
        agreement,
        "recommended" if score.recommended else "not yet",
    ]


def cmd_modes(journal: Journal, args: argparse.Namespace) -> int:
    scores = decider_for(journal).scores()
    if args.json:
        sys.stdout.write(dumps_indented({"kinds": [_score_dict(s) for s in scores]}))
        return OK
    if not scores:
        print("No decision kind has a preference rule yet; every question is asked.")
        return OK
    print(render.table(MODES_HEADERS, [_row(s) for s in scores]))
    print(
        f"\nAuto is recommended after {GRADUATION_MIN_SCORED} scored predictions with at least "
        f"{GRADUATION_AGREEMENT:.0%} agreement; two overrules within seven days set a kind "
        "back to ask. High-risk questions, hard stops and unlock phrases are always asked."
    )
    print(
        "Modes, scores and overrules move with the journal to every machine it syncs with; "
        "unlock phrases, hard stops and human-only projects are this machine's: "
        f"{policy_path(journal.root)}"
    )
    for score in scores:
        demotions = [c for c in score.history if c.reason.startswith("demoted")]
        if not score.recommended and score.scored:
            print(f"{score.kind_label}: {score.reason}")
        for change in demotions:
            print(f"{score.kind_label}: {render.ellipsize(change.reason, 80)} at {change.at}")
    return OK


def cmd_modes_set(journal: Journal, args: argparse.Namespace) -> int:
    entry = decider_for(journal).set_mode(args.kind, args.mode)
    if entry.mode == "auto":
        print(
            f"{entry.kind_label}: auto. Its questions are answered from your profile unless "
            "they are risky; each automatic answer can be overruled "
            "(`decision-journal overrule ID --select OPTION`)."
        )
    else:
        print(f"{entry.kind_label}: ask. Every question of this kind is asked.")
    return OK


def cmd_overrule(journal: Journal, args: argparse.Namespace) -> int:
    done = decider_for(journal).overrule(journal.store, args.id, args.select, args.reason or "")
    record = done.record
    print(
        f"Overruled {record.id}: now {record.selected_label()} (revision {record.revision}), "
        "your own choice."
    )
    if done.demoted:
        print(f"Two overrules within seven days: {done.kind_label!r} is asked again (mode ask).")
    return OK


def cmd_principles_export(journal: Journal, args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    docs = write_principle_docs(journal.root, folder, principle_sources(journal), now=utc_now())
    for doc in docs:
        state = "new version" if doc.changed else "unchanged rules"
        print(f"{doc.path}  version {doc.version} ({state})")
    print(f"{count(len(docs), 'principle doc')} written to {args.dir}.")
    if args.keep:
        keep_folder(journal.root, folder)
        print("The running app rewrites them after each profile rebuild.")
    return OK


def cmd_principles_forget(journal: Journal, args: argparse.Namespace) -> int:
    folder = kept_folder(journal.root)
    keep_folder(journal.root, None)
    print(f"No longer kept current: {folder}." if folder else "No folder was kept current.")
    return OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    modes = sub.add_parser(
        "modes", help="each decision kind's mode (ask or auto), its predictions and agreement"
    )
    modes.add_argument("--json", action="store_true")
    modes.set_defaults(handler=cmd_modes)
    actions = modes.add_subparsers(dest="modes_command", metavar="ACTION")
    p = actions.add_parser("set", help="ask, or auto when auto is recommended")
    p.add_argument("kind", metavar="KIND")
    p.add_argument("mode", choices=("ask", "auto"))
    p.set_defaults(handler=cmd_modes_set)

    p = sub.add_parser("overrule", help="correct an answer the profile gave for you")
    p.add_argument("id", metavar="ID")
    p.add_argument("--select", required=True, metavar="OPTION", help="option id or label")
    p.add_argument("--reason", metavar="TEXT", help="why (kept as your reason)")
    p.set_defaults(handler=cmd_overrule)

    principles = sub.add_parser("principles", help="principle docs for agents to read")
    paction = principles.add_subparsers(dest="principles_command", metavar="ACTION")

    def usage(journal: Journal, args: argparse.Namespace) -> int:
        principles.print_help(sys.stderr)
        return INVALID

    principles.set_defaults(handler=usage)
    p = paction.add_parser("export", help="write one Markdown file per domain into DIR")
    p.add_argument("dir", metavar="DIR")
    p.add_argument(
        "--keep", action="store_true", help="keep DIR current: rewritten after each rebuild"
    )
    p.set_defaults(handler=cmd_principles_export)
    p = paction.add_parser("forget", help="stop keeping the kept folder current")
    p.set_defaults(handler=cmd_principles_forget)
