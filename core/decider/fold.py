"""One folding rule for every name the decider compares: kinds, phrases, projects, hard stops.

Why one rule: a kind typed `Merge-Gate` in a proposal, `merge gate` in the modes list and
`merge_gate` in a policy file must be one kind, and an unlock phrase must match however an agent
spaces or punctuates it. Folding drops case, whitespace, `-`, `_` and punctuation; letters and
digits of every script (Hangul included) stay.
"""

from __future__ import annotations

import re

_FOLD = re.compile(r"[\s\-_\W]+")


def fold_name(text: str) -> str:
    """`Merge-Gate`, `merge gate` and `merge_gate.` all fold to `mergegate`."""
    return _FOLD.sub("", text.casefold())


def contains_folded(text: str, folded_phrase: str) -> bool:
    """Whether the folded phrase occurs in the folded text (a blank phrase never matches)."""
    return bool(folded_phrase) and folded_phrase in fold_name(text)
