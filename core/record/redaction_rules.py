"""Building blocks of the redaction pipeline: a rule, its replacement token, and filler tests.

``core.record.redaction`` runs the rules; ``core.record.redaction_vendors`` and
``core.record.redaction_prose``
declare most of them. They share these pieces so every family replaces text, names itself
and skips documentation placeholders the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

# Sees one match; returns (replacement, pattern name), or None to leave the match as it is.
Replacer = Callable[[re.Match[str]], tuple[str, str] | None]


@dataclass(frozen=True)
class Rule:
    """One pattern of the pipeline.

    ``regex`` can only match when the casefolded input contains one of ``keywords`` and, if
    set, matches ``confirm``. Both checks cost far less than ``regex`` (substring tests run
    in C; ``confirm`` patterns are literal-led), so most rules are skipped on ordinary prose.
    ``gates`` narrows the early-exit search for a short keyword: the regex that must follow
    it in casefolded text (see ``core.record.redaction._ANY_KEYWORD``).
    """

    name: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...]
    replacer: Replacer | None = None
    confirm: re.Pattern[str] | None = None
    gates: dict[str, str] = field(default_factory=dict)
    keyword_set: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "keyword_set", frozenset(self.keywords))


def token(name: str) -> str:
    """The text a secret of family ``name`` is replaced with."""
    return f"[REDACTED:{name}]"


TOKEN_RE = re.compile(r"\[REDACTED:[a-z0-9_]+\]")


def compile_ascii(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Compiles with ASCII classes, as Go's RE2 reads ``\\b``, ``\\w`` and ``\\d``.

    Compiled on first use, not at import: there are over a hundred rules, every process that
    stores text imports them (each CLI command, the MCP server, the app), and most texts never
    open a rule's keyword gate.
    """
    return cast("re.Pattern[str]", _LazyPattern(pattern, re.ASCII | flags))


class _LazyPattern:
    """A regular expression compiled the first time any of its attributes is used."""

    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return getattr(compiled, name)


FILLER_HINTS = (
    "example", "your", "placeholder", "dummy", "fake", "sample", "redacted",
    "changeme", "abcdefgh", "12345678", "<", ">", "${", "{{",
)  # fmt: skip
# Keys printed in vendors' own documentation; tutorials and tests quote them.
DOCUMENTED_KEYS = frozenset({"sk_test_4eC39HqLyjWDarjtT1zdp7dc"})


def is_filler(value: str) -> bool:
    """Tells documentation keys and filler (``AKIAIOSFODNN7EXAMPLE``, ``xoxb-0000…``) apart.

    Real keys are random, so they carry many distinct characters and no English hint words.
    """
    if value in DOCUMENTED_KEYS:
        return True
    lowered = value.casefold()
    if any(hint in lowered for hint in FILLER_HINTS) or "xxxx" in value or "XXXX" in value:
        return True  # a run of one case: random keys mix xXXx often enough
    tail = lowered[-16:]  # the random part, without the vendor prefix
    return len(set(tail)) < min(6, len(tail) // 2)


def any_context(match: re.Match[str]) -> bool:
    """The default context check: the match alone is enough."""
    return True


def vendor(
    name: str,
    pattern: str,
    keywords: tuple[str, ...],
    check: Callable[[re.Match[str]], bool] = any_context,
    *,
    filler_check: bool = True,
    confirm: re.Pattern[str] | None = None,
    gates: dict[str, str] | None = None,
) -> Rule:
    """Builds a rule that replaces the ``secret`` group, or the whole match when there is none.

    Keeping the text around the secret (``key = ``, or ``user:`` in a URL) keeps the sentence
    readable, the way the reference keeps an assignment's key.
    """
    regex = compile_ascii(pattern)

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        group: int | str = "secret" if "secret" in match.re.groupindex else 0
        if (filler_check and is_filler(match.group(group))) or not check(match):
            return None
        whole, base = match.group(0), match.start()
        start, end = match.start(group) - base, match.end(group) - base
        return whole[:start] + token(name) + whole[end:], name

    return Rule(name, regex, keywords, replace, confirm, gates or {})
