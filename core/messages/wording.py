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
    return f"{number(value)} {noun(value, singular, plural)}"


def noun(value: int, singular: str, plural: str = "") -> str:
    """The noun alone, in agreement with value: noun(2, "option") -> "options"."""
    return singular if value == 1 else plural or singular + "s"


def join_words(words: Sequence[str], conjunction: str = "and") -> str:
    """["a"] -> "a"; ["a", "b"] -> "a and b"; ["a", "b", "c"] -> "a, b and c"."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def too_large(size: int, limit: int, unit: str = "byte") -> str:
    """The one wording of a size over its limit: "is 5,000 bytes; the limit is 4,096 bytes".

    Every "too many bytes" message reads this way after the field it names, so a person sees
    one phrasing whichever surface refused the text.
    """
    return f"is {count(size, unit)}; the limit is {count(limit, unit)}"


def too_many(found: int, limit: int, thing: str = "item") -> str:
    """The one wording of a list over its limit: "has 70 tags; the limit is 64 tags"."""
    return f"has {count(found, thing)}; the limit is {count(limit, thing)}"


def span(least: int, most: int, unit: str = "") -> str:
    """A range a person must keep to: "1 to 160 characters", "2 to 4 options", "0 to 64"."""
    text = f"{number(least)} to {number(most)}"
    return f"{text} {noun(most, unit)}" if unit else text
