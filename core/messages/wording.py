"""How counts and lists read in English: "1 decision", "2 decisions", "10,000", "a, b and c".

Why one place: the CLI and the windows print the same counts, and "decision(s)" or "10000"
beside "4,375" reads as careless. Every count a person reads goes through `count`.
"""

from __future__ import annotations

from collections.abc import Sequence


def number(value: int) -> str:
    """An integer with thousands separators: 10000 -> "10,000"."""
    return f"{value:,}"


def count(value: int, singular: str, plural: str = "") -> str:
    """The number and the noun in agreement: count(1, "rule") -> "1 rule".

    Args:
        plural: the plural when it is not singular + "s" (count(2, "entry", "entries")).
    """
    noun = singular if value == 1 else plural or singular + "s"
    return f"{number(value)} {noun}"


def join_words(words: Sequence[str], conjunction: str = "and") -> str:
    """["a"] -> "a"; ["a", "b"] -> "a and b"; ["a", "b", "c"] -> "a, b and c"."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"
