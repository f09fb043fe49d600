"""Profile commands: show, rebuild, set (operator overrides) and match (the evidence query)."""

from __future__ import annotations

import argparse
import sys

from app.cli import render
from app.cli.exit_codes import INVALID, OK
from core.gocompat.gojson import dumps_indented
from core.gocompat.text import go_trim
from core.journal import Journal
from core.messages.wording import count
from core.profile.model import PreferenceProfile, ProfileRule, ProfileStatus
from core.profile.query import EvidenceResult, RuleEvidence, query_evidence
from core.record.identity import project_identity
from core.record.redaction import looks_sensitive

_SHOWN_IDS = 10
SHOW_HEADERS = (
    "ID",
    "SCOPE",
    "KEY",
    "CRITERION",
    "PREFERENCE",
    "SUPPORT",
    "CONTRA",
    "CONF",
    "ENABLED",
    "PINNED",
    "NOTE",
)


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return value == "true"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _state_text(status: ProfileStatus) -> str:
    return f"{status.state} ({status.error})" if status.error else status.state


def _rule_row(rule: ProfileRule) -> list[str]:
    return [
        rule.id,
        rule.scope,
        render.ellipsize(rule.scope_key, 24),
        render.ellipsize(rule.criterion, 24),
        render.ellipsize(rule.preference_label or rule.preference, 28),
        str(len(rule.support_decision_ids)),
        str(len(rule.contradiction_decision_ids)),
        f"{rule.confidence:.2f}",
        _yes(rule.enabled),
        _yes(rule.pinned),
        render.ellipsize(rule.user_note, 32),
    ]


def _profile_header(profile: PreferenceProfile, status: ProfileStatus) -> str:
    if profile.revision == 0:
        return f"No profile yet; state: {status.state}. Run `decision-journal profile rebuild`."
    generated = profile.generated_at.format() if profile.generated_at else "-"
    return (
        f"Profile revision {profile.revision}, generated {generated}, "
        f"{count(profile.record_count, 'record')}, {count(len(profile.rules), 'rule')}; "
        f"state: {_state_text(status)}"
    )


def cmd_show(journal: Journal, args: argparse.Namespace) -> int:
    profile = journal.profile.load()
    status = journal.profile.status()
    if args.json:
        sys.stdout.write(
            dumps_indented(
                {
                    "state": status.state,
                    "error": status.error,
                    "journal_hash": status.journal_hash,
                    "profile": profile.to_go_dict(),
                }
            )
        )
        return OK
    print(_profile_header(profile, status))
    if profile.rules:
        print(render.table(SHOW_HEADERS, [_rule_row(rule) for rule in profile.rules]))
    return OK


def cmd_rebuild(journal: Journal, args: argparse.Namespace) -> int:
    result = journal.profile.rebuild()
    profile = result.profile
    print(
        f"Rebuilt profile revision {profile.revision}: {count(len(profile.rules), 'rule')} from "
        f"{count(profile.record_count, 'record')} in {result.seconds:.2f} s."
    )
    return OK


def cmd_set(journal: Journal, args: argparse.Namespace) -> int:
    note = None if args.note is None else go_trim(args.note)
    profile = journal.profile.set_rule(
        args.rule_id,
        args.expected_revision,
        enabled=args.enabled,
        pinned=args.pinned,
        note=note,
    )
    rule = profile.rule(args.rule_id) or ProfileRule(id=go_trim(args.rule_id))
    print(
        f"Saved {rule.id} (enabled: {_yes(rule.enabled)}, pinned: {_yes(rule.pinned)}); "
        f"profile revision {profile.revision}."
    )
    if note is not None and looks_sensitive(note):
        print(
            "decision-journal: warning: the note looked like it held a secret and was redacted",
            file=sys.stderr,
        )
    return OK


def _id_list(ids: tuple[str, ...]) -> str:
    if not ids:
        return "-"
    shown = ", ".join(ids[:_SHOWN_IDS])
    more = len(ids) - _SHOWN_IDS
    return f"{shown}, and {more} more" if more > 0 else shown


def _match_lines(index: int, match: RuleEvidence) -> list[str]:
    where = match.scope if match.scope == "global" else f"{match.scope} {match.scope_key}"
    pinned = "  [pinned]" if match.pinned else ""
    lines = [
        f"{index}. {where}: {match.preference_label or match.preference} "
        f"({match.preference}){pinned}",
        f"   confidence {match.confidence:.2f}; support {match.support_count}, contradictions "
        f"{match.contradiction_count}; wilson_lower_95 {match.wilson_lower_95:.2f}",
        f"   supporting: {_id_list(match.support_decision_ids)}",
        f"   contradicting: {_id_list(match.contradiction_decision_ids)}",
    ]
    if match.user_note:
        lines.append(f"   note: {match.user_note}")
    return lines


def _print_matches(result: EvidenceResult) -> None:
    print(result.notice)
    print(f"Profile revision {result.profile_revision}, state: {result.profile_state}.")
    if not result.matches:
        print(f"No enabled rule matches kind {result.kind!r}.")
        return
    rules = count(len(result.matches), "enabled rule")
    print(f"{rules} for kind {result.kind!r}, project first:")
    for index, match in enumerate(result.matches, start=1):
        print("\n".join(_match_lines(index, match)))
    print(f"({result.strength_note})")


def cmd_match(journal: Journal, args: argparse.Namespace) -> int:
    project_id = args.project or ""
    if args.workspace:
        project_id = project_identity(args.workspace).project_id
    profile = journal.profile.load()
    status = journal.profile.status()
    result = query_evidence(
        profile, kind=args.kind, project_id=project_id, domains=args.domain, state=status.state
    )
    if args.json:
        sys.stdout.write(dumps_indented(result.to_dict()))
    else:
        _print_matches(result)
    return OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("profile", help="derived preference rules (evidence, not commands)")
    actions = parser.add_subparsers(dest="profile_command", metavar="ACTION")

    def usage(journal: Journal, args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return INVALID

    parser.set_defaults(handler=usage)

    p = actions.add_parser("show", help="rules, overrides and whether the profile is current")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_show)

    p = actions.add_parser("rebuild", help="rebuild the profile from the journal now")
    p.set_defaults(handler=cmd_rebuild)

    p = actions.add_parser("set", help="change a rule's overrides (compare-and-swap)")
    p.add_argument("rule_id")
    p.add_argument("--expected-revision", type=int, required=True, help="profile revision")
    p.add_argument("--enabled", type=_bool, metavar="true|false")
    p.add_argument("--pinned", type=_bool, metavar="true|false")
    p.add_argument("--note", metavar="TEXT", help="private note ('' clears it)")
    p.set_defaults(handler=cmd_set)

    p = actions.add_parser("match", help="enabled rules that bear on a decision kind")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="ID", help="project ID (project-…)")
    where.add_argument("--workspace", metavar="DIR", help="derive the project ID from a path")
    p.add_argument("--domain", action="append", default=[], metavar="D")
    p.add_argument("--kind", required=True, help="decision kind")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_match)
