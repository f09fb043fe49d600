"""Measures redaction recall, false positives and speed on every labelled set, beside peers.

Sets, each scored for our redactor, the reference's six patterns alone, detect-secrets 1.5 and
gitleaks' default rule set (tests/data/redaction/gitleaks.toml, MIT, run with the `regex`
module) when those are installed:

* the project's tuning set and its held-out set (tests/data/redaction/generate*.py);
* the world sets, written by an independent author from public knowledge of credential
  formats who never saw our rules (tests/data/redaction/world/README.md): world-a and
  world-b are for tuning; **world-holdout is never tuned against**, and for it this bench
  prints its aggregate figures only, never a line of its text nor a family's count;
* world-c and world-holdout2, by a second independent author with another generator and other
  phrasings (tests/data/redaction/world/PROVENANCE.md): world-c is for tuning, world-holdout2
  is treated like world-holdout;
* world-d and world-holdout3, by a third author (same file): world-d is for tuning,
  world-holdout3 is treated like world-holdout.

Recall counts secrets: one is caught only when no piece an attacker needs survives (no run of
6 of its characters, or 40 % of it when shorter, left in the output; bench/redaction_scoring.py).
A line is a false positive when it holds no secret and changed at all, or when a `public`
substring it names was altered; the rate divides those lines by the negative lines plus the
positive lines that name public substrings. Lines per second are the best of three runs over
at least --lines lines. The per-family table counts sentences (6 per family in the world
sets) in which every secret was caught.

Usage:
    python bench/redaction_bench.py [--lines N] [--no-peers] [--families] [--sets a,b,...]

The peers are bench-only dependencies: `pip install detect-secrets==1.5.0 regex`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "redaction"
WORLD = DATA / "world"
sys.path.insert(0, str(ROOT))

from bench.redaction_scoring import any_leaked, only_public
from bench.redaction_scoring import public_altered as public_altered_in
from core.record.redaction import _REFERENCE_RULES, _redact, redact_text

Redactor = Callable[[str], str]
_KEEP_OPEN = contextlib.ExitStack()


@dataclass
class Row:
    """One labelled line: its text, the secrets that must go, the substrings that must stay."""

    text: str
    family: str
    secrets: list[str]
    public: list[str]


@dataclass
class Scores:
    """Quality figures of one redactor on one set."""

    recall: float
    secrets: int
    per_family: dict[str, tuple[int, int]]
    false_positive_rate: float
    false_positives: list[str]
    public_altered: int
    missed: list[tuple[str, str]]


TARGETS = {"recall": 0.97, "false_positive_rate": 0.01, "lines_per_second": 5_000}
LEAK_FAMILIES = (
    "prose-password-ko", "prose-password-en", "sshpass", "flag-mysql-p", "redis-auth",
    "framework-secret-key", "npmrc-auth", "docker-config-json", "k8s-secret-data",
    "kubeconfig-client-key-data", "gcp-service-account-json", "twilio-auth-token",
    "twilio-api-key-secret", "aws-sts-session-credentials", "url-userinfo-git-https",
    "url-userinfo-postgres", "url-userinfo-redis", "firebase-fcm-server-key",
    "docker-hub-org-token", "google-oauth-access-token", "google-oauth-refresh-token",
    "vercel-token", "cloudflare-global-api-key", "azure-devops-pat", "newrelic-insert-key",
    "braintree-access-token", "snyk-token", "heroku-api-key",
)  # fmt: skip
"""World families for the leaks listed when structural detection was built (docs/decisions.md)."""


def load_project(name: str, negatives: bool) -> list[Row]:
    """One of the project's own sets; Twilio SIDs are public by design and left out."""
    rows = []
    with (DATA / name).open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            row = json.loads(line)
            if negatives:
                rows.append(Row(row["text"], "negative", [], []))
                continue
            secrets = row["secrets"]
            if secrets and isinstance(secrets[0], dict):  # the tuning set names each value
                families = [s["family"] for s in secrets]
                values = [s["value"] for s in secrets]
            else:
                families, values = [row["family"]], list(secrets)
            if not only_public(families):
                rows.append(Row(row["text"], families[0], values, []))
    return rows


