"""Texts that open the redaction rules' gates, and often fire them, for the tests that hold a
faster redaction check to the full one.

From the redaction corpora (secrets of every family, and the prose near misses of the
negatives), glued to the rules' own keywords, a few fixed secrets and noise.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import strategies as st

from core.record.redaction import _RULES

_CORPORA = Path(__file__).resolve().parents[3] / "data" / "redaction"


def _lines(name: str) -> list[str]:
    with (_CORPORA / name).open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle if line.strip()]


_CORPUS = st.sampled_from(
    _lines("positives.jsonl") + _lines("negatives.jsonl") + _lines("heldout_positives.jsonl")
)
_KEYWORDS = st.sampled_from(sorted({k for rule in _RULES for k in rule.keywords if k}))
_FRAGMENTS = st.sampled_from(
    [
        "password: hunter2hunter2",
        "token=",
        "api_key = 'AKIAIOSFODNN7EXAMPLE'",
        "ghp_" + "a1B2" * 9,
        "https://user:s3cretPass@example.com/x",
        "-----BEGIN RSA PRIVATE KEY-----",
        "[REDACTED:aws_access_key]",
        "src/token.py:12",
        " ",
        "\n",
        "\u017f\u212a",
    ]
)
secret_texts = st.lists(
    _CORPUS | _KEYWORDS | _FRAGMENTS | st.text(max_size=16), min_size=0, max_size=5
).map(" ".join)
"""About half of these are texts some rule changes."""
