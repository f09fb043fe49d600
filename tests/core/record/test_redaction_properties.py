"""Properties of redaction that must hold for any text, not only the examples we thought of."""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import re
import string
import uuid
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from core.record.redaction import (
    _ANY_KEYWORD,
    _KEYWORD_GATES,
    _RULES,
    _is_filler,
    _looks_like_credential,
    _redact,
    looks_sensitive,
    none_sensitive,
    redact_text,
)

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
DIGITS = string.digits


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(rng: random.Random) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(
        json.dumps({"sub": pick(rng, ALNUM, 12), "iat": rng.randint(1, 2**31)}).encode()
    )
    return f"{header}.{payload}.{b64url(rng.randbytes(32))}"


def pem(rng: random.Random, label: str) -> tuple[str, str]:
    lines = [pick(rng, B64, 64) for _ in range(3)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----", lines[1]


HEX = "0123456789abcdef"


def password(rng: random.Random) -> str:
    """A password as people pick them: a word, a year and a symbol."""
    word = rng.choice(["Winter", "Falcon", "Orchid", "Copper", "Harbor"])
    return f"{word}{rng.randint(1970, 2039)}{rng.choice('!@#$%&*')}"


# Each maker returns (text to embed, the part that must not survive redaction).
Maker = Callable[[random.Random], tuple[str, str]]


def same(make: Callable[[random.Random], str]) -> Maker:
    def both(rng: random.Random) -> tuple[str, str]:
        value = make(rng)
        return value, value

    return both


def after(prefix: str, make: Callable[[random.Random], str], suffix: str = "") -> Maker:
    def embed(rng: random.Random) -> tuple[str, str]:
        value = make(rng)
        return f"{prefix}{value}{suffix}", value

    return embed


MAKERS: dict[str, Maker] = {
    "openai_api_key": same(lambda r: "sk-" + pick(r, ALNUM, 48)),
    "openai_project_key": same(lambda r: "sk-proj-" + pick(r, B64URL, 80)),
    "anthropic_api_key": same(lambda r: "sk-ant-api03-" + pick(r, B64URL, 93) + "AA"),
    "github_token": same(lambda r: r.choice(["ghp_", "gho_", "ghs_"]) + pick(r, ALNUM, 36)),
    "github_pat": same(lambda r: "github_pat_11" + pick(r, ALNUM, 20) + "_" + pick(r, ALNUM, 59)),
    "private_key": lambda r: pem(r, r.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"])),
    "pgp_private_key": lambda r: pem(r, "PGP PRIVATE KEY BLOCK"),
    "bearer_token": after("Authorization: Bearer ", lambda r: pick(r, ALNUM, 40)),
    "signed_url_secret": after("https://cdn.acme.net/f.zip?sig=", lambda r: pick(r, B64URL, 43)),
    "password_assignment": after("password=", lambda r: pick(r, ALNUM + "!#$&*+.~^|@:;,?/=", 24)),
    "quoted_password_assignment": after(
        '"password": "', lambda r: pick(r, ALNUM + "!#$&*+.~^|@:;,?/=", 24), '"'
    ),
    "aws_access_key_id": same(lambda r: "AKIA" + pick(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    "aws_secret_access_key": after("aws_secret_access_key = ", lambda r: pick(r, B64, 40)),
    "jwt": same(jwt),
    "url_credentials": after("postgres://svc:", lambda r: pick(r, ALNUM + "!*_.~-", 16), "@db/app"),
    "slack_token": same(
        lambda r: f"xoxb-{pick(r, DIGITS, 12)}-{pick(r, DIGITS, 13)}-{pick(r, ALNUM, 24)}"
    ),
    "slack_webhook": after(
        "https://hooks.slack.com/services/",
        lambda r: f"T0{pick(r, ALNUM, 8)}/B0{pick(r, ALNUM, 8)}/{pick(r, ALNUM, 24)}",
    ),
    "stripe_key": same(lambda r: r.choice(["sk_live_", "rk_live_"]) + pick(r, ALNUM, 24)),
    "google_api_key": same(lambda r: "AIza" + pick(r, B64URL, 35)),
    "google_oauth_client_secret": same(lambda r: "GOCSPX-" + pick(r, B64URL, 28)),
    "npm_token": same(lambda r: "npm_" + pick(r, ALNUM, 36)),
    "pypi_token": same(lambda r: "pypi-AgEIcHlwaS5vcmc" + pick(r, B64URL, 80)),
    "gitlab_token": same(lambda r: r.choice(["glpat-", "gldt-", "glrt-"]) + pick(r, B64URL, 20)),
    "huggingface_token": same(lambda r: "hf_" + pick(r, string.ascii_letters, 34)),
    # Families beyond the first set, several behind narrowed keyword gates.
    "sendgrid_api_key": same(lambda r: f"SG.{pick(r, B64URL, 22)}.{pick(r, B64URL, 43)}"),
    "twilio_auth_token": after("TWILIO_AUTH_TOKEN=", lambda r: pick(r, HEX, 32)),
    "telegram_bot_token": same(lambda r: f"{r.randint(10**8, 10**10 - 1)}:AA{pick(r, B64URL, 33)}"),
    "azure_storage_key": after("AccountKey=", lambda r: base64.b64encode(r.randbytes(64)).decode()),
    "azure_storage_context": after(
        "storage account key = ", lambda r: base64.b64encode(r.randbytes(64)).decode()
    ),
    "discord_bot_token": same(
        lambda r: (
            r.choice("MNO")
            + pick(r, ALNUM, 23)
            + "."
            + pick(r, B64URL, 6)
            + "."
            + pick(r, B64URL, 38)
        )
    ),
    "discord_webhook": after(
        "https://discord.com/api/webhooks/",
        lambda r: pick(r, DIGITS, 18) + "/" + pick(r, B64URL, 68),
    ),
    "mailgun_api_key": same(lambda r: "key-" + pick(r, HEX, 32)),
    "mailchimp_api_key": same(lambda r: pick(r, HEX, 32) + "-us" + str(r.randint(1, 21))),
    "datadog_api_key": after("datadog api key ", lambda r: pick(r, HEX, 32)),
    "datadog_app_key": after("DD_APP_KEY=", lambda r: pick(r, HEX, 40)),
    "shopify_token": same(lambda r: "shpat_" + pick(r, HEX, 32)),
    "square_token": same(lambda r: "EAAA" + pick(r, B64URL, 60)),
    "airtable_token": same(lambda r: "pat" + pick(r, ALNUM, 14) + "." + pick(r, HEX, 64)),
    "dropbox_token": same(lambda r: "sl." + pick(r, B64URL, 140)),
    "launchdarkly_key": same(lambda r: "sdk-" + str(uuid.UUID(int=r.getrandbits(128), version=4))),
    "databricks_token": same(lambda r: "dapi" + pick(r, "abcdefgh" + DIGITS, 32)),
    "nuget_api_key": same(lambda r: "oy2" + pick(r, string.ascii_lowercase + DIGITS, 43)),
    "basic_auth": after(
        "Authorization: Basic ",
        lambda r: base64.b64encode(f"ci:{password(r)}".encode()).decode(),
    ),
    "command_line_secret": after("curl -u ci:", password, " https://x.corp/upload"),
    "password_in_prose": after("the password is ", password),
    "login_credentials": after("login root / ", password),
    "secret_assignment": after("DB_PASSWORD=", password),
    # The generic rule needs a digit beside the letters (`redaction_prose._generic_key`), so a
    # CamelCase name after KEY= stays; a random 32-character key has one 99.6% of the time.
    "generic_api_key": after("WIDGET_KEY=", lambda r: pick(r, ALNUM, 31) + pick(r, DIGITS, 1)),
}


def realistic(family: str, secret: str) -> bool:
    """Random draws that happen to look like filler are not what real keys look like."""
    if family in {"password_assignment", "quoted_password_assignment"}:
        return _looks_like_credential(secret)
    if family in {"basic_auth", "command_line_secret", "password_in_prose", "login_credentials"}:
        return True
    if family == "secret_assignment":
        return True
    if family == "aws_secret_access_key":
        has = [
            any(c in group for c in secret)
            for group in (string.ascii_uppercase, string.ascii_lowercase, DIGITS + "/+")
        ]
        return all(has) and not _is_filler(secret)
    if family in {"jwt", "private_key", "pgp_private_key"}:
        return True
    return not _is_filler(secret)


@st.composite
def secrets(draw: st.DrawFn) -> tuple[str, str, str]:
    family = draw(st.sampled_from(sorted(MAKERS)))
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32)))
    fragment, secret = MAKERS[family](rng)
    while not realistic(family, secret):
        fragment, secret = MAKERS[family](rng)
    return family, fragment, secret


FRAGMENTS = [
    "sk-", "ghp_", "github_pat_", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----", "Bearer ", "token=", "sig=",
    "password:", "secret=", "api_key =", "'", '"', "=", ":", "@", "://", "postgres://u:",
    "aws_secret_access_key=", "AKIA", "eyJ", ".", "xoxb-", "[REDACTED:jwt]", "\n", " ",
    "\u017f", "\u212a", "키", "${", "example", "SG.", "AC", "SK", "AccountKey=", "storage key=",
    "DD_API_KEY=", "datadog key ", "twilio token ", "Basic ", "curl -u ", "login ",
    "credentials: ", "password is ", "DB_PASS=", "key-", "-us1", "dapi", "EAAA", "sl.",
    "discord.com/api/webhooks/", "sdk-", "pat", "oy2", "Q~", "secret_", "A3-",
]  # fmt: skip
pieces = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=ALNUM + "-_./+=%", min_size=1, max_size=45),
    st.sampled_from(FRAGMENTS),
    secrets().map(lambda s: s[1]),
)
adversarial_text = st.lists(pieces, max_size=8).map("".join)
any_text = st.text(alphabet=st.characters(exclude_categories=()), max_size=200)


