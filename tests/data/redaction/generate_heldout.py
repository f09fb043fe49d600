# ruff: noqa: E501  # the sentences are data; wrapping them would make them hard to read
"""Writes heldout_positives.jsonl and heldout_negatives.jsonl, the held-out redaction set.

This generator shares nothing with ``generate.py``: its own secret makers (written from the
vendors' published formats, not from our patterns), its own sentence templates (chat messages,
ticket comments, commit bodies, runbook steps and config snippets rather than decision
rationales), and its own random source (a SHAKE-256 byte stream, not ``random.Random``). It was
written before the extra families of ``core/record/redaction_vendors.py`` and is never used to tune
them: the bench reports it, no test asserts a per-family figure on it.

Each positive line is ``{"text", "family", "secrets"}``; a secret counts as caught only when its
exact value is gone. Each negative line is ``{"text", "family": ""}`` and must come out unchanged.

Run ``python tests/data/redaction/generate_heldout.py``; it rewrites both files.
"""

from __future__ import annotations

import base64
import hashlib
import json
import string
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
T = TypeVar("T")


class Stream:
    """A reproducible byte stream from SHAKE-256 over a seed phrase and a block counter."""

    def __init__(self, seed: str) -> None:
        self._seed = seed.encode()
        self._block = 0
        self._buffer = b""
        self._at = 0

    def byte(self) -> int:
        if not self._buffer:
            self._buffer = hashlib.shake_256(self._seed + self._block.to_bytes(8, "big")).digest(
                4096
            )
            self._block += 1
            self._at = 0
        value = self._buffer[self._at]
        self._at += 1
        if self._at == len(self._buffer):
            self._buffer = b""
        return value

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) by rejection over as many bytes as n needs."""
        size = max(2, (n.bit_length() + 7) // 8 + 1)
        span = 256**size
        limit = span - span % n
        while True:
            value = int.from_bytes(bytes(self.byte() for _ in range(size)), "big")
            if value < limit:
                return value % n

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(alphabet[self.below(len(alphabet))] for _ in range(n))

    def between(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)


S = Stream("decision-journal held-out redaction corpus, v1")

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
AN = LOWER + UPPER + DIGITS
LAN = LOWER + DIGITS
UAN = UPPER + DIGITS
HEXL = "0123456789abcdef"
B64 = AN + "+/"
URLSAFE = AN + "-_"
WORDS = ("example", "sample", "dummy", "placeholder", "your", "fake", "xxxx", "test", "redacted")


def fresh(make: Callable[[], str]) -> str:
    """Redraws a value that happens to spell a filler word; real random keys rarely do."""
    while True:
        value = make()
        if not any(word in value.lower() for word in WORDS):
            return value


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def rand_bytes(n: int) -> bytes:
    return bytes(S.byte() for _ in range(n))


def uuid4() -> str:
    h = S.chars(HEXL, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{S.pick('89ab')}{h[17:20]}-{h[20:]}"


# --- Secret makers: (fragment placed in the text, exact secret values that must vanish) --------

Maker = Callable[[], tuple[str, list[str]]]
MAKERS: dict[str, Maker] = {}


def maker(family: str) -> Callable[[Maker], Maker]:
    def register(fn: Maker) -> Maker:
        MAKERS[family] = fn
        return fn

    return register


def plain(family: str, make: Callable[[], str], contexts: Sequence[str] = ("{v}",)) -> None:
    def fn() -> tuple[str, list[str]]:
        value = fresh(make)
        return S.pick(contexts).format(v=value), [value]

    MAKERS[family] = fn


plain(
    "aws_access_key_id",
    lambda: S.pick(["AKIA", "ASIA"]) + S.chars(UAN, 16),
    ("{v}", "aws_access_key_id = {v}", "AWS_ACCESS_KEY_ID={v}"),
)
plain(
    "aws_secret_access_key",
    lambda: S.chars(AN, 20) + "/" + S.chars(AN + "+", 19),
    ("aws_secret_access_key = {v}", "AWS_SECRET_ACCESS_KEY={v}", "the AWS secret key {v}"),
)
plain("gcp_api_key", lambda: "AIza" + S.chars(URLSAFE, 35))
plain(
    "gcp_private_key_id",
    lambda: S.chars(HEXL, 40),
    ('"private_key_id": "{v}"', "private_key_id: {v}", "the service-account private_key_id {v}"),
)
plain(
    "azure_ad_client_secret",
    lambda: S.chars(AN, 3) + S.pick(DIGITS) + "Q~" + S.chars(AN + "_~.-", 34),
    ("AZURE_CLIENT_SECRET={v}", "client secret {v}", "{v}"),
)
plain("github_pat", lambda: "ghp_" + S.chars(AN, 36))
plain("github_fine_grained", lambda: "github_pat_11" + S.chars(UAN, 20) + "_" + S.chars(AN, 59))
plain("github_oauth", lambda: S.pick(["gho_", "ghu_", "ghs_", "ghr_"]) + S.chars(AN, 36))
plain("gitlab_pat", lambda: "glpat-" + S.chars(URLSAFE, 20))
plain("gitlab_runner", lambda: S.pick(["glrt-", "GR1348941"]) + S.chars(URLSAFE, 20))
plain(
    "slack_bot_token", lambda: f"xoxb-{S.chars(DIGITS, 12)}-{S.chars(DIGITS, 13)}-{S.chars(AN, 24)}"
)
plain(
    "slack_user_token",
    lambda: (
        f"xoxp-{S.chars(DIGITS, 12)}-{S.chars(DIGITS, 12)}-{S.chars(DIGITS, 13)}-{S.chars(HEXL, 32)}"
    ),
)
plain(
    "slack_webhook",
    lambda: (
        f"https://hooks.slack.com/services/T{S.chars(UAN, 10)}/B{S.chars(UAN, 10)}/{S.chars(AN, 24)}"
    ),
)
plain("stripe_secret", lambda: S.pick(["sk_live_", "rk_live_"]) + S.chars(AN, S.pick([24, 99])))
plain("stripe_webhook", lambda: "whsec_" + S.chars(AN, 32))
plain("sendgrid", lambda: f"SG.{S.chars(URLSAFE, 22)}.{S.chars(URLSAFE, 43)}")
plain(
    "twilio_account_sid",
    lambda: "AC" + S.chars(HEXL, 32),
    ("TWILIO_ACCOUNT_SID={v}", "Twilio account {v}", "{v}"),
)
plain(
    "twilio_api_key",
    lambda: "SK" + S.chars(HEXL, 32),
    ("TWILIO_API_KEY={v}", "twilio api key {v}", "{v}"),
)
plain(
    "twilio_auth_token",
    lambda: S.chars(HEXL, 32),
    ("TWILIO_AUTH_TOKEN={v}", "twilio auth token {v}", "Twilio token: {v}"),
)
plain(
    "telegram_bot",
    lambda: f"{S.between(100000000, 8999999999)}:AA{S.chars(URLSAFE, 33)}",
    ("{v}", "TELEGRAM_BOT_TOKEN={v}", "bot token {v}"),
)
plain(
    "azure_storage",
    lambda: b64(rand_bytes(64)),
    (
        "DefaultEndpointsProtocol=https;AccountName=ledgerprod;AccountKey={v};EndpointSuffix=core.windows.net",
        "AccountName=stagingblobs;AccountKey={v}",
        "AZURE_STORAGE_KEY={v}",
    ),
)
plain(
    "discord_bot",
    lambda: f"{S.pick('MNO')}{S.chars(AN, 23)}.{S.chars(URLSAFE, 6)}.{S.chars(URLSAFE, 38)}",
    ("{v}", "DISCORD_TOKEN={v}", "discord bot token {v}"),
)
plain(
    "discord_webhook",
    lambda: f"https://discord.com/api/webhooks/{S.chars(DIGITS, 18)}/{S.chars(URLSAFE, 68)}",
)
plain(
    "mailgun", lambda: "key-" + S.chars(HEXL, 32), ("MAILGUN_API_KEY={v}", "{v}", "mailgun key {v}")
)
plain(
    "mailgun_private",
    lambda: f"{S.chars(HEXL, 32)}-{S.chars(HEXL, 8)}-{S.chars(HEXL, 8)}",
    ("MAILGUN_API_KEY={v}", "mailgun private key {v}"),
)
plain("mailchimp", lambda: S.chars(HEXL, 32) + "-us" + str(S.between(1, 21)))
plain(
    "datadog_api",
    lambda: S.chars(HEXL, 32),
    ("DD_API_KEY={v}", "datadog api key {v}", "DATADOG_API_KEY: {v}"),
)
plain(
    "datadog_app",
    lambda: S.chars(HEXL, 40),
    ("DD_APP_KEY={v}", "datadog application key {v}", "DD_APPLICATION_KEY: {v}"),
)
plain("shopify", lambda: S.pick(["shpat_", "shpss_", "shpca_", "shppa_"]) + S.chars(HEXL, 32))
plain("npm", lambda: "npm_" + S.chars(AN, 36))
plain("pypi", lambda: "pypi-AgEIcHlwaS5vcmc" + S.chars(URLSAFE, 60))
plain(
    "openai", lambda: "sk-" + S.pick(["proj-", ""]) + S.chars(AN, 20) + "T3BlbkFJ" + S.chars(AN, 20)
)
plain("anthropic", lambda: "sk-ant-api03-" + S.chars(URLSAFE, 93) + "AA")
plain("huggingface", lambda: "hf_" + S.chars(UPPER + LOWER, 34))
plain("digitalocean", lambda: S.pick(["dop_v1_", "doo_v1_", "dor_v1_"]) + S.chars(HEXL, 64))
plain("vault", lambda: "hvs." + S.chars(URLSAFE, 90))
plain("age_key", lambda: "AGE-SECRET-KEY-1" + S.chars("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))
plain("doppler", lambda: "dp.pt." + S.chars(AN, 43))
plain("pulumi", lambda: "pul-" + S.chars(HEXL, 40))
plain("databricks", lambda: "dapi" + S.chars("abcdefgh" + DIGITS, 32))
plain("linear", lambda: "lin_api_" + S.chars(AN, 40))
plain("notion", lambda: "ntn_" + S.chars(DIGITS, 11) + S.chars(AN, 35))
plain("airtable", lambda: "pat" + S.chars(AN, 14) + "." + S.chars(HEXL, 64))
plain("atlassian", lambda: "ATATT3xFfGF0" + S.chars(URLSAFE, 170) + "=" + S.chars(UAN, 8))
plain("sentry_token", lambda: "sntrys_eyJpYXQiOjE3" + S.chars(AN, 140))
plain(
    "sentry_dsn",
    lambda: S.chars(HEXL, 32),
    (
        "https://{v}@o{n}.ingest.sentry.io/4506".replace("{n}", "4501234"),
        "SENTRY_DSN=https://{v}@o88123.ingest.us.sentry.io/77",
    ),
)
plain("newrelic", lambda: "NRAK-" + S.chars(UAN, 27))
plain("grafana", lambda: "glsa_" + S.chars(AN, 32) + "_" + S.chars(HEXL, 8))
plain("dynatrace", lambda: f"dt0c01.{S.chars(UAN, 24)}.{S.chars(UAN, 64)}")
plain("postman", lambda: f"PMAK-{S.chars(HEXL, 24)}-{S.chars(HEXL, 34)}")
plain("square", lambda: S.pick(["sq0atp-", "EAAA"]) + S.chars(URLSAFE, 60))
plain("alibaba", lambda: "LTAI" + S.chars(AN, 20))
plain("tailscale", lambda: "tskey-auth-" + S.chars(AN, 17) + "-" + S.chars(AN, 32))
plain("docker_hub", lambda: "dckr_pat_" + S.chars(URLSAFE, 27))
plain("rubygems", lambda: "rubygems_" + S.chars(HEXL, 48))
plain("jfrog", lambda: "AKCp" + S.chars(AN, 69))
plain("sonarqube", lambda: S.pick(["sqp_", "squ_", "sqa_"]) + S.chars(HEXL, 40))
plain("brevo", lambda: f"xkeysib-{S.chars(HEXL, 64)}-{S.chars(AN, 16)}")
plain("groq", lambda: "gsk_" + S.chars(AN, 52))
plain("replicate", lambda: "r8_" + S.chars(AN, 37))
plain("supabase", lambda: "sbp_" + S.chars(HEXL, 40))
plain("planetscale", lambda: "pscale_tkn_" + S.chars(URLSAFE, 43))
plain("mapbox_secret", lambda: "sk.eyJ1Ijoi" + S.chars(AN, 40) + "." + S.chars(URLSAFE, 22))
plain(
    "teams_webhook",
    lambda: (
        f"https://acme.webhook.office.com/webhookb2/{uuid4()}@{uuid4()}/IncomingWebhook/{S.chars(HEXL, 32)}/{uuid4()}"
    ),
)
plain("heroku", lambda: "HRKU-AA" + S.chars(URLSAFE, 58))
plain("cloudflare_origin_ca", lambda: f"v1.0-{S.chars(HEXL, 24)}-{S.chars(HEXL, 146)}")
plain("terraform_cloud", lambda: f"{S.chars(AN, 14)}.atlasv1.{S.chars(AN, 67)}")


@maker("jwt")
def _jwt() -> tuple[str, list[str]]:
    head = (
        base64.urlsafe_b64encode(b'{"alg":"RS256","kid":"' + S.chars(AN, 8).encode() + b'"}')
        .rstrip(b"=")
        .decode()
    )
    body = (
        base64.urlsafe_b64encode(b'{"sub":"' + S.chars(DIGITS, 6).encode() + b'","exp":1798761600}')
        .rstrip(b"=")
        .decode()
    )
    token = f"{head}.{body}.{S.chars(URLSAFE, 43)}"
    return S.pick(["{v}", "id_token: {v}", "cookie session={v}"]).format(v=token), [token]


@maker("private_key")
def _pem() -> tuple[str, list[str]]:
    kind = S.pick(["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "])
    body = [S.chars(B64, 64) for _ in range(S.between(3, 5))]
    block = (
        f"-----BEGIN {kind}PRIVATE KEY-----\n"
        + "\n".join(body)
        + f"\n-----END {kind}PRIVATE KEY-----"
    )
    return block, [body[1]]


@maker("basic_auth_header")
def _basic() -> tuple[str, list[str]]:
    user = S.pick(["deploy", "ci-bot", "grafana", "admin", "svc-reports"])
    secret = fresh(lambda: S.chars(AN, 10) + S.pick("!#%") + S.chars(DIGITS, 2))
    encoded = b64(f"{user}:{secret}".encode())
    return S.pick(
        ["Authorization: Basic {v}", "-H 'Authorization: Basic {v}'", "basic auth header Basic {v}"]
    ).format(v=encoded), [encoded]


@maker("bearer_header")
def _bearer() -> tuple[str, list[str]]:
    token = fresh(lambda: S.chars(AN, 32))
    return f"Authorization: Bearer {token}", [token]


@maker("url_credentials")
def _url() -> tuple[str, list[str]]:
    pw = fresh(lambda: S.chars(AN, 6) + S.pick("!*~") + S.chars(DIGITS, 3))
    scheme = S.pick(["postgresql", "mysql", "mongodb+srv", "amqp", "redis", "https"])
    return f"{scheme}://svc_{S.chars(LOWER, 4)}:{pw}@db-{S.chars(LAN, 5)}.internal:5432/main", [pw]


@maker("adonet_connection")
def _adonet() -> tuple[str, list[str]]:
    pw = fresh(lambda: S.chars(AN, 7) + S.pick("#$%") + S.chars(DIGITS, 2))
    return (
        f"Server=tcp:sql-{S.chars(LAN, 4)}.database.windows.net,1433;User ID=appuser;Password={pw};Encrypt=True;",
        [pw],
    )


def human_password() -> str:
    season = S.pick(
        [
            "Winter",
            "Summer",
            "Spring",
            "Autumn",
            "Dragon",
            "Monkey",
            "Sunshine",
            "Welcome",
            "Hunter",
            "Kestrel",
        ]
    )
    return fresh(
        lambda: S.pick(
            [
                season + str(S.between(1990, 2027)) + S.pick("!@#$"),
                season.lower() + S.chars(DIGITS, 2) + S.chars(LOWER, 3) + S.pick("!?"),
                S.chars(AN, 9) + S.pick("!@#$%&*") + S.chars(DIGITS, 1),
                "Tr0ub4dor" + S.chars(DIGITS, 3),
                S.pick(["P@ss", "Adm1n", "R00t", "S3cure"]) + S.chars(DIGITS, 4) + S.pick("!$"),
            ]
        )
    )


@maker("password_prose")
def _prose() -> tuple[str, list[str]]:
    pw = human_password()
    frame = S.pick(
        [
            "the password is {v}",
            "password for the staging box is {v}",
            "the new wifi password is '{v}'",
            "I set the admin password to {v}",
            "db password: {v}",
            "its passphrase is {v}",
            "the keystore password was {v}",
            "use password {v} for now",
        ]
    )
    return frame.format(v=pw), [pw]


@maker("login_pair")
def _pair() -> tuple[str, list[str]]:
    pw = human_password()
    user = S.pick(["root", "admin", "postgres", "jenkins", "ubuntu", "sa"])
    frame = S.pick(
        [
            "login {u} / {v}",
            "credentials: {u} / {v}",
            "creds are {u}/{v}",
            "log in as {u} with password {v}",
            "the vendor's login is {u} : {v}",
        ]
    )
    return frame.format(u=user, v=pw), [pw]


@maker("short_assignment")
def _short() -> tuple[str, list[str]]:
    pw = human_password()
    key = S.pick(
        [
            "DB_PASSWORD",
            "PGPASSWORD",
            "REDIS_PASS",
            "SMTP_PASSWORD",
            "MYSQL_ROOT_PASSWORD",
            "admin_pass",
            "KEYSTORE_PASS",
            "LDAP_BIND_PASSWORD",
        ]
    )
    frame = S.pick(["{k}={v}", "export {k}={v}", "{k}: {v}", '{k} = "{v}"', "--{kl}={v}"])
    return frame.format(k=key, kl=key.lower().replace("_", "-"), v=pw), [pw]


@maker("curl_user")
def _curl() -> tuple[str, list[str]]:
    pw = human_password()
    return f"curl -u deploy:{pw} https://artifacts.corp.example/api/upload", [pw]


# --- Templates: not decision rationales; the surrounding genres a journal also receives -------

POSITIVE_FRAMES = [
    "Pinging here so it's written down somewhere: {s} (rotate after the demo).",
    "ticket OPS-{n}: reporter pasted {s} into the description, moving it to the vault",
    "Step 4 of the restore runbook uses {s}; ask #infra before running it.",
    "fix(ci): stop echoing {s} in the deploy job log",
    "Reviewer note: line {n} hardcodes {s}, which must come from the secret store instead.",
    "Context for later: the old cron box still has {s} in its crontab.",
    "> {s}\nThat's what the contractor sent over email, unencrypted.",
    "env dump from pod api-{n}:\n{s}\nLANG=C.UTF-8",
    "Went with the managed option; while migrating I found {s} in a notebook.",
    "We agreed to revoke {s} today and switch to short-lived credentials.",
    "  - name: upload\n    run: ./push.sh\n    env:\n      TOKEN_LINE: {s}",
    "quick q: is {s} still valid or was it rotated last sprint?",
    "Incident {n} timeline, 14:02 — {s} found in a public gist.",
    "Decided against the sidecar. FYI for whoever picks this up, {s}.",
    "{s}",
]

NEGATIVES = [
    "Merged {sha} after review; the flaky test was a timezone issue in the fixture.",
    "The image digest is sha256:{hex64}, pinned in the Helm values for reproducible rollouts.",
    "Request {uuid} timed out after 30 s because the upstream pool was exhausted.",
    "We rotate the password every 90 days and store it in Vault under secret/data/payments.",
    "The password field is hashed with argon2id (m=64MiB, t=3, p=1) before it reaches the DB.",
    "Set DB_PASSWORD=${{DB_PASSWORD}} in the compose file; the real value comes from the CI secret.",
    "AWS docs use AKIAIOSFODNN7EXAMPLE as the access key id in every tutorial, so the linter allows it.",
    "password: changeme is the chart default and the install job refuses to start with it.",
    "Token bucket rate limiting: 100 requests per minute, bursts of 20, refill every 600 ms.",
    "Bumped pydantic to 2.9.2 and fastapi to 0.115.4; no API changes for us.",
    "The login page now shows 'user / password' placeholders in the form, per the design review.",
    "Use `export GITHUB_TOKEN=$(gh auth token)` locally instead of pasting a token.",
    "The secret key rotation job runs at 03:00 UTC; see cron.d/rotate-keys for the schedule.",
    "Stored the API key in 1Password under 'Payments / Stripe live'; ask Dana for access.",
    "Commit {short} reverted the bearer-token middleware because it broke websocket upgrades.",
    'ETag "{hex32}" is the MD5 of the body; clients send it back in If-None-Match.',
    "The build cache key is {hex40} (hash of the lockfile), so it only misses after dependency bumps.",
    "OAuth flow: the client gets an authorization code, exchanges it for an access token, and refreshes it hourly.",
    "Password reset emails go through SES; the token in the link expires after 15 minutes.",
    "We picked RS256 over HS256 so services verify JWTs with the public key only.",
    "Trace id {hex32} links the slow request to the N+1 query in the orders view.",
    "Basic auth is disabled on the admin panel; only SSO via OIDC is allowed now.",
    "The Authorization header is forwarded by the proxy only for /api paths.",
    "postgres://localhost:5432/app is the default DATABASE_URL in development, no credentials needed.",
    "Set `password_min_length = 12` and require one digit, per the security review.",
    "Key ids look like kid-{n} in the JWKS document; we cache it for an hour.",
    "Our Slack webhook URL lives in the SLACK_WEBHOOK_URL secret, never in the repo.",
    "Migration 0042 adds an index on users(email); ran in 4.2 s on the staging copy.",
    "Renamed api_key to api_key_id in the schema, since it only stores the key's id, not the key.",
    "The keystore uses PKCS#12; its password is read from KEYSTORE_PASSWORD at startup.",
    "Admin login is admin / <set at install>, documented in the install guide.",
    "Root user / group mapping is 0:0 inside the container; we run as 10001 instead.",
    "Chose UUIDv7 ({uuid}) for primary keys so inserts stay roughly ordered.",
    'curl -u "$USER:$TOKEN" is how the upload script authenticates; both come from the environment.',
    "The Datadog agent reads DD_API_KEY from the node's secret, mounted at /etc/dd/api_key.",
    "Twilio sends the status callback to /hooks/sms; we verify the X-Twilio-Signature header.",
    "The Telegram bot polls getUpdates every 2 s; the token is injected by systemd's LoadCredential.",
    "Azure Storage connection strings now come from Key Vault references, not app settings.",
    "sha1 of the release tarball: {hex40}; sha512 is in the .sha512 file next to it.",
    "We store the password hash as $argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2g in the users table.",
    "Session cookies are signed with HMAC-SHA256; the signing key rotates weekly.",
    "Discord bot permissions integer 274877975552 covers send, embed and read history.",
    "Mailgun's sandbox domain only delivers to authorized recipients, so staging uses it.",
    "The Shopify app requests read_orders and write_products scopes during install.",
    "Base64 of the 1x1 PNG fixture is iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==, used in tests.",
    "Use `kubectl create secret generic db --from-literal=password=$DB_PASS` in the bootstrap script.",
    "Version pins: node 20.18.1, pnpm 9.12.3, terraform 1.9.8, go 1.23.4.",
    "The retry policy is exponential with jitter: 200 ms, 400 ms, 800 ms, capped at 5 s.",
    "GPG key fingerprint {hex40_upper} signs the release artifacts.",
    "secret_key_base is generated per environment with `rails secret` and kept in credentials.yml.enc.",
    "Default credentials for the local MinIO are documented as minioadmin/minioadmin; prod uses IAM.",
    "Look up the deployment with `kubectl get deploy api -o jsonpath='{{.spec.template.metadata.annotations}}'`.",
    "Password policy decision: passphrases of four or more words beat forced symbol rules.",
    "The pre-commit hook runs gitleaks on staged files and blocks tokens before they're pushed.",
    "Chose to key the cache by (tenant_id, sku) because SKU alone collides across tenants.",
    "The build number {n} produced artifact app-{short}.tar.gz, 48 MiB compressed.",
    "Feature flag new-checkout is at 25% rollout; kill switch is in LaunchDarkly.",
    "Tokens per minute limit on the model API is 2M; we batch embeddings in groups of 96.",
    "The access key id column is varchar(20) and the secret column is encrypted with KMS.",
    "Client id {uuid} identifies the OAuth app; the secret is in the vault.",
]


def hexs(n: int) -> str:
    return S.chars(HEXL, n)


def fill_negative(template: str) -> str:
    return template.format(
        sha=hexs(40),
        hex64=hexs(64),
        hex40=hexs(40),
        hex32=hexs(32),
        short=hexs(7),
        uuid=uuid4(),
        n=S.between(2, 9999),
        hex40_upper=hexs(40).upper(),
    )


def positives() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for family in sorted(MAKERS):
        for _ in range(10):
            fragment, values = MAKERS[family]()
            frame = S.pick(POSITIVE_FRAMES)
            text = frame.replace("{n}", str(S.between(10, 9999))).replace("{s}", fragment)
            rows.append({"text": text, "family": family, "secrets": values})
    return rows


NEGATIVE_FRAMES = [
    "{s}",
    "ticket OPS-{n}: {s}",
    "fix: {s}",
    "Reviewer note on line {n}: {s}",
    "Runbook step {n}. {s}",
    "> {s}\nAgreed, closing the thread.",
    "quick context for whoever reads this later: {s}",
    "Decided: {s}",
]


def negatives() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    seen: set[str] = set()
    while len(rows) < 720:
        for template in NEGATIVES:
            frame = S.pick(NEGATIVE_FRAMES).replace("{n}", str(S.between(2, 9999)))
            text = frame.replace("{s}", fill_negative(template))
            if text not in seen:
                seen.add(text)
                rows.append({"text": text, "family": ""})
    return rows


def write(name: str, rows: list[dict[str, object]]) -> None:
    with (HERE / name).open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    pos, neg = positives(), negatives()
    write("heldout_positives.jsonl", pos)
    write("heldout_negatives.jsonl", neg)
    print(f"{len(pos)} positives over {len(MAKERS)} families, {len(neg)} negatives")


if __name__ == "__main__":
    main()
