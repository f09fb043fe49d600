"""Principle docs: one Markdown file per domain that agents read as the person's settled habits.

Each rule is written with its examples (supporting decisions), counter-examples
(contradicting ones), its strength in plain words, when it was last confirmed and its kind's
mode and agreement. A domain's version moves only when its rules change (a rule added or
removed, its preferred option or its mode changed); more support alone rewrites the body under
the same version. Versions and changelogs live in `decider/principles.json`, so exporting to a
new folder continues them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.decider.fold import fold_name
from core.decider.ledger import time_text
from core.decider.policy import DECIDER_DIR
from core.decider.score import KindScore
from core.errors import InvalidDecision, JournalDamaged, JournalError, NotFound
from core.profile.model import (
    SCOPE_DOMAIN,
    SCOPE_PROJECT,
    STATE_CURRENT,
    PreferenceProfile,
    ProfileRule,
    ProfileStatus,
)
from core.profile.query import wilson_lower_95
from core.record.models import DecisionRecord
from core.store.locking import locked
from core.store.safefs import atomic_write, ensure_private_dir, read_regular_file

log = logging.getLogger(__name__)

STATE_FILE = "principles.json"
STATE_MAX_BYTES = 4 * 1024 * 1024
EXAMPLES = 3
CHANGELOG_MAX = 50
GENERAL = "general"

RecordLookup = Callable[[str], DecisionRecord | None]


def strength_words(support: int, contradictions: int) -> str:
    """How sure the rule is, in words a person and an agent read alike."""
    total = support + contradictions
    bound = wilson_lower_95(support, contradictions)
    share = f"{support} of {total} similar decisions"
    if bound >= 0.7:
        return f"strong: {share}"
    if bound >= 0.5:
        return f"moderate: {share}"
    return f"tentative: {share}, too few to rely on"


@dataclass(frozen=True, slots=True)
class DomainDoc:
    domain: str
    version: int
    path: Path
    changed: bool


@dataclass(frozen=True, slots=True)
class PrincipleSources:
    """What the docs are written from: the profile, the records, each kind's score."""

    profile: PreferenceProfile
    lookup: RecordLookup
    scores: Mapping[str, KindScore]

    @classmethod
    def of(
        cls, profile: PreferenceProfile, lookup: RecordLookup, scores: Iterable[KindScore]
    ) -> PrincipleSources:
        return cls(profile, lookup, {s.kind: s for s in scores})


@dataclass(slots=True)
class _Domain:
    rules: list[ProfileRule] = field(default_factory=list)


def domain_of(rule: ProfileRule, lookup: RecordLookup) -> str:
    """A domain rule's own domain; otherwise the commonest domain of its supporting records."""
    if rule.scope == SCOPE_DOMAIN:
        return rule.scope_key
    seen: Counter[str] = Counter()
    for decision_id in rule.support_decision_ids[:50]:
        record = lookup(decision_id)
        if record is not None and record.domains:
            seen[record.domains[0].strip().lower()] += 1
    return seen.most_common(1)[0][0] if seen else GENERAL


def _file_name(domain: str) -> str:
    folded = fold_name(domain)[:60] or GENERAL
    safe = "".join(c if c.isascii() and c.isalnum() else "-" for c in folded).strip("-")
    if safe != folded:
        safe = (safe or "domain") + "-" + hashlib.sha256(domain.encode()).hexdigest()[:8]
    return safe + ".md"


def _fingerprint(rules: Iterable[ProfileRule], modes: Mapping[str, KindScore]) -> dict[str, str]:
    """What a version counts: each rule's preferred option and its kind's mode."""
    out = {}
    for rule in rules:
        score = modes.get(fold_name(rule.criterion))
        out[rule.id] = f"{rule.preference_label}|{score.mode if score else 'ask'}"
    return out


def _example(record: DecisionRecord) -> str:
    when = record.updated_at.format()[:10] if record.updated_at else "?"
    chosen = record.selected_label() or record.custom_selection
    return f"{record.problem.strip()[:160]} → chose **{chosen}** ({when}, `{record.id}`)"