def load_world(name: str) -> list[Row]:
    with (WORLD / f"{name}.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [Row(r["text"], r["family"], list(r["secrets"]), list(r["public"])) for r in rows]


def score(redact: Redactor, rows: list[Row]) -> Scores:
    caught = total = 0
    per_family: dict[str, tuple[int, int]] = {}
    false_positives: list[str] = []
    public_altered = public_lines = 0
    missed: list[tuple[str, str]] = []
    for row in rows:
        out = redact(row.text)
        if row.secrets:
            left = any_leaked(row.secrets, row.text, out)
            total += len(row.secrets)
            caught += len(row.secrets) - len(left)
            hit, seen = per_family.get(row.family, (0, 0))
            per_family[row.family] = (hit + (not left), seen + 1)
            if left:
                missed.append((row.family, row.text))
        altered = public_altered_in(row.public, out)
        public_lines += bool(row.secrets and row.public)
        public_altered += bool(altered)
        if (not row.secrets and out != row.text) or altered:
            false_positives.append(row.text)
    negatives = sum(not row.secrets for row in rows)
    return Scores(
        recall=caught / max(total, 1),
        secrets=total,
        per_family=dict(sorted(per_family.items())),
        false_positive_rate=len(false_positives) / max(negatives + public_lines, 1),
        false_positives=false_positives,
        public_altered=public_altered,
        missed=missed,
    )


def throughput(redact: Redactor, texts: list[str], minimum: int) -> tuple[int, float, float, float]:
    """Lines per second over at least ``minimum`` lines (the set repeated), best of 3 runs, by
    the wall clock and by this process's CPU time, and the 1-minute load average then.

    The best run is the least disturbed by other work on the machine. On a shared machine the
    wall figure falls with the load while the CPU figure says what the redactor itself costs;
    both are printed, with the load, so neither is read without the other.
    """
    lines = texts * -(-minimum // len(texts))
    best = best_cpu = float("inf")
    for _ in range(3):
        start, start_cpu = time.perf_counter(), time.process_time()
        for text in lines:
            redact(text)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return len(lines), len(lines) / best, len(lines) / max(best_cpu, 1e-9), load


def ours(text: str) -> str:
    return redact_text(text)[0]


def reference_only(text: str) -> str:
    return _redact(text, _REFERENCE_RULES)[0] if text.strip() else text


def detect_secrets_redactor() -> Redactor:
    """Redacts what detect-secrets 1.5 reports, with its entropy limits re-applied.

    ``scan_line`` runs in eager mode, where the entropy plugins return every token; the
    limit is applied here as the peer research (section 4.3) describes. The default settings
    (all plugins and filters) stay entered for the whole run, its fastest library use.
    """
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.core.scan import scan_line
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
    from detect_secrets.settings import default_settings, get_plugins

    _KEEP_OPEN.enter_context(default_settings())
    by_class = {type(plugin).__name__: plugin for plugin in get_plugins()}
    by_type = {
        secret_type: by_class.get(cls.__name__)
        for secret_type, cls in get_mapping_from_secret_type_to_class().items()
    }

    def redact(text: str) -> str:
        found: set[str] = set()
        for line in text.splitlines() or [text]:
            for secret in scan_line(line):
                value = secret.secret_value or ""
                plugin = by_type.get(secret.type)
                if isinstance(plugin, HighEntropyStringsPlugin) and (
                    plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit
                ):
                    continue
                if value:
                    found.add(value)
        for value in sorted(found, key=len, reverse=True):
            text = text.replace(value, "[REDACTED]")
        return text

    return redact


def gitleaks_redactor() -> Redactor:
    """Redacts what gitleaks' default rules find, with their keywords, entropy and allowlists.

    Go's mid-pattern ``(?i)`` needs the `regex` module (V1 flags); ``\\z`` becomes ``\\Z``.
    """
    import math
    import tomllib
    from collections import Counter

    import regex

    config = tomllib.loads((DATA / "gitleaks.toml").read_text(encoding="utf-8"))

    def compiled(pattern: str) -> regex.Pattern[str]:
        return regex.compile(pattern.replace("\\z", "\\Z"), flags=regex.V1)

    def entropy(value: str) -> float:
        counts = Counter(value)
        return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())

    global_allow = [compiled(p) for p in config["allowlist"].get("regexes", [])]
    global_stop = [w.lower() for w in config["allowlist"].get("stopwords", [])]
    rules = []
    for rule in config["rules"]:
        if "regex" not in rule:
            continue
        allows = [
            (a.get("regexTarget", "secret"), [compiled(p) for p in a.get("regexes", [])],
             [w.lower() for w in a.get("stopwords", [])])
            for a in rule.get("allowlists", [])
        ]  # fmt: skip
        rules.append(
            (compiled(rule["regex"]), [k.lower() for k in rule.get("keywords", [])],
             rule.get("entropy", 0.0), rule.get("secretGroup", 0), allows)
        )  # fmt: skip

    def allowed(secret: str, match: str, allows: list[Any]) -> bool:
        low = secret.lower()
        if any(p.search(secret) for p in global_allow) or any(w in low for w in global_stop):
            return True
        for target, patterns, stops in allows:
            text = match if target == "match" else secret
            if any(p.search(text) for p in patterns) or any(w in low for w in stops):
                return True
        return False

    def redact(text: str) -> str:
        folded = text.lower()
        found: set[str] = set()
        for pattern, keywords, minimum, group, allows in rules:
            if keywords and not any(k in folded for k in keywords):
                continue
            for match in pattern.finditer(text):
                chosen = group or next((i for i, g in enumerate(match.groups(), 1) if g), 0)
                secret = match.group(chosen) or ""
                if not secret or (minimum and entropy(secret) < minimum):
                    continue
                if not allowed(secret, match.group(0), allows):
                    found.add(secret)
        for value in sorted(found, key=len, reverse=True):
            text = text.replace(value, "[REDACTED]")
        return text

    return redact


def peers(enabled: bool) -> list[tuple[str, Redactor, int]]:
    """The peers that are installed; each is measured on fewer lines, being far slower."""
    found: list[tuple[str, Redactor, int]] = []
    if not enabled:
        return found
    try:
        found.append(
            (
                "detect-secrets 1.5 (all plugins, entropy re-applied)",
                detect_secrets_redactor(),
                1_500,
            )
        )
    except ImportError as exc:
        print(f"detect-secrets not measured: {exc}")
    try:
        found.append(("gitleaks 8.30 default rules (regex module)", gitleaks_redactor(), 1_500))
    except ImportError as exc:
        print(f"gitleaks rules not measured: {exc}")
    return found


def measure_set(
    name: str,
    rows: list[Row],
    redactors: list[tuple[str, Redactor, int]],
    *,
    families: bool,
    show_lines: bool,
    holdout: bool = False,
) -> None:
    """Prints one set's figures; ``show_lines`` False keeps the set's text off the output, and
    ``holdout`` keeps it to the aggregate lines (no family names, no per-family counts)."""
    positives = [row for row in rows if row.secrets]
    print(f"\n##### {name}: {len(positives)} positive lines over "
          f"{len({r.family for r in positives})} families, {len(rows) - len(positives)} "
          "negative lines")  # fmt: skip
    texts = [row.text for row in rows]
    for title, redact, minimum in redactors:
        scores = score(redact, rows)
        lines, rate, cpu_rate, load = throughput(redact, texts, minimum)
        ours_ = title.startswith("Decision Journal")
        flag = "" if ours_ else "  "
        print(f"== {title}")
        print(f"{flag}recall                {scores.recall:.4f} of {scores.secrets} secrets   "
              f"(target >= {TARGETS['recall']})")  # fmt: skip
        fpr, count = scores.false_positive_rate, len(scores.false_positives)
        limit = TARGETS["false_positive_rate"]
        print(f"{flag}false-positive rate   {fpr:.4f} ({count} lines, {scores.public_altered} "
              f"with a public substring altered)   (target <= {limit})")  # fmt: skip
        print(f"{flag}throughput            {rate:,.0f} lines/s over {lines:,} lines "
              f"({cpu_rate:,.0f} lines per CPU second, load {load:.1f})   "
              f"(target >= {TARGETS['lines_per_second']:,})")  # fmt: skip
        if not ours_ or holdout:
            continue
        leaks = {f: v for f, v in scores.per_family.items() if f in LEAK_FAMILIES}
        if leaks:
            print("  families of the leaks structural detection was built for (caught/sentences)")
            for family, (hit, total) in leaks.items():
                mark = "" if hit >= total - 1 else "   < 5 of 6"
                print(f"    {family:32s} {hit}/{total}{mark}")
        missed = {f: (h, t) for f, (h, t) in scores.per_family.items() if h < t}
        shown = scores.per_family if families else missed
        print("  families with a sentence missed" if not families else "  every family")
        for family, (hit, total) in shown.items():
            print(f"    {family:32s} {hit}/{total}")
        if show_lines:
            for family, text in scores.missed:
                print(f"  missed [{family}]: {text[:160]!r}")
            for text in scores.false_positives:
                print(f"  false positive: {text[:160]!r}")


SETS = {
    "tuning": "project tuning set",
    "heldout": "project held-out set (never tuned against)",
    "world-a": "world-a (independent author, tuning)",
    "world-b": "world-b (independent author, tuning)",
    "world-holdout": "world-holdout (independent author, NEVER tuned against: figures only)",
    "world-c": "world-c (second independent author, tuning)",
    "world-holdout2": (
        "world-holdout2 (second independent author, NEVER tuned against: figures only)"
    ),
    "world-d": "world-d (third independent author, tuning)",
    "world-holdout3": (
        "world-holdout3 (third independent author, NEVER tuned against: figures only)"
    ),
}
HOLDOUTS = frozenset({"world-holdout", "world-holdout2", "world-holdout3"})
"""Sets nobody tunes against: the bench prints their aggregate figures only, never a line,
a family name or a per-family count."""


def rows_of(key: str) -> list[Row]:
    if key == "tuning":
        return load_project("positives.jsonl", False) + load_project("negatives.jsonl", True)
    if key == "heldout":
        return load_project("heldout_positives.jsonl", False) + load_project(
            "heldout_negatives.jsonl", True
        )
    return load_world(key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--no-peers", action="store_true", help="skip detect-secrets and gitleaks")
    parser.add_argument("--families", action="store_true", help="print every family's recall")
    parser.add_argument(
        "--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}"
    )
    parser.add_argument(
        "--show-lines", action="store_true", help="print missed and wrongly changed lines "
        "(never for a holdout)"
    )  # fmt: skip
    args = parser.parse_args()
    redactors: list[tuple[str, Redactor, int]] = [
        ("Decision Journal (reference patterns + extra families)", ours, args.lines),
        ("baseline: the reference's six patterns alone", reference_only, args.lines),
        *peers(not args.no_peers),
    ]
    try:
        for key in args.sets.split(","):
            if key.startswith("world-") and not (WORLD / f"{key}.jsonl").exists():
                print(f"\n##### {SETS[key]}: not present ({WORLD.name}/{key}.jsonl)")
                continue
            measure_set(
                SETS[key],
                rows_of(key),
                redactors,
                families=args.families,
                show_lines=args.show_lines and key not in HOLDOUTS,
                holdout=key in HOLDOUTS,
            )
    finally:
        _KEEP_OPEN.close()


if __name__ == "__main__":
    main()