@settings(max_examples=400, deadline=None)
@given(adversarial_text)
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once = redact_text(text)[0]
    assert redact_text(once)[0] == once


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_never_raises_and_agrees_with_looks_sensitive(text: str) -> None:
    out, report = redact_text(text)
    assert looks_sensitive(text) == (out != text)
    assert report.redacted == (out != text)
    assert len(set(report.patterns)) == len(report.patterns)


@settings(max_examples=300, deadline=None)
@given(adversarial_text)
def test_looks_sensitive_agrees_with_redact_text(text: str) -> None:
    assert looks_sensitive(text) == (redact_text(text)[0] != text)


@settings(max_examples=500, deadline=None)
@given(secrets(), st.text(max_size=40), st.text(max_size=40))
def test_no_generated_secret_survives_in_any_surrounding_text(
    secret: tuple[str, str, str], before: str, after_: str
) -> None:
    family, fragment, value = secret
    out, report = redact_text(f"{before} {fragment} {after_}")
    assert value not in out, family
    assert report.redacted


UNGATED = tuple(dataclasses.replace(rule, keywords=("",), confirm=None) for rule in _RULES)


@settings(max_examples=400, deadline=None)
@given(adversarial_text)
def test_keyword_gates_never_change_the_result(text: str) -> None:
    assert _redact(text, _RULES) == _redact(text, UNGATED)