def _rule_section(rule: ProfileRule, lookup: RecordLookup, score: KindScore | None) -> list[str]:
    support_ids = rule.support_decision_ids
    support = [r for r in map(lookup, support_ids) if r is not None]
    against = [r for r in map(lookup, rule.contradiction_decision_ids) if r is not None]
    support.sort(key=lambda r: r.updated_at.unix_ns if r.updated_at else 0, reverse=True)
    against.sort(key=lambda r: r.updated_at.unix_ns if r.updated_at else 0, reverse=True)
    last = support[0].updated_at.format()[:10] if support and support[0].updated_at else "never"
    where = rule.scope if rule.scope != SCOPE_PROJECT else f"project {rule.scope_key}"
    lines = [
        f"### For {rule.criterion} decisions, choose {rule.preference_label}",
        "",
        f"- Rule: `{rule.id}` ({where})",
        f"- Strength: {strength_words(len(support_ids), len(rule.contradiction_decision_ids))}",
        f"- Last confirmed: {last}",
    ]
    if score is not None:
        agreement = (
            f"{score.agreement:.0%} of {score.scored} scored predictions"
            if score.scored
            else "not scored yet"
        )
        lines.append(f"- Mode: {score.mode} (agreement {agreement})")
    if rule.user_note:
        lines.append(f"- The person's note: {rule.user_note}")
    lines += ["", "Examples:", ""]
    lines += [f"- {_example(r)}" for r in support[:EXAMPLES]] or ["- (none readable)"]
    lines += ["", "Counter-examples:", ""]
    lines += [f"- {_example(r)}" for r in against[:EXAMPLES]] or ["- none"]
    return [*lines, ""]


