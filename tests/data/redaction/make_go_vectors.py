"""Writes go_vectors.jsonl: Go's answers for the reference patterns on edge-case inputs.

The inputs are seeded random strings built to hit the places where Python's ``re`` and Go's
RE2 disagree unless the port spells Go's rules out: the U+017F and U+212A case folds, U+0131
and U+0130 (which Go does not fold), Unicode spaces, ``\\v``, non-ASCII letters next to
``\\b``, multi-byte values near the 16- and 20-byte limits, placeholders and code markers.

Needs a Go toolchain (``apt-get install golang-go``); the tests only read the output.
Run: ``python tests/data/redaction/make_go_vectors.py``
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261129
COUNT = 3000

ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.%"
ODD = "ſKıİé키!#$()[]<>{}\u00a0\u3000 '\"/+@\v\x85"
KEYS = [
    "sk-", "\u017fk-", "S\u212a-", "ghp_", "ghr_", "github_pat_", "Bearer ", "bearer\t",
    "BEARER\u00a0", "token=", "sig=", "X-AMZ-SIGNATURE=", "password: ", "pwd=", "secret = '",
    'api-key:"', "ACCESS_KEY=", "client-secret :", "\u0131token=", "tok\u0130n=", "passwd\v= ",
    "-----BEGIN RSA PRIVATE KEY-----\n", "-----begin ec private key-----",
    "-----BEGIN PRIVATE KEY-----",
]  # fmt: skip
TAILS = ["", " ", "x", "é", "-", "'", '"', ".", "\n-----END RSA PRIVATE KEY-----"]
PREFIXES = ["", " ", "x", "é", "키", "_", "-", "'", "ſ", "K"]
WORDS = ["example", "xxxx", "os.environ", "(", "uuid", "Your_", "İNSERT_", "비밀번호", "٣", "Ⅻ"]


TOKEN_KEYS = {"sk-", "\u017fk-", "S\u212a-", "ghp_", "ghr_", "github_pat_", "Bearer ", "bearer\t"}


def value(rng: random.Random, key: str) -> str:
    """Token keys get runs near the 20-character minimum; assignments get mixed values."""
    short, odd = ((17, 26), 0.04) if key in TOKEN_KEYS else ((4, 40), 0.15)
    chars = []
    for _ in range(rng.randint(*short)):
        pool = ODD if rng.random() < odd else ALPHABET
        chars.append(rng.choice(pool))
    if rng.random() < 0.2:
        chars.insert(rng.randrange(len(chars) + 1), rng.choice(WORDS))
    return "".join(chars)


def case(rng: random.Random) -> str:
    key = rng.choice(KEYS)
    parts = [rng.choice(PREFIXES) + key + value(rng, key) + rng.choice(TAILS)]
    if rng.random() < 0.3:
        key = rng.choice(KEYS)
        parts.append(key + value(rng, key))
    return rng.choice(["", " ", "\n"]).join(parts)


def main() -> None:
    rng = random.Random(SEED)
    inputs = [case(rng) for _ in range(COUNT)]
    answers = subprocess.run(
        ["go", "run", "."],
        cwd=HERE / "go_oracle",
        input="".join(json.dumps(text) + "\n" for text in inputs).encode(),
        capture_output=True,
        check=True,
    ).stdout.decode()
    with (HERE / "go_vectors.jsonl").open("w", encoding="utf-8", newline="\n") as out:
        for text, line in zip(inputs, answers.split("\n"), strict=False):
            redacted, patterns = json.loads(line)
            row = {"text": text, "redacted": redacted, "patterns": list(dict.fromkeys(patterns))}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