gate_text = st.lists(
    pieces | st.sampled_from(["task-", "risk-", "SK-", "\u017f\u212a-", "sk-" + "a" * 19, "K" * 5]),
    max_size=8,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(gate_text)
def test_the_early_exit_only_skips_text_no_rule_changes(text: str) -> None:
    """`redact_text` returns at once when no gate keyword is found (`sk-` only with 20 key
    characters after it); no rule, run without any gate, may change such text."""
    if _ANY_KEYWORD.search(text.casefold()) is None:
        assert _redact(text, UNGATED) == (text, [])


_FLAT_GATE = re.compile(
    "|".join(
        re.escape(keyword) + _KEYWORD_GATES.get(keyword, "")
        for keyword in sorted({k for rule in _RULES for k in rule.keywords})
    )
)
"""The early exit as a plain alternation, the oracle for its prefix-tree spelling."""
keyword_text = st.lists(
    st.sampled_from(sorted({k for rule in _RULES for k in rule.keywords}))
    | st.sampled_from(["gl", "ghp", "sk", "acc", "a", "-", "_", "0" * 20, "x"])
    | pieces,
    max_size=8,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(keyword_text)
def test_the_keyword_tree_finds_what_the_plain_alternation_finds(text: str) -> None:
    folded = text.casefold()
    assert (_ANY_KEYWORD.search(folded) is None) == (_FLAT_GATE.search(folded) is None)


@settings(max_examples=400, deadline=None)
@given(st.lists(keyword_text | gate_text, max_size=5))
def test_none_sensitive_only_when_no_text_looks_sensitive(texts: list[str]) -> None:
    if none_sensitive(texts):
        assert not any(map(looks_sensitive, texts))
    else:
        assert any(_ANY_KEYWORD.search(text.casefold()) for text in texts)
