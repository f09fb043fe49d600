# ruff: noqa: E501  # the sentences are data; wrapping them would make them hard to read
"""Writes positives.jsonl and negatives.jsonl, the labelled set for redaction tests and bench.

The lines read like the rationale a developer types when recording a decision. Every secret is
synthetic: random characters in the vendor's published format, drawn from a seeded generator,
so the files are reproducible and contain no real credential.

Each positive line is ``{"text", "families", "secrets"}``: ``families`` lists the pattern names
that should fire, ``secrets`` the exact substrings that must be gone after redaction. Each
negative line is ``{"text", "families": []}`` and must come out unchanged.

Run ``python tests/data/redaction/generate.py`` after editing; it rewrites both files.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import string
import uuid
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261129
rng = random.Random(SEED)

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
# Words that make a value look like filler; a random key that happens to spell one is redrawn.
FILLER = (
    "example", "xxxx", "your", "placeholder", "dummy", "fake", "sample", "redacted", "changeme",
    "abcdefgh", "12345678", "todo", "test_secret", "insert_", "uuid", "hmac", "generate",
    "config", "json", "args", "form", "self", "request", "getenv", "hashlib", "secrets",
)  # fmt: skip


def pick(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def clean(make: Callable[[], str]) -> str:
    """Draws until the value spells no filler word, as a real random key would not."""
    while True:
        value = make()
        if not any(word in value.lower() for word in FILLER):
            return value


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# --- Secret makers: each returns (fragment put in the sentence, substring that must vanish) ---


def openai_api_key() -> tuple[str, str]:
    key = clean(
        lambda: rng.choice(
            [
                f"sk-{pick(ALNUM, 20)}T3BlbkFJ{pick(ALNUM, 20)}",
                f"sk-{pick(ALNUM, 48)}",
                f"sk-svcacct-{pick(B64URL, 40)}T3BlbkFJ{pick(B64URL, 40)}",
            ]
        )
    )
    return key, key


def openai_project_key() -> tuple[str, str]:
    key = clean(lambda: f"sk-proj-{pick(B64URL, 58)}T3BlbkFJ{pick(B64URL, 58)}")
    return key, key


def anthropic_api_key() -> tuple[str, str]:
    key = clean(
        lambda: rng.choice(
            [
                f"sk-ant-api03-{pick(B64URL, 93)}AA",
                f"sk-ant-admin01-{pick(B64URL, 93)}AA",
            ]
        )
    )
    return key, key


def github_token() -> tuple[str, str]:
    key = clean(
        lambda: rng.choice(
            [
                f"ghp_{pick(ALNUM, 36)}",
                f"gho_{pick(ALNUM, 36)}",
                f"ghs_{pick(ALNUM, 36)}",
                f"ghu_{pick(ALNUM, 36)}",
                f"github_pat_11{pick(UPPER_ALNUM, 20)}_{pick(ALNUM, 59)}",
            ]
        )
    )
    return key, key


PEM_KINDS = {
    "RSA": "MIIEowIBAAKCAQEA",
    "EC": "MHcCAQEEI",
    "DSA": "MIIBuwIBAAKBgQ",
    "OPENSSH": "b3BlbnNzaC1rZXktdjEAAAAA",
    "ENCRYPTED": "MIIFHDBOBgkqhkiG9w0BBQ0w",
    "": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
}


def private_key() -> tuple[str, str]:
    kind = rng.choice([*PEM_KINDS, "PGP"])
    lines = [pick(B64, 64) for _ in range(rng.randint(3, 6))]
    lines[-1] = lines[-1][: rng.randint(20, 60)]
    if kind == "PGP":
        head, tail = "-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END PGP PRIVATE KEY BLOCK-----"
        lines[0] = "lQOYBG" + lines[0][6:]
        body = ["Version: GnuPG v2", "", *lines, "=" + pick(B64, 4)]
    else:
        label = f"{kind} PRIVATE KEY" if kind else "PRIVATE KEY"
        head, tail = f"-----BEGIN {label}-----", f"-----END {label}-----"
        lines[0] = PEM_KINDS[kind] + lines[0][len(PEM_KINDS[kind]) :]
        body = lines
    style = rng.random()
    if style < 0.15:  # pasted without its END line
        block = "\n".join([head, *body[:3]])
    elif style < 0.3:  # newlines lost in a chat paste
        block = " ".join([head, *body, tail])
    else:
        block = "\n".join([head, *body, tail])
    return block, lines[1]


def bearer_token() -> tuple[str, str]:
    token = clean(
        lambda: rng.choice(
            [
                pick(ALNUM, 40),
                f"{pick(ALNUM, 8)}.{pick(B64URL, 32)}",
                f"ya29.{pick(B64URL, 60)}",
                pick(HEX, 64),
            ]
        )
    )
    return f"{rng.choice(['Bearer', 'bearer', 'BEARER'])} {token}", token


def signed_url_secret() -> tuple[str, str]:
    value = clean(
        lambda: rng.choice(
            [
                pick(HEX, 64),
                pick(B64URL, 43),
                pick(ALNUM, 32) + "%3D",
            ]
        )
    )
    host = rng.choice(
        [
            "https://files.acme-cdn.net/exports/q3-report.pdf?expires=1767225600&sig=",
            "https://ledgerprod.blob.core.windows.net/backups/db.tar.gz?sv=2023-11-03&sr=b&sig=",
            "https://assets.s3.eu-west-1.amazonaws.com/build.zip?X-Amz-Date=20261128T101500Z"
            "&X-Amz-Expires=3600&X-Amz-Signature=",
            "https://api.partner-portal.io/v2/download?id=8812&token=",
            "https://dash.internal.tools/embed?access_token=",
            "https://media.videohost.net/v/9f2c?signature=",
        ]
    )
    return host + value, value


PASSWORD_KEYS = [
    "DB_PASSWORD=",
    "password: ",
    "REDIS_PASSWORD=",
    "pwd=",
    "secret = '",
    "client_secret=",
    "CLIENT_SECRET: ",
    "api_key=",
    "apiKey: ",
    "x-api-key: ",
    "ACCESS_KEY=",
    "admin_passwd=",
    "token: ",
    "smtp_password = ",
]
PASSWORD_CHARS = ALNUM + "!#$&*+-_.~^|@:;,?/="


QUOTED_KEYS = [
    '"password": "',
    "'db_password': '",
    '"apiKey":"',
    '"client_secret": "',
    '"token": "',
]


def password_value() -> str:

    def make() -> str:
        if rng.random() < 0.25:
            return pick(string.ascii_letters, rng.randint(22, 30))
        value = pick(PASSWORD_CHARS, rng.randint(16, 30))
        return value if any(c in string.digits + "!#$&*+.~^|@:;,?/=" for c in value) else make()

    value = clean(make)
    while not re.search(r"[a-z]", value) or not re.search(r"[A-Z]", value):
        value = clean(make)
    return value


def password_assignment() -> tuple[str, str]:
    key = rng.choice(PASSWORD_KEYS)
    value = password_value()
    closing = {"'": "'"}.get(key[-1], "")
    return f"{key}{value}{closing}", value


def quoted_password_assignment() -> tuple[str, str]:
    key = rng.choice(QUOTED_KEYS)
    value = password_value()
    closing = {'"': '"', "'": "'"}.get(key[-1], "")
    return f"{key}{value}{closing}", value


def aws_access_key_id() -> tuple[str, str]:
    key = clean(
        lambda: rng.choice(["AKIA", "AKIA", "ASIA"]) + pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    )
    return key, key


def aws_secret_value() -> str:
    def make() -> str:
        value = pick(B64, 40)
        ok = (
            re.search(r"[A-Z]", value)
            and re.search(r"[a-z]", value)
            and re.search(r"[0-9/+]", value)
        )
        return value if ok else make()

    return clean(make)


def aws_secret_access_key() -> tuple[str, str]:
    value = aws_secret_value()
    form = rng.choice(
        [
            "aws_secret_access_key = {v}",
            "AWS_SECRET_ACCESS_KEY={v}",
            '"SecretAccessKey": "{v}"',
            "the AWS secret key {v}",
            "aws_secret_access_key: {v}",
        ]
    )
    return form.format(v=value), value


def jwt() -> tuple[str, str]:
    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    payload = {
        "sub": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "iat": rng.randint(1_700_000_000, 1_760_000_000),
        "scope": rng.choice(["read:ledger", "admin", "orders:write", "openid profile"]),
    }
    payload["exp"] = payload["iat"] + 3600
    signature = rng.randbytes(rng.choice([32, 64, 256]))
    token = ".".join(
        [
            b64url(json.dumps(header, separators=(",", ":")).encode()),
            b64url(json.dumps(payload, separators=(",", ":")).encode()),
            b64url(signature),
        ]
    )
    return token, token


def url_credentials() -> tuple[str, str]:
    password = clean(lambda: pick(ALNUM + "!*_.~-", rng.randint(12, 24)))
    while not re.search(r"[0-9]", password):
        password = clean(lambda: pick(ALNUM + "!*_.~-", rng.randint(12, 24)))
    url = rng.choice(
        [
            "postgres://svc_ledger:{p}@db-prod.internal:5432/ledger",
            "postgresql://reporting:{p}@10.20.3.14:5432/warehouse",
            "redis://:{p}@cache-01.internal:6379/0",
            "amqp://orders:{p}@mq.internal:5672/orders",
            "https://ci-bot:{p}@git.corp-tools.net/platform/infra.git",
            "mongodb+srv://analytics:{p}@cluster0.q8xk2.mongodb.net/events",
            "mysql://wp_admin:{p}@mysql.shop.local:3306/wordpress",
            "ftp://backup:{p}@nas.home.arpa/backups",
        ]
    )
    return url.format(p=password), password


def slack_token() -> tuple[str, str]:
    digits = string.digits
    token = clean(
        lambda: rng.choice(
            [
                f"xoxb-{pick(digits, 12)}-{pick(digits, 13)}-{pick(ALNUM, 24)}",
                f"xoxp-{pick(digits, 12)}-{pick(digits, 12)}-{pick(digits, 13)}-{pick(HEX, 32)}",
                f"xapp-1-A0{pick(UPPER_ALNUM, 9)}-{pick(digits, 13)}-{pick(HEX, 64)}",
            ]
        )
    )
    return token, token


def slack_webhook() -> tuple[str, str]:
    secret = clean(lambda: pick(ALNUM, 24))
    url = f"https://hooks.slack.com/services/T0{pick(UPPER_ALNUM, 8)}/B0{pick(UPPER_ALNUM, 9)}/{secret}"
    return url, secret


def stripe_key() -> tuple[str, str]:
    key = clean(
        lambda: rng.choice(
            [
                f"sk_live_51{pick(ALNUM, 97)}",
                f"sk_live_{pick(ALNUM, 24)}",
                f"rk_live_51{pick(ALNUM, 97)}",
                f"sk_test_51{pick(ALNUM, 97)}",
                f"whsec_{pick(ALNUM, 32)}",
            ]
        )
    )
    return key, key


def google_api_key() -> tuple[str, str]:
    key = clean(lambda: f"AIzaSy{pick(B64URL, 33)}")
    return key, key


def google_oauth_client_secret() -> tuple[str, str]:
    key = clean(lambda: f"GOCSPX-{pick(B64URL, 28)}")
    return key, key


def npm_token() -> tuple[str, str]:
    key = clean(lambda: f"npm_{pick(ALNUM, 36)}")
    return key, key


def pypi_token() -> tuple[str, str]:
    key = clean(lambda: f"pypi-AgEIcHlwaS5vcmc{pick(B64URL, rng.randint(120, 170))}")
    return key, key


def gitlab_token() -> tuple[str, str]:
    key = clean(
        lambda: rng.choice(
            [
                f"glpat-{pick(B64URL, 20)}",
                f"glpat-{pick(B64URL, 27)}.01.{pick(string.ascii_lowercase + string.digits, 9)}",
                f"gldt-{pick(B64URL, 20)}",
                f"glrt-{pick(B64URL, 20)}",
                f"GR1348941{pick(B64URL, 20)}",
            ]
        )
    )
    return key, key


def huggingface_token() -> tuple[str, str]:
    key = clean(lambda: f"hf_{pick(string.ascii_letters, 34)}")
    return key, key


MAKERS: dict[str, Callable[[], tuple[str, str]]] = {
    fn.__name__: fn
    for fn in (
        openai_api_key, openai_project_key, anthropic_api_key, github_token, private_key,
        bearer_token, signed_url_secret, password_assignment, quoted_password_assignment,
        aws_access_key_id,
        aws_secret_access_key, jwt, url_credentials, slack_token, slack_webhook, stripe_key,
        google_api_key, google_oauth_client_secret, npm_token, pypi_token, gitlab_token,
        huggingface_token,
    )
}  # fmt: skip

# --- Families beyond the first set: vendor formats, prose passwords, short assignments --------

HEXL = "0123456789abcdef"
CROCKFORD_AGE = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def hexs(n: int) -> str:
    return pick(HEXL, n)


def uuid_text() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


# family -> (value maker, contexts the value is typed in; {v} is the value)
VENDOR_SHAPES: dict[str, tuple[Callable[[], str], tuple[str, ...]]] = {
    "sendgrid_api_key": (
        lambda: f"SG.{pick(B64URL, 22)}.{pick(B64URL, 43)}",
        ("{v}", "SENDGRID_API_KEY={v}"),
    ),
    "twilio_account_sid": (lambda: "AC" + hexs(32), ("{v}", "TWILIO_ACCOUNT_SID={v}")),
    "twilio_api_key": (lambda: "SK" + hexs(32), ("{v}", "the Twilio API key {v}")),
    "twilio_auth_token": (
        lambda: hexs(32),
        ("TWILIO_AUTH_TOKEN={v}", "Twilio auth token {v}", "twilio_token: {v}"),
    ),
    "telegram_bot_token": (
        lambda: f"{rng.randint(10**8, 10**10 - 1)}:AA{pick(B64URL, 33)}",
        ("{v}", "bot token {v}"),
    ),
    "azure_storage_key": (
        lambda: base64.b64encode(rng.randbytes(64)).decode(),
        (
            "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={v};EndpointSuffix=core.windows.net",
            "AccountKey={v}",
            "AZURE_STORAGE_ACCOUNT_KEY={v}",
        ),
    ),
    "azure_ad_client_secret": (
        lambda: pick(ALNUM, 3) + pick(string.digits, 1) + "Q~" + pick(ALNUM + "_~.-", 34),
        ("{v}", "client secret {v}"),
    ),
    "gcp_private_key_id": (lambda: hexs(40), ('"private_key_id": "{v}"', "private_key_id={v}")),
    "alibaba_access_key": (lambda: "LTAI" + pick(ALNUM, 20), ("{v}",)),
    "digitalocean_token": (lambda: rng.choice(["dop_v1_", "doo_v1_"]) + hexs(64), ("{v}",)),
    "heroku_api_key": (lambda: "HRKU-AA" + pick(B64URL, 58), ("{v}", "HEROKU_API_KEY={v}")),
    "cloudflare_origin_ca_key": (lambda: f"v1.0-{hexs(24)}-{hexs(146)}", ("{v}",)),
    "cloudflare_api_token": (
        lambda: pick(B64URL, 40),
        ("CLOUDFLARE_API_TOKEN={v}", "cloudflare token {v}"),
    ),
    "vault_token": (lambda: "hvs." + pick(B64URL, 90), ("{v}", "VAULT_TOKEN={v}")),
    "age_secret_key": (lambda: "AGE-SECRET-KEY-1" + pick(CROCKFORD_AGE, 58), ("{v}",)),
    "doppler_token": (lambda: "dp.st." + pick(ALNUM, 43), ("{v}",)),
    "pulumi_token": (lambda: "pul-" + hexs(40), ("{v}",)),
    "databricks_token": (lambda: "dapi" + pick("abcdefgh" + string.digits, 32), ("{v}",)),
    "terraform_cloud_token": (lambda: f"{pick(ALNUM, 14)}.atlasv1.{pick(ALNUM, 64)}", ("{v}",)),
    "tailscale_key": (lambda: f"tskey-auth-{pick(ALNUM, 12)}-{pick(ALNUM, 30)}", ("{v}",)),
    "okta_token": (lambda: "00" + pick(B64URL, 40), ("OKTA_API_TOKEN={v}", "okta token {v}")),
    "docker_hub_token": (lambda: "dckr_pat_" + pick(B64URL, 27), ("{v}",)),
    "rubygems_token": (lambda: "rubygems_" + hexs(48), ("{v}",)),
    "jfrog_token": (lambda: "AKCp" + pick(ALNUM, 69), ("{v}",)),
    "sonarqube_token": (lambda: rng.choice(["sqp_", "squ_"]) + hexs(40), ("{v}",)),
    "nuget_api_key": (lambda: "oy2" + pick(string.ascii_lowercase + string.digits, 43), ("{v}",)),
    "bitbucket_app_password": (lambda: "ATBB" + pick(ALNUM, 32), ("{v}",)),
    "atlassian_api_token": (
        lambda: "ATATT3xFfGF0" + pick(B64URL, 172) + "=" + hexs(8).upper(),
        ("{v}",),
    ),
    "npm_auth_token": (uuid_text, ("//registry.npmjs.org/:_authToken={v}",)),
    "groq_api_key": (lambda: "gsk_" + pick(ALNUM, 52), ("{v}",)),
    "replicate_token": (lambda: "r8_" + pick(ALNUM, 37), ("{v}",)),
    "perplexity_api_key": (lambda: "pplx-" + pick(ALNUM, 48), ("{v}",)),
    "discord_bot_token": (
        lambda: (
            rng.choice("MNO") + pick(ALNUM, 23) + "." + pick(B64URL, 6) + "." + pick(B64URL, 38)
        ),
        ("{v}", "DISCORD_BOT_TOKEN={v}"),
    ),
    "discord_webhook": (
        lambda: f"https://discord.com/api/webhooks/{pick(string.digits, 18)}/{pick(B64URL, 68)}",
        ("{v}",),
    ),
    "teams_webhook": (
        lambda: (
            f"https://acme.webhook.office.com/webhookb2/{uuid_text()}@{uuid_text()}/IncomingWebhook/{hexs(32)}/{uuid_text()}"
        ),
        ("{v}",),
    ),
    "mailgun_api_key": (
        lambda: rng.choice(["key-" + hexs(32), f"{hexs(32)}-{hexs(8)}-{hexs(8)}"]),
        ("MAILGUN_API_KEY={v}", "the mailgun key {v}"),
    ),
    "mailchimp_api_key": (lambda: hexs(32) + "-us" + str(rng.randint(1, 21)), ("{v}",)),
    "brevo_api_key": (lambda: f"xkeysib-{hexs(64)}-{pick(ALNUM, 16)}", ("{v}",)),
    "shopify_token": (lambda: rng.choice(["shpat_", "shpss_", "shpca_"]) + hexs(32), ("{v}",)),
    "square_token": (
        lambda: rng.choice(["sq0atp-" + pick(B64URL, 22), "EAAA" + pick(B64URL, 60)]),
        ("{v}",),
    ),
    "flutterwave_key": (
        lambda: "FLWSECK_TEST-" + pick("abcdefgh" + string.digits, 32) + "-X",
        ("{v}",),
    ),
    "shippo_token": (lambda: "shippo_live_" + hexs(40), ("{v}",)),
    "datadog_api_key": (lambda: hexs(32), ("DD_API_KEY={v}", "datadog api key {v}")),
    "datadog_app_key": (lambda: hexs(40), ("DD_APP_KEY={v}", "Datadog application key: {v}")),
    "sentry_token": (lambda: "sntryu_" + hexs(64), ("{v}",)),
    "sentry_dsn": (lambda: hexs(32), ("https://{v}@o1234567.ingest.sentry.io/4501",)),
    "new_relic_key": (lambda: "NRAK-" + pick(string.ascii_uppercase + string.digits, 27), ("{v}",)),
    "grafana_token": (lambda: "glsa_" + pick(ALNUM, 32) + "_" + hexs(8), ("{v}",)),
    "dynatrace_token": (
        lambda: f"dt0c01.{pick(UPPER_ALNUM, 24)}.{pick(UPPER_ALNUM, 64)}",
        ("{v}",),
    ),
    "launchdarkly_key": (lambda: "sdk-" + uuid_text(), ("{v}",)),
    "linear_api_key": (lambda: "lin_api_" + pick(ALNUM, 40), ("{v}",)),
    "notion_token": (
        lambda: rng.choice(
            ["ntn_" + pick(string.digits, 11) + pick(ALNUM, 35), "secret_" + pick(ALNUM, 43)]
        ),
        ("{v}",),
    ),
    "airtable_token": (lambda: "pat" + pick(ALNUM, 14) + "." + hexs(64), ("{v}",)),
    "hubspot_token": (lambda: "pat-na1-" + uuid_text(), ("{v}",)),
    "dropbox_token": (lambda: "sl." + pick(B64URL, 138), ("{v}",)),
    "postman_api_key": (lambda: f"PMAK-{hexs(24)}-{hexs(34)}", ("{v}",)),
    "mapbox_secret_token": (
        lambda: "sk.eyJ1IjoiYWNtZSIsImEiOiJ" + pick(ALNUM, 20) + "." + pick(B64URL, 22),
        ("{v}",),
    ),
    "supabase_key": (lambda: "sbp_" + hexs(40), ("{v}",)),
    "planetscale_token": (lambda: "pscale_tkn_" + pick(B64URL, 43), ("{v}",)),
    "algolia_api_key": (lambda: hexs(32), ("ALGOLIA_ADMIN_KEY={v}", "the algolia admin key {v}")),
    "generic_api_key": (
        lambda: pick(ALNUM, 32),
        ("SIGNING_KEY={v}", "encryption_key: {v}", "MASTER_KEY = '{v}'"),
    ),
}


def vendor_maker(family: str) -> Callable[[], tuple[str, str]]:
    make, contexts = VENDOR_SHAPES[family]

    def both() -> tuple[str, str]:
        value = clean(make)
        return rng.choice(contexts).format(v=value), value

    return both


def human_password() -> str:
    word = rng.choice(
        [
            "Winter",
            "Autumn",
            "Falcon",
            "Orchid",
            "Pepper",
            "Tigers",
            "Harbor",
            "Copper",
            "Maple",
            "Qwerty",
        ]
    )
    return clean(
        lambda: rng.choice(
            [
                f"{word}{rng.randint(1980, 2030)}{rng.choice('!@#$%')}",
                f"{word.lower()}{rng.randint(10, 99)}{pick(string.ascii_lowercase, 3)}{rng.choice('!?*')}",
                f"Tr0ub4dor{rng.randint(100, 999)}",
                pick(ALNUM, 8) + rng.choice("!#%&*+") + pick(string.digits, 2),
            ]
        )
    )


def short_password_assignment() -> tuple[str, str]:
    value = human_password()
    key = rng.choice(
        [
            "DB_PASSWORD",
            "PGPASSWORD",
            "REDIS_PASS",
            "smtp_password",
            "MYSQL_PWD",
            "admin_pass",
            "keystore.password",
            "SFTP_PASSWD",
        ]
    )
    frame = rng.choice(
        [
            "{k}={v}",
            "export {k}={v}",
            "{k}: {v}",
            '{k} = "{v}"',
            "--{kl}={v}",
            "Server=db;User Id=app;{k}={v};",
        ]
    )
    return frame.format(k=key, kl=key.lower().replace("_", "-"), v=value), value


def password_in_prose() -> tuple[str, str]:
    value = human_password()
    frame = rng.choice(
        [
            "the password is {v}",
            "the password for the build box is {v}",
            "the admin password was {v}",
            "I reset the password to {v}",
            "password: {v}",
            "the passphrase is {v}",
            "the wifi password is '{v}'",
        ]
    )
    return frame.format(v=value), value


def login_credentials() -> tuple[str, str]:
    value = human_password()
    user = rng.choice(["root", "admin", "deploy", "postgres", "jenkins"])
    frame = rng.choice(
        [
            "login {u} / {v}",
            "credentials: {u} / {v}",
            "creds {u}/{v}",
            "the vendor login is {u}:{v}",
        ]
    )
    return frame.format(u=user, v=value), value


def basic_auth() -> tuple[str, str]:
    user = rng.choice(["deploy", "ci", "grafana", "admin"])
    encoded = base64.b64encode(f"{user}:{human_password()}".encode()).decode()
    return rng.choice(["Authorization: Basic {v}", "-H 'Authorization: Basic {v}'"]).format(
        v=encoded
    ), encoded


def curl_credentials() -> tuple[str, str]:
    value = human_password()
    return f"curl -u uploader:{value} https://artifacts.corp.net/upload", value


for _family in VENDOR_SHAPES:
    MAKERS[_family] = vendor_maker(_family)
for _fn in (
    short_password_assignment,
    password_in_prose,
    login_credentials,
    basic_auth,
    curl_credentials,
):
    MAKERS[_fn.__name__] = _fn

NEW_FAMILY_TEMPLATES = [
    "Moved §X§ out of the repository and into the secrets manager; the old value is being rotated.",
    "Rejected keeping the integration in a shared notebook because it hard-coded §X§.",
    "Chose short-lived credentials after the onboarding wiki turned out to contain §X§.",
    "Decided the CI job reads its credential from OIDC instead of §X§ in the pipeline variables.",
    "We will revoke §X§ this week; it was pasted into a support ticket by mistake.",
    "Went with the managed connector; the self-hosted one needed §X§ in its config file.",
    "The post-mortem found §X§ in a public gist, so every key of that account is rotated.",
    "Picked per-environment keys because staging and prod shared §X§.",
    "Chose to pass the secret through the environment: the Dockerfile had §X§ baked in.",
    "Decided against the browser-side call; it would have shipped §X§ to every visitor.",
    "Kept the webhook but moved it behind our relay, since §X§ leaked in a screenshot.",
    "The contractor's handover note listed §X§; access goes through SSO from now on.",
]


# --- Positive sentences: §family§ marks where a secret goes ----------------------------------

POSITIVE_TEMPLATES: dict[str, list[str]] = {
    "openai_api_key": [
        "Moved the summarizer to the batch API because the interactive key §openai_api_key§ hit its rate limit every afternoon.",
        "Chose a per-service key instead of the shared one (§openai_api_key§) so we can revoke the eval harness without breaking prod.",
        "Rejected calling OpenAI from the browser: the prototype shipped §openai_api_key§ in main.js and anyone could read it.",
        "Keeping the embeddings job on text-embedding-3-small; the key it runs with is §openai_api_key§ until the vault migration lands.",
        "Went with env injection over a .env file after I found OPENAI_API_KEY=§openai_api_key§ committed in the sample app.",
        "The agent printed §openai_api_key§ in its trace, which is why we now strip headers before logging.",
        "Decided to rotate §openai_api_key§ quarterly and alert when usage spikes above 2x baseline.",
    ],
    "openai_project_key": [
        "Switched the classifier to a project-scoped key (§openai_project_key§) so billing lands on the search team.",
        "Chose project keys over the org key because §openai_project_key§ can be limited to the gpt-4o-mini model only.",
        "Rejected keeping the notebook key §openai_project_key§ in the repo; it goes into the secrets manager instead.",
        "The staging deploy used §openai_project_key§ by mistake, so we added a startup check that compares project ids.",
        "Using OPENAI_API_KEY=§openai_project_key§ in the local compose file only, never in CI.",
    ],
    "anthropic_api_key": [
        "Picked Claude for the code-review bot; for now it authenticates with §anthropic_api_key§ from the ops vault.",
        "Rejected sharing §anthropic_api_key§ across the three agents because one noisy agent would exhaust the quota for all.",
        "The CLI wrote ANTHROPIC_API_KEY=§anthropic_api_key§ into shell history, so we moved to a keyring-backed helper.",
        "Chose the admin key (§anthropic_api_key§) only for the usage report job; everything else gets workspace keys.",
        "Went with prompt caching; the benchmark ran with x-api-key: §anthropic_api_key§ against the staging workspace.",
    ],
    "github_token": [
        "Replaced the classic PAT §github_token§ with a GitHub App installation so the bot's access is scoped per repo.",
        "Chose fine-grained tokens after §github_token§ turned out to have admin:org scope for no reason.",
        "The release workflow used GH_TOKEN=§github_token§ from a personal account; moving it to the org-owned app.",
        "Rejected cloning with §github_token§ in the remote URL because git stores it in .git/config in plain text.",
        "Decided to let renovate use §github_token§ only until the app approval comes through next week.",
        "Went with the REST API over GraphQL for the changelog script; it authenticates with §github_token§.",
    ],
    "private_key": [
        "Moved deploy keys to the secrets store after someone pasted this into the ticket:\n§private_key§",
        "Chose ed25519 for the new bastion; the old key was §private_key§ and it has been removed from authorized_keys.",
        "Rejected baking the TLS key into the image. The Dockerfile copied §private_key§ into /etc/ssl/private.",
        "Signing releases with a hardware token now, because the CI variable held the raw key §private_key§",
        "Decided to re-issue the service certificate; the private half (§private_key§) had been attached to the incident doc.",
        "Going with sops for the Helm values since the chart had §private_key§ inline under tls.key.",
    ],
    "bearer_token": [
        "Chose to proxy the vendor API through our gateway because the frontend was sending Authorization: §bearer_token§ directly.",
        "The curl repro in the bug report included -H 'Authorization: §bearer_token§', so we rotated the integration token.",
        "Rejected logging full request headers; one line showed §bearer_token§ for the billing service.",
        "Went with short-lived tokens: the old static §bearer_token§ never expired and was shared by four services.",
        "Decided the webhook receiver should verify HMAC signatures instead of trusting §bearer_token§ from the sender.",
    ],
    "signed_url_secret": [
        "Chose to keep presigned links out of Slack; §signed_url_secret§ was still valid when the thread went public.",
        "Rejected long-lived SAS URLs for backups because §signed_url_secret§ granted read access for a year.",
        "Went with 15-minute expiry on export links after we found §signed_url_secret§ in the support inbox.",
        "Moving downloads behind auth; the old share link was §signed_url_secret§ and search engines indexed it.",
        "Decided the embed iframe should mint tokens server-side instead of hard-coding §signed_url_secret§.",
    ],
    "password_assignment": [
        "Moved the database credentials out of settings.py; it had §password_assignment§ hard-coded next to the host.",
        "Chose Vault dynamic credentials because the old .env file contained §password_assignment§ shared by every developer.",
        "Rejected keeping the SMTP config in the repo: config/mail.yml has §password_assignment§ in plain text.",
        "The docker-compose override set §password_assignment§ for the local Redis, and it leaked into the staging stack.",
        "Decided to template the Helm values from the secrets manager after reviewing values-prod.yaml ({ §password_assignment§ }).",
        "Going with SSO for the admin panel instead of the shared login §password_assignment§ everyone had bookmarked.",
    ],
    "quoted_password_assignment": [
        "Moved the credentials out of appsettings.json, which had §quoted_password_assignment§ under ConnectionStrings.",
        "Chose environment variables over the Python dict in conftest ({§quoted_password_assignment§}) for the staging run.",
        "Rejected committing the Postman export; its variables include §quoted_password_assignment§.",
        "The terraform state showed §quoted_password_assignment§ in plain text, so state now lives in an encrypted bucket.",
        "Decided the mobile config JSON is fetched at runtime instead of bundling §quoted_password_assignment§.",
    ],
    "aws_access_key_id": [
        "Switched the uploader to an IAM role; it had been using the access key §aws_access_key_id§ of a former employee.",
        "Chose OIDC federation for GitHub Actions because §aws_access_key_id§ was stored as a repo secret with full S3 access.",
        "Rejected the vendor's onboarding guide, which asks for a long-lived key like §aws_access_key_id§ with AdministratorAccess.",
        "CloudTrail shows §aws_access_key_id§ calling ListBuckets from an unknown IP, so we are deactivating it and moving to SSO.",
        "Decided the terraform backend should use the deploy role, not the personal key §aws_access_key_id§ from ~/.aws/credentials.",
    ],
    "aws_secret_access_key": [
        "Moved the backup script to instance profiles; it had §aws_secret_access_key§ baked into the cron job.",
        "Chose SSO profiles because the shared credentials file with §aws_secret_access_key§ was copied to every laptop.",
        "Rejected passing keys as build args; the image history exposed §aws_secret_access_key§ to anyone with pull access.",
        "The STS call returned §aws_secret_access_key§ and the agent pasted the whole JSON into the PR description.",
        "Decided to rotate after §aws_secret_access_key§ was found in the Jenkins console output.",
    ],
    "jwt": [
        "Chose opaque session ids over JWTs in cookies; the one in the bug report (§jwt§) still decoded to a valid admin session.",
        "Rejected storing the token in localStorage because a copied value like §jwt§ works from any machine until it expires.",
        "Went with 15-minute access tokens after the support ticket included Authorization: Bearer §jwt§ for a production user.",
        "Decided the gateway validates audience claims; the replayed id_token=§jwt§ came from the staging tenant.",
        "Keeping RS256 with key rotation; the example in the runbook was a live token §jwt§ and has been replaced.",
    ],
    "url_credentials": [
        "Chose IAM auth for Postgres because DATABASE_URL was §url_credentials§ and ended up in the crash report.",
        "Rejected connection strings with inline passwords; the worker config had §url_credentials§ in it.",
        "Moved the cache URL to a secret: §url_credentials§ was printed by the health endpoint.",
        "Went with deploy tokens for the mirror after I saw the remote set to §url_credentials§ on the build box.",
        "Decided to use the broker's TLS client certs rather than §url_credentials§ in every service's env.",
        "The migration tool echoed §url_credentials§ on failure, so we now pass the password through a file.",
    ],
    "slack_token": [
        "Chose Socket Mode for the deploy bot; its bot token §slack_token§ now lives only in the runtime secret.",
        "Rejected a user token for the standup bot because §slack_token§ can read every DM of the person who installed it.",
        "Moved the alert relay to an app-level token after §slack_token§ was committed to the monitoring repo.",
        "Decided to revoke §slack_token§ and reinstall the app with chat:write only.",
        "Going with the Events API; the prototype posted with §slack_token§ from a laptop cron job.",
    ],
    "slack_webhook": [
        "Chose a dedicated incoming webhook per channel; the shared one §slack_webhook§ was posting alerts to #general.",
        "Rejected hard-coding §slack_webhook§ in the Grafana dashboard JSON because the dashboards are exported publicly.",
        "Moved deploy notifications to the bot after the webhook §slack_webhook§ got spammed from outside.",
        "Decided the CI step reads the webhook from a secret instead of §slack_webhook§ in .gitlab-ci.yml.",
        "The alertmanager config had §slack_webhook§ inline, so it now uses api_url_file.",
    ],
    "stripe_key": [
        "Chose restricted keys for the reporting job; it was using §stripe_key§ with full write access.",
        "Rejected calling Stripe from the mobile app because the build embedded §stripe_key§.",
        "Moved webhook verification to the edge function; the signing secret §stripe_key§ is now an env secret there.",
        "Decided to roll §stripe_key§ after it appeared in a Sentry breadcrumb.",
        "Going with Stripe Checkout instead of Elements; the old integration kept §stripe_key§ in the Rails credentials file unencrypted.",
    ],
    "google_api_key": [
        "Chose to restrict the Maps key by HTTP referrer because §google_api_key§ was being used from other domains.",
        "Rejected the client-side Places autocomplete with an unrestricted key (§google_api_key§).",
        "Moved geocoding server-side; the Android manifest had §google_api_key§ with no app restriction.",
        "Decided to use a separate key per environment after §google_api_key§ burned through the monthly quota.",
        "Going with Gemini through Vertex so we stop handing out §google_api_key§ to every notebook.",
    ],
    "google_oauth_client_secret": [
        "Chose PKCE for the desktop client because the bundled client secret §google_oauth_client_secret§ is extractable anyway.",
        "Rejected committing client_secret.json; it contains §google_oauth_client_secret§ for the production OAuth app.",
        "Moved the OAuth app to a new project and invalidated §google_oauth_client_secret§ after the contractor left.",
        "Decided the admin tool uses workload identity instead of the web client secret §google_oauth_client_secret§.",
    ],
    "npm_token": [
        "Chose granular access tokens for publishing because the automation token §npm_token§ could publish every package in the org.",
        "Rejected the .npmrc in the repo root: it had //registry.npmjs.org/:_authToken=§npm_token§.",
        "Moved releases to trusted publishing after §npm_token§ was exposed in a public workflow log.",
        "Decided to revoke §npm_token§ and require 2FA for publishing.",
    ],
    "pypi_token": [
        "Chose trusted publishing on PyPI so we can drop the project token §pypi_token§ from CI secrets.",
        "Rejected the account-wide token; twine was configured with password = §pypi_token§ in ~/.pypirc.",
        "Moved uploads to a scoped token after §pypi_token§ showed up in the build logs.",
        "Decided to yank 0.4.1 and revoke §pypi_token§, which the release script printed on error.",
    ],
    "gitlab_token": [
        "Chose project access tokens with an expiry instead of the personal token §gitlab_token§ the pipeline used.",
        "Rejected cloning submodules with §gitlab_token§ embedded in .gitmodules.",
        "Moved the runner to the new registration flow; the old registration token §gitlab_token§ is revoked.",
        "Decided the helm chart pulls with a deploy token; §gitlab_token§ had api scope for no reason.",
        "Going with CI_JOB_TOKEN for cross-project pulls because §gitlab_token§ belonged to a personal account.",
    ],
    "huggingface_token": [
        "Chose a read-only fine-grained token for the inference workers; the write token §huggingface_token§ is revoked.",
        "Rejected putting HF_TOKEN=§huggingface_token§ in the notebook since the notebook is shared with the whole org.",
        "Moved model downloads behind our cache proxy after §huggingface_token§ was found in a Docker layer.",
        "Decided gated model access goes through the service account, not §huggingface_token§ from my profile.",
    ],
}

MULTI_TEMPLATES = [
    "Consolidating secrets into the vault: the old .env had §openai_api_key§ and §password_assignment§ side by side.",
    "Chose OIDC everywhere after the leaked CI log showed §aws_access_key_id§ together with §aws_secret_access_key§.",
    "Rejected the monolithic config file; it mixed §stripe_key§, §slack_webhook§ and §url_credentials§.",
    "Decided to run gitleaks in pre-commit after one commit added §github_token§ and §npm_token§ to scripts/release.sh.",
    "The agent transcript contained §anthropic_api_key§ and §openai_project_key§, so transcripts are now redacted before storage.",
    "Moved the ML pipeline to workload identity: it used §huggingface_token§, §google_api_key§ and §pypi_token§.",
    "Chose per-environment credentials because staging reused §password_assignment§ and §url_credentials§ from prod.",
    "Rejected sharing the debug HAR file; it had Authorization: Bearer §jwt§ and the cookie signed with §stripe_key§.",
    "Going with the secrets operator; the manifests carried §gitlab_token§ for the registry and §slack_token§ for alerts.",
    "The incident notes listed §signed_url_secret§ and §bearer_token§, both still valid at the time.",
    "Decided to rotate everything the laptop had: §aws_access_key_id§, §github_token§ and §private_key§",
    "Chose a secrets scanner in CI after the onboarding doc showed §google_oauth_client_secret§ next to §google_api_key§.",
]


UNWRAPPED = {
    "private_key", "password_assignment", "quoted_password_assignment", "short_password_assignment",
    "password_in_prose", "login_credentials", "curl_credentials",
}  # fmt: skip


def fill(template: str) -> dict[str, object]:
    secrets: list[dict[str, str]] = []

    def put(match: re.Match[str]) -> str:
        family = match.group(1)
        fragment, value = MAKERS[family]()
        if family not in UNWRAPPED and rng.random() < 0.3:
            # Developers often quote a value in Markdown or prose.
            left, right = rng.choice([("`", "`"), ("'", "'"), ('"', '"')])
            fragment = f"{left}{fragment}{right}"
        secrets.append({"family": family, "value": value})
        return fragment

    text = re.sub(r"§(\w+)§", put, template)
    families = list(dict.fromkeys(s["family"] for s in secrets))
    return {"text": text, "families": families, "secrets": secrets}


def positives() -> list[dict[str, object]]:
    rows = []
    for templates in POSITIVE_TEMPLATES.values():
        # Every template at least twice, with different secrets, for at least ten lines per family.
        rounds = max(2, -(-10 // len(templates)))
        for _ in range(rounds):
            rows.extend(fill(template) for template in templates)
    for _ in range(3):
        rows.extend(fill(template) for template in MULTI_TEMPLATES)
    beyond = [*VENDOR_SHAPES, "short_password_assignment", "password_in_prose"]
    beyond += ["login_credentials", "basic_auth", "curl_credentials"]
    for family in beyond:
        for template in rng.sample(NEW_FAMILY_TEMPLATES, 6):
            rows.append(fill(template.replace("§X§", f"§{family}§")))
    return rows


# --- Negative sentences: near-misses that must come out unchanged ----------------------------


def sha40() -> str:
    return hashlib.sha1(rng.randbytes(16)).hexdigest()


def sha_short() -> str:
    return sha40()[: rng.choice([7, 8, 10, 12])]


def a_uuid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def sha256() -> str:
    return hashlib.sha256(rng.randbytes(16)).hexdigest()


def sha512() -> str:
    return hashlib.sha512(rng.randbytes(16)).hexdigest()


def integrity() -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(rng.randbytes(16)).digest()).decode()


def b64_blob() -> str:
    return base64.b64encode(rng.randbytes(rng.choice([12, 24, 33]))).decode()


def semver() -> str:
    return f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}"


FILLERS: dict[str, Callable[[], str]] = {
    "sha40": sha40,
    "sha7": sha_short,
    "uuid": a_uuid,
    "sha256": sha256,
    "sha512": sha512,
    "integrity": integrity,
    "b64": b64_blob,
    "ver": semver,
    "num": lambda: str(rng.randint(2, 9999)),
    "hex32": lambda: pick(HEXL, 32),
    "hex40up": lambda: pick(HEXL, 40).upper(),
}

NEGATIVE_TEMPLATES = [
    # commit hashes, short and long
    "Reverted §sha7§ because it broke the Windows build; the real fix is in §sha40§.",
    "Chose to cherry-pick §sha40§ onto release/2.4 rather than merging main, which has unreviewed migrations.",
    "Bisected the regression to §sha7§ (the lockfile bump), so we pin the old resolver until upstream ships a fix.",
    "Went with a squash merge; the history in §sha7§..§sha7§ was mostly fixup commits.",
    "Rejected rewriting history: commit §sha40§ is already referenced from three release notes.",
    "The flaky test started at §sha40§ when the fixture clock switched to UTC.",
    "Kept the vendored copy at upstream commit §sha40§ because later versions drop Python 3.9.",
    "Pinned the GitHub Action to its commit SHA §sha40§ instead of the v4 tag, per the supply-chain policy.",
    "Decided to tag §sha7§ as v§ver§ since it is the last commit that passed the full matrix.",
    "Checked out §sha7§ to compare benchmark numbers; the slowdown is 8% on cold start.",
    # UUIDs
    "Keyed the idempotency table by the client-supplied request id (e.g. §uuid§) instead of a hash of the body.",
    "Chose UUIDv7 for new rows so inserts stay index-friendly; existing ids like §uuid§ are left alone.",
    "The duplicate charge came from retrying job §uuid§ after the worker timed out.",
    "Rejected exposing tenant ids such as §uuid§ in URLs; the public slug is enough.",
    "Decision §uuid§ supersedes the one we recorded last sprint about the queue backend.",
    "Trace §uuid§ shows the lock wait dominating, which is why we moved to optimistic concurrency.",
    "Mapped the Azure subscription §uuid§ to the staging cost centre.",
    "Chose correlation ids in the log format; a typical line carries trace_id=§uuid§.",
    # digests
    "Pinned the base image by digest, python:3.11-slim@sha256:§sha256§, so rebuilds are reproducible.",
    "Rejected floating tags for the runner image; we deploy ghcr.io/acme/runner@sha256:§sha256§.",
    "The release checksum is sha256:§sha256§ and it is published next to the tarball.",
    "Verified the download against sha512:§sha512§ before adding it to the offline mirror.",
    "Kept package-lock.json because it records integrity hashes like §integrity§.",
    "Chose pip's --require-hashes mode; requirements.txt now has lines like --hash=sha256:§sha256§.",
    "Went with content-addressed cache keys (sha256 of the inputs, e.g. §sha256§) for the build cache.",
    "The SBOM lists the wheel digest sha256:§sha256§ so the scanner can match it.",
    # paths
    "Store the journal under ~/.local/share/decision-journal/records/ rather than the repo, so it survives branch switches.",
    "Chose XDG paths on Linux; on Windows it is C:\\Users\\dev\\AppData\\Roaming\\DecisionJournal\\records.",
    "Rejected writing temp files into /tmp/build-cache/ because tmpfs is too small on the CI runners.",
    "Moved the key file reference to ~/.ssh/id_ed25519.pub in the docs; the private key never leaves the laptop.",
    "Config now lives in /etc/ledger/ledger.toml with secrets in /run/secrets/ledger_db_password.",
    "Decided to read credentials from ~/.aws/credentials via the SDK's default chain instead of parsing it ourselves.",
    "The migration scripts are in db/migrations/2026_11_03_add_token_index.sql.",
    "Chose to mount /var/lib/postgresql/data on the NVMe volume for the write-heavy tables.",
    "Log rotation moved to /var/log/ledger/*.log with 14 days of retention.",
    "Put generated clients under src/generated/openapi/ and excluded them from coverage.",
    "The secrets template is at deploy/k8s/secret-template.yaml and holds only variable names.",
    "Tests read fixtures from tests/fixtures/tokens/expired_token.json, which holds no live token.",
    # version pins and ranges
    "Pinned pydantic==§ver§ because 2.8 changed how strict mode treats bool.",
    "Chose requests>=2.31,<3 over httpx for the sync CLI; fewer moving parts.",
    "Upgraded to django==§ver§ for the security patch and left celery at celery==5.3.6 for now.",
    "Locked node to 20.11.1 in .nvmrc; npm i typescript@§ver§ --save-exact keeps tsc stable.",
    "Rejected cryptography>=42 until our FIPS base image ships OpenSSL 3.",
    "Went with PySide6-Essentials>=6.8,<6.13 to skip the QtWebEngine download.",
    "Held back sqlalchemy~=1.4 because the repository layer still uses the legacy Query API.",
    "Bumped the Go toolchain to go1.22.3 and golang.org/x/crypto to v0.24.0.",
    "Pinned ruff==§ver§ in pre-commit so formatting does not drift between laptops.",
    "Chose tokenizers==0.19.1 since 0.20 needs a newer Rust toolchain on the build image.",
    # placeholders and documented example keys
    "The README uses AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY from the AWS docs, which is fine to keep.",
    "Docs examples must use placeholders: aws_access_key_id = AKIAIOSFODNN7EXAMPLE, never a real key.",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is the documented sample we use in the tutorial.",
    "The AWS CLI docs show AKIAI44QH8DHBEXAMPLE with je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY; our docs copy that pair.",
    "Chose to document OPENAI_API_KEY=your-api-key in .env.example instead of shipping a key.",
    "The onboarding guide says export ANTHROPIC_API_KEY=<your-key> before running the agent.",
    "We keep api_key: changeme in the sample config so a fresh install fails loudly.",
    "Set DB_PASSWORD=${DB_PASSWORD} in compose and let the shell provide it.",
    "The helm values file has password: {{ .Values.db.password }} and nothing else.",
    "The CI file uses token: ${{ secrets.GITHUB_TOKEN }}, so no literal token is stored.",
    "Rejected the vendor snippet because it hard-codes Authorization: Bearer <token>.",
    "Our template reads STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx as a placeholder.",
    "Placeholder values in docs: SLACK_BOT_TOKEN=xoxb-your-token and SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX.",
    "Use $GITHUB_TOKEN or $GH_TOKEN in scripts; never paste the value.",
    'Example config: api_key = "YOUR_API_KEY" and secret = "replace-me-before-deploy".',
    "The .env.sample lists AWS_ACCESS_KEY_ID=xxxx and AWS_SECRET_ACCESS_KEY=xxxx.",
    "Docs say: npm config set //registry.npmjs.org/:_authToken=${NPM_TOKEN}.",
    "The pypirc template has password = <pypi token> so people know what to paste.",
    "Chose dummy values (password: dummy-password-for-tests) for the integration suite.",
    "The Postgres URL in docs is postgres://user:password@localhost:5432/app.",
    "Local compose uses postgres://postgres:postgres@localhost:5432/dev, the image default.",
    "Connection string template: mysql://${DB_USER}:${DB_PASS}@${DB_HOST}/shop.",
    "We use the Stripe docs test key sk_test_4eC39HqLyjWDarjtT1zdp7dc in the README walkthrough.",
    "Documented HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx as the shape to expect.",
    "The sample JWT in our docs is header.payload.signature, not a real token.",
    # code that names secrets without containing them
    'Read the key at startup: api_key = os.environ["API_KEY"], failing fast when it is missing.',
    "Chose password = getpass.getpass() over a CLI flag so it never lands in shell history.",
    "Generate per-install salts with secret = secrets.token_hex(32) instead of a constant.",
    'In the Flask app, token = request.headers.get("Authorization") is parsed by the middleware.',
    'Switched to api_key = config.get("openai", "api_key") so the CLI and GUI share one source.',
    "The client sets self.token = token_provider.fetch() and refreshes it every 50 minutes.",
    "Rejected api_key=os.getenv('OPENAI_API_KEY', '') because an empty default hides misconfiguration.",
    "password_hash = hashlib.pbkdf2_hmac(...) stays; we only raise the iteration count to 600000.",
    'Use client_secret = vault.read("oauth/client")["secret"] in the worker, never a literal.',
    "const token = await getAccessToken(); the SDK caches it until expiry.",
    "We compare with hmac.compare_digest(expected, supplied) to avoid timing leaks.",
    "Kept the signature check as sig = sign(payload, key) with the key loaded from KMS.",
    'In Go we read os.Getenv("DB_PASSWORD") once in main and pass it down.',
    'token_url = f"{base}/oauth/token" moved into the settings module.',
    "access_key = session.get_credentials().access_key is only used for the presign call.",
    # prose about tokens, secrets and passwords
    "Chose rotating refresh tokens because a stolen refresh token then works only once.",
    "Rejected putting the token= parameter in query strings since proxies log full URLs.",
    "Decided that bearer tokens expire after 15 minutes and refresh tokens after 30 days.",
    "The password policy requires 14 characters; we dropped the special-character rule per NIST 800-63B.",
    "We store only a bcrypt hash of each API key and show the key once at creation.",
    "Secrets come from the secret manager at boot; no secret is written to disk.",
    "The token bucket rate limiter allows 20 requests per second per tenant.",
    "Chose tokenization at the edge so card numbers never reach our servers.",
    "The access key rotation job runs every 90 days and pages on failure.",
    "Rejected sharing one API key across services; each service gets its own, scoped and named.",
    "Password reset links expire after 30 minutes and can be used once.",
    "Secret scanning runs on every push; the last alert was a false positive in a test fixture.",
    "Token counts: the summarizer uses about 1,800 tokens per request with the new prompt.",
    "Chose JWTs only for service-to-service calls; browsers get opaque session cookies.",
    "The signature field in the webhook header is checked before the body is parsed.",
    "We moved from basic auth to OAuth client credentials for the partner API.",
    "The pwd command output in the bug report shows the repo was checked out under /srv/app.",
    "Tokens are scoped per repository; the bot cannot push to main.",
    "The presigned URL lifetime dropped from 7 days to 15 minutes.",
    "Sign-in uses WebAuthn first and TOTP as fallback; SMS codes are gone.",
    # URLs without credentials
    "Chose the upstream fix from https://github.com/psf/requests/pull/6644 over our local patch.",
    "Following https://docs.python.org/3/library/secrets.html#recipes-and-best-practices for token generation.",
    "The status page https://status.acme-cloud.io/incidents/2026-11-02 explains the outage.",
    "Mirror from https://pypi.org/simple/ via our proxy at https://pypi-proxy.internal:8443/simple/.",
    "Cloning over SSH with git@github.com:acme/ledger.git because HTTPS prompts break the agent.",
    "Linked the design doc at https://wiki.corp-tools.net/display/ENG/Queue+Backend+Decision.",
    "The Grafana panel https://grafana.internal/d/§sha7§/api-latency?orgId=1&from=now-7d shows the p99 drop.",
    "Chose https://api.github.com/repos/acme/ledger/releases/latest as the update feed.",
    "Redis runs at redis://cache-01.internal:6379/0 and Postgres at postgres://db-prod.internal:5432/ledger.",
    "The S3 bucket is s3://acme-build-artifacts/releases/v§ver§/ with public read disabled.",
    "Helm repo https://charts.bitnami.com/bitnami is pinned through our Artifactory remote.",
    "The OpenAPI spec at https://api.partner-portal.io/v2/openapi.json documents the token endpoint.",
    "Used ssh://git@git.corp-tools.net:2222/platform/infra.git for the mirror.",
    "The callback URL is https://app.acme.io/oauth/callback?state=§uuid§ and is registered with the IdP.",
    # base64-ish words and ids in prose
    "Test fixtures include the base64 string §b64§, which decodes to random bytes.",
    "The avatar placeholder is a data URI (data:image/png;base64,§b64§) inlined in the CSS.",
    "Cursor pagination uses opaque cursors like §b64§ so clients cannot guess offsets.",
    'Chose base64url for the cursor encoding; eyJpZCI6MTIzfQ is just {"id":123}.',
    "The Kafka offset topic key looked like §b64§ in the dump.",
    "Our feature flag ids are slugs like enable-new-ledger-view, not random keys.",
    "Stack traces mention CamelCaseIdentifiersLikeTokenRefreshScheduler, which are class names.",
    "The Sentry issue LEDGER-§num§ tracks the null-pointer in TokenRefreshScheduler.",
    "Build id 2026.11.28-§num§ is the first one with the new signing setup.",
    "Jira ticket PLAT-§num§ covers the password reset flow rewrite.",
    "The ARN arn:aws:iam::123456789012:role/ledger-deployer is what CI assumes.",
    "The KMS key alias alias/ledger-prod-secrets is referenced by name, not by key material.",
    "Chose an HMAC-SHA256 signature over the raw body; the header is X-Signature-256.",
    "Container id §sha7§ was the one OOM-killed during the load test.",
    "Ran hyperfine on §sha7§ and §sha7§: 212 ms vs 187 ms median.",
    "Postgres OID 16384 is the ledger table; we vacuum it nightly.",
    "The npm package is @acme/ledger-client@§ver§, published from CI only.",
    "Docker image tag ledger-api:§ver§-§sha7§ is what production runs.",
    "Set the Slack channel id C04§num§ for alerts; ids are not secret.",
    "The GCP project id acme-ledger-prod-417 is in the Terraform vars.",
    "The Stripe price id price_1Ow§num§ is configured per plan, and product ids are public.",
    "Our OAuth client id 1044§num§-abc.apps.googleusercontent.com is public by design.",
    "GitHub App id §num§ and installation id §num§ go into the config; the key stays in KMS.",
    # more everyday rationale with ids, hashes and config talk
    "Chose SQLite over Postgres for the desktop build; the journal is single-user and §num§ records at most.",
    "Rejected Electron because the installer was 180 MB; the Qt build is 60 MB compressed.",
    "Moved the nightly job to 02:30 UTC so it does not overlap the backup window.",
    "Went with optimistic locking on revision numbers; conflicts are rare (§num§ in the last month).",
    "Decided to keep the CLI output stable for scripts, so new fields go at the end of the JSON.",
    "Chose structured logging with keys like event, decision_id and duration_ms.",
    "The merge base was §sha40§, so the conflict is only in the migration file.",
    "Fixed-forward with §sha7§ instead of reverting §sha7§, since the schema change already shipped.",
    "Upgraded the runner image to ubuntu-24.04; the cache key now includes hashFiles('**/uv.lock').",
    "The lockfile diff only touched idna==3.7 and certifi==2024.7.4.",
    "Chose uv over pip-tools because resolving takes 2 s instead of 40 s on CI.",
    "Pinned numpy<2 until the C extension is rebuilt against the new ABI.",
    "The Renovate PR bumps eslint from 8.57.0 to 9.4.0, which needs the flat config.",
    "Went with pnpm workspaces; the store lives at ~/.local/share/pnpm/store/v3.",
    "Docker layer sha256:§sha256§ is 400 MB because of the CUDA runtime, so we split the image.",
    "Cosign verifies the image signature against the digest sha256:§sha256§ before deploy.",
    "The Terraform plan touches aws_iam_role.deployer and aws_s3_bucket.artifacts only.",
    "Kept the AWS region at eu-central-1 for data residency.",
    "The IAM policy grants s3:GetObject on arn:aws:s3:::acme-build-artifacts/* and nothing else.",
    "Chose AWS SSO profiles; developers run aws sso login --profile ledger-dev each morning.",
    "The access key age alarm fires when any key is older than 90 days.",
    "Secrets Manager path ledger/prod/db holds username and password; the app reads it at start.",
    "Chose Parameter Store for non-secret config such as feature flags and URLs.",
    "The vault policy path secret/data/ledger/* is read-only for the app role.",
    "Kubernetes secret ledger-db is mounted at /var/run/secrets/ledger; env vars only carry the path.",
    "The sealed secret is encrypted for the cluster key; the manifest is safe to commit.",
    "Decided the token lifetime is configurable per tenant with a default of 3600 seconds.",
    "Refresh happens when less than 10% of the token lifetime is left.",
    "The OAuth scopes are read:decisions and write:decisions; no admin scope exists.",
    "Personal access tokens are disabled for the org; only GitHub Apps can write.",
    "We audit API key usage weekly and revoke keys unused for 30 days.",
    "The webhook secret is rotated by creating a second secret, then dropping the first after a day.",
    "A password manager entry 'Ledger prod DB' is the only place the credentials live.",
    "Chose argon2id for password hashing with memory_cost=65536 and time_cost=3.",
    "The login endpoint rate limit is 5 attempts per minute per IP address.",
    "Session cookies are HttpOnly, Secure and SameSite=Lax.",
    "CSRF tokens are per-session and checked on every POST.",
    "Passkeys are offered first; passwords remain as a fallback for old browsers.",
    "MFA is mandatory for admin accounts since the audit.",
    "We log the key id (kid) of each JWT, never the token itself.",
    "Chose ES256 over RS256 for smaller tokens; the JWKS endpoint publishes both during rotation.",
    "Our signing keys rotate every 30 days and the JWKS keeps the previous key for a week.",
    "Token introspection is cached for 60 seconds to spare the IdP.",
    'The API returns 401 with WWW-Authenticate: Bearer error="invalid_token" when a token expired.',
    "Rejected sending secrets through the agent's tool calls; the tool receives a handle, not the value.",
    "The agent may read .env.example but not .env; the sandbox denies the path.",
    "The MCP server exposes search_decisions and get_decision, both read-only.",
    "Transcripts older than 30 days are deleted; decisions stay.",
    "Chose to redact before storage rather than on display, so exports are clean too.",
    "The redaction pass runs on problem, rationale and option text, not on ids.",
    "Fingerprints are sha256 over normalized fields, truncated to 16 hex chars like §sha7§.",
    "The decision id format is dec_ followed by the date and a short hash, e.g. dec_20261128_§sha7§.",
    "Profile rules need three agreeing decisions before they are promoted.",
    "Confidence below 0.65 keeps a capture as a suggestion only.",
    "The dashboard binds to 127.0.0.1:8765 and requires the per-session cookie.",
    "Chose a Unix socket at $XDG_RUNTIME_DIR/decision-journal.sock for the CLI to reach the app.",
    "On Windows the pipe name is \\\\.\\pipe\\decision-journal-§num§.",
    "Autostart uses ~/.config/autostart/decision-journal.desktop on KDE and GNOME.",
    "Icons live in resources/icons/tray-light.svg and tray-dark.svg.",
    "The PyInstaller spec excludes QtWebEngine, QtQuick and the translations.",
    "Startup takes 0.16 s for the one-folder build versus 1.3 s one-file.",
    "Chose platformdirs over hand-written paths; it already handles macOS Application Support.",
    "We ship the MIT license text in the about dialog.",
    "The crash reporter copies the traceback, OS version and app version, never record text.",
    "Telemetry stays off; the app makes no network calls except the optional update check.",
    "The update check fetches https://updates.decision-journal.app/latest.json once a day.",
    "Release artifacts are signed with minisign; the public key is RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3.",
    "The Homebrew tap formula pins the tarball with sha256 §sha256§.",
    "The Flatpak manifest references the tag v§ver§ and commit §sha40§.",
    "The changelog entry for v§ver§ mentions the new export format.",
    "Chose JSON Lines for export so large journals stream.",
    "CSV export escapes formulas by prefixing =, + and - with a quote.",
    "Import refuses files over 64 MiB and lists the first 20 errors.",
    "The schema version field is 3; readers accept 1 through 3.",
    "Backups are named journal-2026-11-28T0230Z.tar.zst and kept for 14 days.",
    "We hash file contents with BLAKE2b for dedup; collisions are not a concern at this size.",
    "Chose rsync over scp for the mirror because it resumes after drops.",
    "The CI matrix runs Python 3.11 and 3.12 on ubuntu-latest, macos-14 and windows-2022.",
    "Flaky test test_tray_icon_shows was quarantined with an issue link, not deleted.",
    "Coverage dropped to 84% after the refactor; the missing lines are error paths.",
    "Chose pytest-qt's qtbot over manual event loops in tests.",
    "Hypothesis found the empty-string edge case in the summary builder.",
    "Mutation testing with mutmut flagged the boundary in the confidence check.",
    "Set PYTHONHASHSEED=0 in CI so the order of set iteration in snapshots is stable.",
    "The benchmark machine is a 2-core VM; numbers are medians of 5 runs.",
    "Chose gRPC for the internal API; the public API stays REST with OpenAPI 3.1.",
    "Rejected GraphQL federation for now; two services do not justify a gateway.",
    "The p99 latency went from 480 ms to 130 ms after adding the covering index.",
    "Decided on a 30-second statement timeout for reporting queries.",
    "Chose Redis streams over Kafka; we need 2k messages per second at most.",
    "The queue consumer acks after commit, so a crash causes a redelivery, not a loss.",
    "Dead letters go to orders.dlq and are reviewed every morning.",
    "Retries use exponential backoff capped at 5 minutes with jitter.",
    "Circuit breaker opens after 5 failures in 10 seconds.",
    "Feature flag new-ledger-ui is at 10% for internal users.",
    "Canary gets 5% of traffic for an hour before full rollout.",
    "Rollbacks are a redeploy of the previous image digest, sha256:§sha256§.",
    "Chose blue-green for the database proxy because it holds long connections.",
    "Health checks hit /healthz for liveness and /readyz for readiness.",
    "Metrics are scraped every 15 s; high-cardinality labels like user_id are banned.",
    "Alert on error budget burn rate, not on single 5xx spikes.",
    "The on-call runbook lives at docs/runbooks/ledger-api.md.",
    "Postmortem PM-§num§ found the root cause in the retry storm, not the database.",
    "Chose Markdown ADRs in docs/adr/ numbered 0001 onward.",
    "ADR 0007 supersedes ADR 0003 on the queue backend choice.",
    "Decision owners are listed by GitHub handle, e.g. @maria-k and @dev-ops-team.",
    "The RFC template asks for context, options, decision and consequences.",
    "Chose Conventional Commits so release notes can be generated.",
    "Branch protection requires one review and green CI on main.",
    "The monorepo uses CODEOWNERS so the payments team reviews billing/ changes.",
    "Code freeze starts on December 18 and ends on January 5.",
    "Chose Python 3.11 as the floor because of tomllib and the faster interpreter.",
    "The Rust extension is built with maturin and abi3 wheels for 3.11+.",
    "Chose 100 as the line length for ruff; the formatter follows it.",
    "mypy --strict is enforced on core only; the GUI layer runs in normal mode.",
]

# Near-misses around the families beyond the first set: vendor names, password words, ids.
NEGATIVE_TEMPLATES += [
    "Chose SendGrid over SES for transactional mail because its suppression lists are per-template.",
    "Twilio message SIDs look like SM§hex32§; we log them so support can trace delivery.",
    "The Twilio webhook is verified with the X-Twilio-Signature header, so no token lives in the handler.",
    "Telegram bot updates arrive through a webhook at /hooks/telegram; the token is read from systemd credentials.",
    "Azure Storage connection strings come from Key Vault references, never from app settings.",
    "The GCP service account email is ci-runner@acme-prod.iam.gserviceaccount.com; its key file is not committed.",
    "Discord permission integer 274877975552 covers send, embed and read history.",
    "Mailgun's sandbox domain only delivers to authorized recipients, which is why staging uses it.",
    "Datadog dashboard §num§ tracks checkout latency; the monitor id is in the runbook.",
    "Shopify orders are read with the read_orders scope only; write scopes were rejected.",
    "We rotate the password every 90 days and store it in Vault under secret/data/payments.",
    "The password field is hashed with argon2id (m=64 MiB, t=3, p=1) before it reaches the database.",
    "Password reset links expire after 15 minutes and can be used once.",
    "The password policy is 12 characters minimum, no composition rules, checked against breached lists.",
    "Set DB_PASSWORD=${DB_PASSWORD} in compose; the real value comes from the CI secret store.",
    "password: changeme is the chart default, and the install job refuses to start with it.",
    "Use `export GITHUB_TOKEN=$(gh auth token)` locally instead of pasting a token.",
    "The login page shows 'user / password' placeholders, per the design review.",
    "Admin login is admin / <set at install time>, documented in the install guide.",
    "Default credentials for local MinIO are minioadmin/minioadmin; production uses IAM roles.",
    "Login via SSO redirects to /auth/callback; sessions last 8 hours.",
    "The credentials file lives at ~/.aws/credentials and is never mounted into containers.",
    "Basic auth is disabled on the admin panel; only OIDC is accepted now.",
    "The Authorization header is forwarded by the proxy only for /api paths.",
    'curl -u "$CI_USER:$CI_TOKEN" is how the upload script authenticates; both come from the environment.',
    "Set password_min_length = 12 and max_tokens = 4096 in the config review.",
    "The token bucket allows 100 requests per minute with bursts of 20.",
    "The access key id column is varchar(20); the secret column is encrypted with KMS.",
    "Client id §uuid§ identifies the OAuth app; its secret stays in the vault.",
    "The build cache key is §sha40§, a hash of the lockfile.",
    "cache_key = tenant_id + sku keeps SKUs from colliding across tenants.",
    "Stripe customer ids look like cus_§num§ in the logs; card data never reaches us.",
    "Sentry event §hex32§ shows the null pointer in the export worker.",
    "Trace id §hex32§ links the slow request to the N+1 query in the orders view.",
    "The image digest sha256:§sha256§ is pinned in the Helm values.",
    "Request §uuid§ timed out after 30 s because the pool was exhausted.",
    "GPG key fingerprint §hex40up§ signs the release artifacts.",
    'ETag "§hex32§" is the MD5 of the body; clients send it in If-None-Match.',
    "Chose RS256 over HS256 so services verify JWTs with the public key only.",
    "publishable_key = pk_live_... is safe in the browser; the secret key stays server-side.",
    "The keystore uses PKCS#12; its password is read from KEYSTORE_PASSWORD at startup.",
    "The passphrase prompt appears once per session thanks to ssh-agent.",
    "Passwords are compared with hmac.compare_digest to avoid timing leaks.",
    "Bumped the bcrypt cost factor from 10 to 12 after measuring login latency at 180 ms.",
    "Decided that the Okta group sync runs hourly; the admin console shows the last run.",
    "The Heroku pipeline promotes staging to production after the smoke test passes.",
    "Cloudflare caches /assets for a year; HTML is never cached at the edge.",
    "Grafana alert rule §num§ pages on-call when the error budget burns 10x.",
    "The LaunchDarkly flag checkout-v2 is at 25% with a kill switch.",
    "The Notion export of the design doc is attached to the ticket as PDF.",
    "Our Slack webhook URL lives in the SLACK_WEBHOOK_URL secret, never in the repository.",
    "Sign in with the corporate account; local accounts were removed in v§ver§.",
    "Key rotation job runs at 03:00 UTC; see cron.d/rotate-keys.",
    "The login shell for the deploy user is /usr/sbin/nologin.",
    "We picked scrypt with N=2^15 for passphrase-derived keys on the desktop app.",
    "The DSN format is postgres://host:5432/db in development, without credentials.",
    "Version pins: node 20.18.1, pnpm 9.12.3, terraform 1.9.8, go 1.23.4.",
    "Base64 of the empty PNG fixture is iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==.",
    "secret_key_base is generated per environment with `rails secret` and kept in credentials.yml.enc.",
    "The Telegram channel id is -100§num§ and the bot only posts release notes there.",
]


def fill_negative(template: str) -> dict[str, object]:
    text = re.sub(r"§(\w+)§", lambda m: FILLERS[m.group(1)](), template)
    return {"text": text, "families": []}


def negatives() -> list[dict[str, object]]:
    rows = []
    rounds = -(-640 // len(NEGATIVE_TEMPLATES))
    for _ in range(rounds):
        rows.extend(fill_negative(template) for template in NEGATIVE_TEMPLATES)
    unique = list({row["text"]: row for row in rows}.values())
    for template in NEGATIVE_TEMPLATES:  # fixed sentences once more, in a reviewer's voice
        row = fill_negative(template)
        row["text"] = f"Reviewer: {row['text']}"
        unique.append(row)
    return list({row["text"]: row for row in unique}.values())


def write(name: str, rows: list[dict[str, object]]) -> None:
    with (HERE / name).open("w", encoding="utf-8", newline="\n") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    write("positives.jsonl", positives())
    write("negatives.jsonl", negatives())


if __name__ == "__main__":
    main()
