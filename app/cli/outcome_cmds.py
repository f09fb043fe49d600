"""Outcome and recall commands: `outcome ID`, `outcome-stats`, `recall QUERY`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from app.cli import render
from app.cli.exit_codes import OK
from core.agents.recall import RecallOptions, entries_json, recall_journal
from core.errors import InvalidDecision
from core.index.query import IndexFilter
from core.journal import Journal
from core.messages.wording import count
from core.outcomes.rule_scores import journal_rule_outcomes
from core.outcomes.signals import OutcomeLog, latest_by_decision, report_outcome
from core.outcomes.verdict import acceptance_by_kind, record_outcome
from core.record.identity import project_identity


def _yes_no(text: str) -> bool:
    value = text.strip().lower()
    if value not in ("yes", "no"):
        raise argparse.ArgumentTypeError(f"expected yes or no, got {text!r}")
    return value == "yes"


def _score(text: str) -> float:
    try:
        return float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from exc


def cmd_outcome(journal: Journal, args: argparse.Namespace) -> int:
    """With signals: appends them. Without: shows what was reported and the reward."""
    if args.ci is None and args.accepted is None and args.eval is None and args.note is None:
        return _show_outcome(journal, args)
    signal = report_outcome(
        journal,
        args.id,
        ci=args.ci,
        accepted=args.accepted,
        eval_score=args.eval,
        note=args.note or "",
        source="cli",
    )
    reward = signal.reward
    if args.json:
        print(json.dumps({**signal.to_dict(), "reward": reward}))
    else:
        shown = "none (no signal)" if reward is None else f"{reward:.3f}"
        print(f"Recorded an outcome for {signal.decision_id}; reward of this report: {shown}.")
    return OK


def _show_outcome(journal: Journal, args: argparse.Namespace) -> int:
    record = journal.store.get(args.id)
    read = OutcomeLog(journal.root).read()
    mine = [s for s in read.signals if s.decision_id == record.id]
    merged = latest_by_decision(mine).get(record.id)
    answer = record_outcome(record) or ""
    if args.json:
        print(
            json.dumps(
                {
                    "decision_id": record.id,
                    "outcome": answer,
                    "reward": merged.reward if merged else None,
                    "signals": [s.to_dict() for s in mine],
                }
            )
        )
        return OK
    print(f"Answer against the recommendation: {answer or 'no recommendation'}")
    if merged is None:
        print("No outcome signals reported.")
        return OK
    reward = "none" if merged.reward is None else f"{merged.reward:.3f}"
    print(
        f"Signals: ci {merged.ci or '-'}, accepted "
        f"{'-' if merged.accepted is None else ('yes' if merged.accepted else 'no')}, eval "
        f"{'-' if merged.eval_score is None else merged.eval_score}; reward {reward} "
        f"({count(merged.reports, 'report')})"
    )
    return OK


def cmd_outcome_stats(journal: Journal, args: argparse.Namespace) -> int:
    # The index's cached records, decoded as views: no record file is read and validated again, and
    # no full model is built, which the store's listing would do (bench/CHANGES.md).
    kinds = acceptance_by_kind(journal.index.shapes(journal.index.query_ids(IndexFilter())))
    rules = journal_rule_outcomes(journal)
    if args.json:
        print(
            json.dumps(
                {
                    "acceptance_by_kind": [
                        {
                            "decision_kind": k.decision_kind,
                            "accept": k.accept,
                            "amend": k.amend,
                            "redirect": k.redirect,
                            "accept_rate": round(k.accept_rate, 4),
                        }
                        for k in kinds
                    ],
                    "rules": [figure.to_dict() for figure in rules.values()],
                }
            )
        )
        return OK
    rows = [
        [k.decision_kind, str(k.accept), str(k.amend), str(k.redirect), f"{k.accept_rate:.0%}"]
        for k in kinds
    ]
    print(render.table(("KIND", "ACCEPT", "AMEND", "REDIRECT", "ACCEPTED"), rows))
    if rules:
        print()
        rule_rows = [
            [f.rule_id, str(f.support), str(f.rewarded), f"{f.beta_mean:.2f}", f"{f.elo:.0f}"]
            for f in rules.values()
        ]
        print(render.table(("RULE", "SUPPORT", "REWARDED", "BETA", "ELO"), rule_rows))
    return OK


def _project(value: str) -> str:
    """A project ID as given, else the project of a path, else ''."""
    text = value.strip()
    if not text or text.startswith("project-"):
        return text
    if os.path.exists(text):
        return project_identity(text).project_id
    raise InvalidDecision(
        f"--project expects a project ID or a path, got {text!r}", field="project"
    )


def cmd_recall(journal: Journal, args: argparse.Namespace) -> int:
    options = RecallOptions(project_id=_project(args.project), limit=args.limit)
    entries = recall_journal(journal, args.query, options)
    if args.json:
        print(json.dumps(entries_json(entries), ensure_ascii=False, indent=2))
        return OK
    if not entries:
        print("Nothing recalled.")
        return OK
    for entry in entries:
        when = entry.when[:10]
        tail = f" ({entry.outcome})" if entry.outcome else ""
        print(f"{entry.score:7.3f}  {entry.kind:8}  {when}  {entry.id}{tail}")
        print(f"         {entry.text}")
        if entry.reason:
            print(f"         because {entry.reason}")
    sys.stdout.flush()
    return OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "outcome",
        help="report what happened after a decision (appends a signal; never edits the record)",
    )
    p.add_argument("id")
    p.add_argument("--ci", choices=["pass", "fail"])
    p.add_argument("--accepted", type=_yes_no, metavar="yes|no")
    p.add_argument("--eval", type=_score, metavar="SCORE", help="an evaluation score, 0 to 1")
    p.add_argument("--note", metavar="TEXT")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_outcome)

    p = sub.add_parser(
        "outcome-stats", help="how often recommendations are accepted; per-rule outcome scores"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_outcome_stats)

    p = sub.add_parser("recall", help="ranked search over past decisions and agent notes")
    p.add_argument("query")
    p.add_argument("--project", default="", help="project ID or a path inside the project")
    p.add_argument("--limit", type=int, default=8)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_recall)
