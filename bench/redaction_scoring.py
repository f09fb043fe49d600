"""When a secret counts as caught and a line as wrongly changed: the rules the bench and the
redaction tests score by.

A secret is **caught** only when no piece an attacker needs survives: no run of the secret's
characters of length ``piece_length(secret)`` (6, or 40 % of the secret when that is shorter,
and never under 3) is left in the output that the text around the secret did not already hold.
Redaction tokens (``[REDACTED…]``) are taken out of the output first, so a token's own name
never counts as a piece. Cutting a secret short (``API_[REDACTED]+Xf3kPz/8LmW…``) therefore
leaks it; removing it whole, or with a few of its characters either side, does not.

A line is a **false positive** when it holds no secret and changed at all, or when a ``public``
substring it names (a Twilio SID, a host, a user name) was altered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

_TOKEN = re.compile(r"\[REDACTED[^\]]*\]")


def piece_length(secret: str) -> int:
    """The shortest run of a secret's characters that counts as a piece of it."""
    return max(3, min(6, math.ceil(0.4 * len(secret))))


def leaked(secret: str, original: str, output: str) -> bool:
    """True when a piece of ``secret`` survives in ``output`` (see the module docstring)."""
    size = piece_length(secret)
    if len(secret) < size:
        return secret in output
    rest = _TOKEN.sub("\x00", output)
    context = original.replace(secret, "\x00")
    for start in range(len(secret) - size + 1):
        piece = secret[start : start + size]
        if rest.count(piece) > context.count(piece):
            return True
    return False


def any_leaked(secrets: Iterable[str], original: str, output: str) -> list[str]:
    """The secrets of one line that leaked, in their order."""
    return [s for s in secrets if leaked(s, original, output)]


def public_altered(public: Iterable[str], output: str) -> list[str]:
    """The public substrings no longer found whole in the output."""
    return [p for p in public if p not in output]


PUBLIC_BY_DESIGN = frozenset(
    {"twilio_account_sid", "twilio_api_key", "gcp_private_key_id", "sentry_dsn"}
)
"""Families the project's own older sets labelled secret that are public by design: a Twilio
account or API key SID names the account (its secret is the auth token or key secret beside
it), a service account's private_key_id names its key, and Sentry documents DSNs as safe to
ship in clients. Rows holding only these are left out of those sets' recall."""


def only_public(families: Iterable[str]) -> bool:
    """True when every family a row was labelled with is public by design."""
    names = set(families)
    return bool(names) and names <= PUBLIC_BY_DESIGN