class PrinciplesState:
    def __init__(self, journal_root: Path) -> None:
        self.root = Path(journal_root)
        self.path = self.root / DECIDER_DIR / STATE_FILE

    def read(self) -> dict[str, Any]:
        if not self.path.exists():
            return {}
        data = read_regular_file(self.root, self.path, STATE_MAX_BYTES)
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise JournalDamaged(f"principle doc state {self.path} is not valid JSON") from exc
        if not isinstance(raw, dict):
            raise JournalDamaged(f"principle doc state {self.path} must be a JSON object")
        return raw

    def write(self, state: dict[str, Any]) -> None:
        ensure_private_dir(self.root, self.path.parent)
        text = json.dumps(state, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        atomic_write(self.root, self.path, text.encode("utf-8"))


def _changes(before: dict[str, str], after: dict[str, str], labels: dict[str, str]) -> list[str]:
    notes = [f"added `{r}` ({labels[r]})" for r in sorted(set(after) - set(before))]
    notes += [f"removed `{r}`" for r in sorted(set(before) - set(after))]
    notes += [
        f"changed `{r}` ({before[r].replace('|', ', mode ')} → {after[r].replace('|', ', mode ')})"
        for r in sorted(set(before) & set(after))
        if before[r] != after[r]
    ]
    return notes


def write_principle_docs(
    journal_root: Path, directory: Path, sources: PrincipleSources, *, now: datetime
) -> list[DomainDoc]:
    """Writes `<domain>.md` per domain into `directory`; returns each with its version."""
    domains: dict[str, _Domain] = {}
    for rule in sources.profile.rules:
        if rule.enabled:
            domains.setdefault(domain_of(rule, sources.lookup), _Domain()).rules.append(rule)
    for domain in sorted(domains):
        refuse_foreign_file(directory / _file_name(domain), domain)
    state_file = PrinciplesState(journal_root)
    directory.mkdir(parents=True, exist_ok=True)
    done = []
    with locked(state_file.root, state_file.path):
        state = state_file.read()
        versions: dict[str, Any] = state.setdefault("domains", {})
        for domain in sorted(domains):
            rules = domains[domain].rules
            print_ = _fingerprint(rules, sources.scores)
            entry = versions.get(domain) or {"version": 0, "rules": {}, "changelog": []}
            notes = _changes(entry["rules"], print_, {r.id: r.preference_label for r in rules})
            changed = bool(notes) or entry["version"] == 0
            if changed:
                entry = {
                    "version": entry["version"] + 1,
                    "rules": print_,
                    "changelog": [
                        *entry["changelog"],
                        {"version": entry["version"] + 1, "at": time_text(now), "notes": notes},
                    ][-CHANGELOG_MAX:],
                }
                versions[domain] = entry
            path = directory / _file_name(domain)
            body = _document(domain, entry, rules, sources, now)
            _write_text(path, body)
            done.append(DomainDoc(domain, entry["version"], path, changed))
        state_file.write(state)
    if not done:
        raise NotFound("the profile has no enabled rules: there are no principles to export yet")
    return done


def kept_folder(journal_root: Path) -> Path | None:
    """The folder `principles export DIR --keep` asked to keep current, or None."""
    kept = PrinciplesState(journal_root).read().get("keep_dir")
    return Path(kept) if isinstance(kept, str) and kept else None


def keep_folder(journal_root: Path, directory: Path | None) -> None:
    """Remembers (or, with None, forgets) the folder the app rewrites after each rebuild."""
    state_file = PrinciplesState(journal_root)
    with locked(state_file.root, state_file.path):
        state = state_file.read()
        if directory is None:
            state.pop("keep_dir", None)
        else:
            state["keep_dir"] = str(directory.resolve())
        state_file.write(state)


class PrinciplesKeeper:
    """A `ProfileObserver` that rewrites the kept folder whenever the profile is current again.

    Runs on the profile worker's thread, never the GUI's; a failure is logged, since the docs
    are a copy the next rebuild writes again."""

    def __init__(self, journal_root: Path, sources: Callable[[], PrincipleSources]) -> None:
        self.root = Path(journal_root)
        self._sources = sources

    def on_state_changed(self, status: ProfileStatus) -> None:
        if status.state != STATE_CURRENT:
            return
        try:
            folder = kept_folder(self.root)
            if folder is not None:
                write_principle_docs(self.root, folder, self._sources(), now=datetime.now(UTC))
        except (JournalError, OSError):
            log.exception("principle docs not kept current")


def _document(
    domain: str,
    entry: dict[str, Any],
    rules: list[ProfileRule],
    sources: PrincipleSources,
    now: datetime,
) -> str:
    lines = [
        f"# Principles: {domain}",
        "",
        f"Version {entry['version']} · written {time_text(now)}{_BY_US}",
        "",
        "These are the person's settled choices, derived from their own recorded decisions. "
        "They are evidence, not orders: follow them when the situation matches, and still ask "
        "(`present_implementation_decision`) when the tradeoff differs, the risk is high, or a "
        "rule is tentative.",
        "",
        "## Rules",
        "",
    ]
    for rule in rules:
        score = sources.scores.get(fold_name(rule.criterion))
        lines += _rule_section(rule, sources.lookup, score)
    lines += ["## Changelog", ""]
    for change in reversed(entry["changelog"]):
        notes = "; ".join(change["notes"]) or "first version"
        lines.append(f"- Version {change['version']} ({change['at'][:10]}): {notes}")
    return "\n".join(lines) + "\n"


def refuse_foreign_file(path: Path, domain: str) -> None:
    """An export replaces only the docs it wrote: the person's own `api.md` in the folder, a
    link or a pipe stays as it is.

    Raises:
        InvalidDecision: something at `path` that is not a principle doc of `domain`; raised
            before any file is written.
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISREG(info.st_mode):
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES).decode("utf-8", "replace").split("\n")
        if len(head) > 2 and head[0] == f"# Principles: {domain}" and _BY_US in head[2]:
            return
    raise InvalidDecision(
        f"{path} exists and is not a principle doc Decision Journal wrote; move it or export "
        "into another folder (nothing was written)",
        field="dir",
    )


_HEAD_BYTES = 1024
_BY_US = " by Decision Journal"
"""The end of a doc's version line (`_document`), which marks a file an export may replace."""


def _write_text(path: Path, text: str) -> None:
    """Whole or not at all: a temporary file beside it, then a rename."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".md.tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
