"""The owner-decision ledger's exclusion rules: rows that must never reach our journal.

Why the rules are data: the ledger's policy (human-only initiatives, personal-data patterns)
belongs to its owner, so it arrives from the command line or a policy file, never from code.
A row is excluded when its initiative, or any initiative it mentions, is human-only, or when a
personal-data pattern matches its header, question, answer, option labels or descriptions. An
excluded row is dropped before anything is written, and its report line names the rule, never
the matched text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.decider.fold import fold_name
from core.importers.source_file import read_source_text


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """`/regex/i` is a regular expression; anything else a case-insensitive whole word."""
    if len(pattern) > 2 and pattern.startswith("/") and pattern.rfind("/") > 0:
        end = pattern.rfind("/")
        flags = re.IGNORECASE if "i" in pattern[end + 1 :] else 0
        return re.compile(pattern[1:end], flags)
    return re.compile(r"(?<!\w)" + re.escape(pattern) + r"(?!\w)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ExclusionPolicy:
    human_only_initiatives: tuple[str, ...] = ()
    personal_data_patterns: tuple[re.Pattern[str], ...] = field(default=())

    @classmethod
    def of(cls, human_only: Iterable[str] = (), patterns: Iterable[str] = ()) -> ExclusionPolicy:
        return cls(
            tuple(fold_name(i) for i in human_only if i.strip()),
            tuple(compile_pattern(p) for p in patterns if p.strip()),
        )

    @classmethod
    def from_file(cls, path: Path) -> ExclusionPolicy:
        """A JSON object with `humanOnlyInitiatives` and `personalDataPatterns` lists."""
        data = json.loads(read_source_text(path))
        if not isinstance(data, dict):
            raise ValueError(f"{path}: the policy must be a JSON object")

        def strings(*names: str) -> list[str]:
            for name in names:
                value = data.get(name)
                if isinstance(value, list):
                    return [str(v) for v in value]
            return []

        return cls.of(
            strings("humanOnlyInitiatives", "human_only_initiatives"),
            strings("personalDataPatterns", "personal_data_patterns"),
        )

    def merged(self, other: ExclusionPolicy) -> ExclusionPolicy:
        return ExclusionPolicy(
            self.human_only_initiatives + other.human_only_initiatives,
            self.personal_data_patterns + other.personal_data_patterns,
        )


def _texts(row: dict[str, Any]) -> list[str]:
    texts = [str(row.get(name) or "") for name in ("header", "question")]
    answer = row.get("answer")
    if isinstance(answer, list):
        texts.extend(str(a) for a in answer)
    else:
        texts.append(str(answer or ""))
    options = row.get("options")
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict):
            texts.extend(str(option.get(n) or "") for n in ("label", "description"))
        else:
            texts.append(str(option))
    return texts


def _initiatives(row: dict[str, Any]) -> Sequence[str]:
    found = [str(row.get("initiative") or "")]
    for name in ("mentionedInitiatives", "mentioned_initiatives"):
        mentioned = row.get(name)
        if isinstance(mentioned, list):
            found.extend(str(m) for m in mentioned)
    return [f for f in found if f.strip()]


def exclusion_reason(row: dict[str, Any], policy: ExclusionPolicy) -> str:
    """Why the row is excluded, or "" when it may be imported."""
    if row.get("excluded") is True:
        return "excluded: marked excluded in the ledger"
    human_only = set(policy.human_only_initiatives)
    if any(fold_name(i) in human_only for i in _initiatives(row)):
        return "excluded: belongs to a human-only initiative"
    texts = _texts(row)
    for number, pattern in enumerate(policy.personal_data_patterns, start=1):
        if any(pattern.search(text) for text in texts):
            return f"excluded: matches personal-data pattern #{number}"
    return ""
