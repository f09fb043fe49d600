"""Families beyond the reference: vendor keys, prose passwords, short assignments, headers;
their placeholders and near-misses; and the held-out corpus made by a separate generator."""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.redaction_scoring import only_public
from core.record.redaction import EMPTY_REPORT, looks_sensitive, redact_text

DATA = Path(__file__).resolve().parents[2] / "data" / "redaction"
R = random.Random(20261201)
AN = string.ascii_letters + string.digits
URLSAFE = AN + "-_"
HEX = "0123456789abcdef"


def draw(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def load(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


H32, H40 = draw(HEX, 32), draw(HEX, 40)
AZURE_KEY = base64.b64encode(bytes(R.randrange(256) for _ in range(64))).decode()
BASIC = base64.b64encode(b"deploy:Kq7!vR2pLx").decode()

# (text, the exact secret that must vanish, the family named in the report)
CASES = [
    (
        f"SENDGRID_API_KEY=SG.{'Qw3rTy7uIo1pAs5dFg9hJk'}.{'Lz2xC4vB6nM8qW1eR3tY5uI7oP9aS2dF4gH6jK8lZ0x'}",
        "SG.Qw3rTy7uIo1pAs5dFg9hJk",
        "sendgrid_api_key",
    ),
    (f"TWILIO_AUTH_TOKEN={H32}", H32, "twilio_auth_token"),
    (
        "bot 7312894055:AAHk3Lq9ZxV2mN8pR4tY6uW1sD5fG7hJ0kQ talks to the channel",
        "7312894055:AAHk3Lq9ZxV2mN8pR4tY6uW1sD5fG7hJ0kQ",
        "telegram_bot_token",
    ),
    (
        f"DefaultEndpointsProtocol=https;AccountName=ledger;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net",
        AZURE_KEY,
        "azure_storage_key",
    ),
    (
        "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7K2p.Xq9vLm3RtY8uWz1sD4fG6hJ0kL2aQ5eR7tYu9i the bot token",
        "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7K2p.Xq9vLm3RtY8uWz1sD4fG6hJ0kL2aQ5eR7tYu9i",
        "discord_bot_token",
    ),
    (
        f"https://discord.com/api/webhooks/918273645501928374/{draw(URLSAFE, 68)}",
        "918273645501928374/",
        "discord_webhook",
    ),
    (f"MAILGUN_API_KEY=key-{H32}", f"key-{H32}", "mailgun_api_key"),
    (f"DD_API_KEY={H32}", H32, "datadog_api_key"),
    (f"datadog application key: {H40}", H40, "datadog_app_key"),
    (f"shpat_{H32} for the storefront", f"shpat_{H32}", "shopify_token"),
    (f"Authorization: Basic {BASIC}", BASIC, "basic_auth"),
    (
        "curl -u deploy:Wn8!xQ2z https://artifacts.corp.net/upload",
        "Wn8!xQ2z",
        "command_line_secret",
    ),
    ("the password is hunter2xyz!", "hunter2xyz!", "password_in_prose"),
    ("the password for the build box is Falcon1999# today", "Falcon1999#", "password_in_prose"),
    ("login root / Winter2024!", "Winter2024!", "login_credentials"),
    ("DB_PASSWORD=Tr0ub4dor549", "Tr0ub4dor549", "secret_assignment"),
    (
        "Server=db;User Id=app;Password=aX9#kLm2;",
        "aX9#kLm2",
        "secret_assignment",
    ),
    (f"dop_v1_{draw(HEX, 64)}", "dop_v1_", "digitalocean_token"),
    (f"hvs.{draw(URLSAFE, 90)}", "hvs.", "vault_token"),
    (f"glsa_{draw(AN, 32)}_{draw(HEX, 8)}", "glsa_", "grafana_token"),
    (f"NRAK-{draw(string.ascii_uppercase + string.digits, 27)}", "NRAK-", "new_relic_key"),
    (f"lin_api_{draw(AN, 40)}", "lin_api_", "linear_api_key"),
    (f"gsk_{draw(AN, 52)}", "gsk_", "groq_api_key"),
    (f"dckr_pat_{draw(URLSAFE, 27)}", "dckr_pat_", "docker_hub_token"),
    (
        f"//registry.npmjs.org/:_authToken=5d1c9f3e-8a2b-4c7d-9e6f-{draw(HEX, 12)}",
        "5d1c9f3e-8a2b",
        "npm_auth_token",
    ),
    (f"SIGNING_KEY={draw(AN, 32)}", "SIGNING_KEY=[REDACTED", "secret_assignment"),
    (f"WIDGET_KEY={draw(AN, 31)}7", "WIDGET_KEY=[REDACTED", "generic_api_key"),
    # prefix-anchored families of gitleaks' default rules and detect-secrets' plugins
    (f"ADOBE_CLIENT_SECRET p8e-{draw(AN, 32)}", "p8e-", "adobe_client_secret"),
    (f"clickhouse 4b1d{draw(AN, 38)}", "4b1d", "clickhouse_api_secret"),
    (f"fio-u-{draw(URLSAFE, 64)}", "fio-u-", "frameio_token"),
    (
        f"Cookie: _gitlab_session={draw(HEX, 32)}",
        "Cookie: _gitlab_session=[REDACTED",
        "gitlab_session_cookie",
    ),
    (f"s-s4t2ud-{draw(HEX, 64)}", "s-s4t2ud-", "intra42_client_secret"),
    (f"{draw(AN, 6)}_{draw(AN, 29)}_mmk", "_mmk", "maxmind_license_key"),
    (f"oc login --token=sha256~{draw(URLSAFE, 43)}", "sha256~", "openshift_token"),
    (f"dnkey-{draw(AN, 26)}-{draw(AN, 52)}", "dnkey-", "defined_networking_token"),
    (f"tk-us-{draw(URLSAFE, 48)}", "tk-us-", "scalingo_token"),
    (f"sm_pat_{draw(AN, 16)}", "sm_pat_", "settlemint_token"),
    (f"AQVN{draw(URLSAFE, 36)}", "AQVN", "yandex_token"),
    (
        f"https://api.softlayer.com/soap/v3/{draw(HEX, 64)}",
        "https://api.softlayer.com/soap/v3/[REDACTED",
        "softlayer_api_key",
    ),
    (
        f"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{draw(AN, 60)}",
        "bedrock-",
        "aws_bedrock_api_key",
    ),
    (f"LOB_API_KEY: live_{draw(HEX, 35)}", "live_", "lob_api_key"),
]


@pytest.mark.parametrize(("text", "secret", "family"), CASES)
def test_each_family_is_redacted_under_its_own_name(text: str, secret: str, family: str) -> None:
    out, report = redact_text(text)
    if secret.endswith("[REDACTED"):
        assert out.startswith(secret)
    else:
        assert secret not in out
    assert family in report.patterns
    assert looks_sensitive(text)


def test_the_text_around_a_secret_stays_readable() -> None:
    assert redact_text("DB_PASSWORD=Tr0ub4dor549 for staging")[0] == (
        "DB_PASSWORD=[REDACTED:secret_assignment] for staging"
    )
    assert redact_text("the password is Falcon1999#.")[0] == (
        "the password is [REDACTED:password_in_prose]."
    )


PLACEHOLDERS_AND_NEAR_MISSES = [
    "AKIAIOSFODNN7EXAMPLE",
    "DB_PASSWORD=${DB_PASSWORD}",
    "password: changeme",
    "the password is changeme123 in the chart defaults",
    "export PGPASSWORD=$PGPASSWORD",
    "password_min_length = 12",
    "max_tokens=4096",
    "The password field is hashed with argon2id before it reaches the database.",
    "We rotate the password every 90 days.",
    "the password is stored in Vault under secret/data/payments",
    "Admin login is admin / <set at install time>.",
    "Default credentials for local MinIO are minioadmin/minioadmin.",
    "The credentials file lives at ~/.aws/credentials.",
    "Basic auth is disabled on the admin panel.",
    'curl -u "$CI_USER:$CI_TOKEN" https://artifacts.corp.net',
    f"The build cache key is {H40}, a hash of the lockfile.",
    f"Trace id {H32} links the slow request to the query.",
    "Request 123e4567-e89b-12d3-a456-426614174000 was retried.",
    "sha256:" + "ab" * 32,
    "Twilio message SMabcdef0123456789abcdef0123456789 was delivered.",
    "Telegram channel -1001234567890 gets the release notes.",
    "publishable_key = pk_live_51H8xQ2eZvKYlo2C0abc is safe in the browser",
    "Login via SSO redirects to /auth/callback.",
    "The keystore password is read from KEYSTORE_PASSWORD at startup.",
    "Password reset links expire after 15 minutes.",
    "Bumped the bcrypt cost factor from 10 to 12.",
    "passphrase: correct horse battery staple is the xkcd example",
    "secret: ${{ secrets.DEPLOY_KEY }}",
    "api_key = os.environ['API_KEY']",
    "DD_API_KEY is read from the node's secret mount",
    "datadog dashboard 4821 tracks checkout latency",
]


@pytest.mark.parametrize("text", PLACEHOLDERS_AND_NEAR_MISSES)
def test_placeholders_hashes_and_prose_stay(text: str) -> None:
    assert redact_text(text) == (text, EMPTY_REPORT)


def password() -> st.SearchStrategy[str]:
    word = st.sampled_from(["Winter", "Falcon", "Orchid", "Copper", "Harbor", "Maple"])
    year = st.integers(min_value=1970, max_value=2039).map(str)
    mark = st.sampled_from("!@#$%&*")
    return st.tuples(word, year, mark).map("".join)


@settings(max_examples=200, deadline=None)
@given(
    password(),
    st.sampled_from(
        [
            "the password is {v}",
            "password for the vpn is {v}",
            "DB_PASSWORD={v}",
            "export REDIS_PASS={v}",
            "login admin / {v}",
            "credentials: root / {v}",
            'smtp_password: "{v}"',
            "I set the admin password to {v}",
        ]
    ),
    st.sampled_from(["", "Decided: ", "ticket OPS-12: ", "> "]),
    st.sampled_from(["", ".", " for now", "\nnext line"]),
)
def test_typed_passwords_never_survive(value: str, frame: str, before: str, after: str) -> None:
    out = redact_text(before + frame.format(v=value) + after)[0]
    assert value not in out


def test_dataset_has_the_issue_size() -> None:
    positives, negatives = load("positives.jsonl"), load("negatives.jsonl")
    families = {f for row in positives for f in row["families"]}
    assert len(positives) >= 600
    assert len(negatives) >= 600
    assert len(families) >= 45


def test_held_out_corpus_meets_its_targets() -> None:
    """The held-out set (tests/data/redaction/generate_heldout.py) is never tuned against;
    this checks the issue's targets, recall >= 0.98 and false positives <= 0.005, hold."""
    positives, negatives = load("heldout_positives.jsonl"), load("heldout_negatives.jsonl")
    positives = [row for row in positives if not only_public([row["family"]])]
    assert len(positives) >= 600 and len(negatives) >= 600
    caught = sum(
        not any(value in redact_text(row["text"])[0] for value in row["secrets"])
        for row in positives
    )
    changed = sum(redact_text(row["text"])[0] != row["text"] for row in negatives)
    assert caught / len(positives) >= 0.98
    assert changed / len(negatives) <= 0.005


@pytest.mark.parametrize(
    "text",
    [
        '<entry key="jetbrains.mps.v8_elimination" value="executed" />',
        "key=shipping-rates is a query parameter name here",
        "cache_key = tenant_42.sku_7781.eu-west-1",
        "partition_key: Zq3nR8vXbL2mK9pW4tY7hC6jD1fG5sA0",
    ],
)
def test_generic_keys_need_a_named_key_and_a_random_value(text: str) -> None:
    assert redact_text(text) == (text, EMPTY_REPORT)


def test_a_bare_key_with_a_generated_value_is_a_secret() -> None:
    """`?key=…` in a URL and `(key=…)` in a log line carry API keys; a random value decides."""
    for text in (
        "GET https://maps.example.net/v1/forecast?lat=37.5&key=Zq3nR8vXbL2mK9pW4tY7hC6jD1fG5sA0",
        "401 Unauthorized (key=Zq3nR8vXbL2mK9pW4tY7hC6jD1fG5sA0)",
    ):
        assert "Zq3nR8vXbL2mK9pW4tY7hC6jD1fG5sA0" not in redact_text(text)[0]
