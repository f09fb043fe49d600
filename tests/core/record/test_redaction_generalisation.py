"""Properties that say whether redaction generalises past the sentences it was tuned on.

Every sentence here is drawn at random: the secret (with the characters that cut values short,
``+ / = # ? @ ! % $ & * '``), the key's spelling (words, separators, case, camelCase), the
config syntax or command, and the prose around it, English and Korean with its particles. A
rule that only knows the corpora's phrasings fails here.

The other half is hard negatives: what stands where a credential would, and is not one:
references (``$VAR``, ``${VAR}``, ``%(x)s``, ``{{ x }}``, ``process.env.X``,
``os.environ[...]``, ``settings.X``), placeholders (``<your-token>``, ``XXXX``, ``****``,
``...``, ``[REDACTED]``), identifiers public by design (a Twilio SID alone, Stripe ``pk_``
keys, SSH and PEM public keys), hashes and ids (git SHAs, UUIDs, integrity hashes, image
digests), base64 of ordinary data, and prose about a password that gives none.
"""

from __future__ import annotations

import base64
import hashlib
import re
import string
import uuid

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bench.redaction_scoring import leaked
from core.record.redaction import redact_text
from core.record.redaction_values import is_placeholder

# --- Values ---------------------------------------------------------------------------------

HARD = "+/=#?@!%$&*'"
"""The characters that cut a value short or end it early in a naive pattern."""
BODY = string.ascii_letters + string.digits + HARD + "_-.^~"


WORDS = ["maple", "tiger", "nimbus", "harbor", "quartz", "falcon", "river", "cedar", "orbit",
         "canyon", "seoul", "hangang", "mocha", "birch", "fjord", "zebra", "winter"]  # fmt: skip


@st.composite
def passwords(draw: st.DrawFn, *, quote_free: bool = False) -> str:
    """A password a generator or a person picks: 8 to 32 characters spread from drawn bytes (so
    shrinking never turns it into filler), or words, digits and a symbol ("Maple$3794ember");
    a letter first, a digit, and at least one of the hard characters either way."""
    alphabet = BODY.replace("'", "") if quote_free else BODY
    hard = HARD.replace("'", "") if quote_free else HARD
    seed = draw(st.binary(min_size=8, max_size=8))
    stream = hashlib.shake_256(seed).digest(64)
    if draw(st.booleans()):
        size = 6 + stream[0] % 24
        body = "".join(alphabet[b % len(alphabet)] for b in stream[1 : 1 + size])
    else:
        first, second = WORDS[stream[0] % len(WORDS)], WORDS[stream[1] % len(WORDS)]
        body = first + str(stream[2] * 37 % 10000) + second.title()
    value = (
        string.ascii_letters[stream[40] % 52]
        + body[: len(body) // 2]
        + hard[stream[41] % len(hard)]
        + body[len(body) // 2 :]
        + string.digits[stream[42] % 10]
    )
    assume(len(set(value)) >= 6 and re.search(r"(.)\1{3,}", value) is None)
    assume(not is_placeholder(value))
    assume("[" not in value and "]" not in value)
    return value


@st.composite
def tokens(draw: st.DrawFn) -> str:
    """A generated API token: 20 to 48 characters of base62, sometimes base64 with + / =."""
    alphabet = draw(
        st.sampled_from(
            [string.ascii_letters + string.digits, string.ascii_letters + string.digits + "+/"]
        )
    )
    body = draw(st.text(alphabet=alphabet, min_size=20, max_size=48))
    assume(sum(c.isdigit() for c in body) >= 2 and sum(c.isalpha() for c in body) >= 6)
    assume(len(set(body)) >= 12 and not is_placeholder(body))
    pad = draw(st.sampled_from(["", "=", "=="])) if "+" in alphabet else ""
    return body + pad


# --- Key names ------------------------------------------------------------------------------

OWNERS = [
    "", "db", "admin", "smtp", "redis", "app", "service", "root", "mail", "ldap", "api", "prod",
    "stripe", "github", "deploy", "ci", "vault", "backend", "jwt", "session",
]  # fmt: skip
SECRET_HEADS = [
    ("password",), ("passwd",), ("pwd",), ("pass",), ("passphrase",), ("secret",),
    ("token",), ("api", "key"), ("apikey",), ("auth", "token"), ("access", "token"),
    ("client", "secret"), ("secret", "key"), ("private", "key"), ("signing", "key"),
    ("access", "key"), ("refresh", "token"), ("credentials",), ("app", "secret"),
    ("encryption", "key"), ("master", "key"), ("webhook", "secret"),
]  # fmt: skip


@st.composite
def key_names(draw: st.DrawFn) -> str:
    """A key that names a secret, spelled as some config writes it."""
    owner = draw(st.sampled_from(OWNERS))
    head = draw(st.sampled_from(SECRET_HEADS))
    words = ([owner] if owner else []) + list(head)
    style = draw(st.sampled_from(["snake", "SCREAMING", "kebab", "camel", "Pascal", "dotted"]))
    if style == "snake":
        return "_".join(words)
    if style == "SCREAMING":
        return "_".join(words).upper()
    if style == "kebab":
        return "-".join(words)
    if style == "dotted":
        return ".".join(words)
    first, *rest = words
    camel = (first if style == "camel" else first.title()) + "".join(w.title() for w in rest)
    return camel


# --- Where a value stands -------------------------------------------------------------------

# {k} the key, {v} the value. Forms that quote with ' take no ' in the value; bare shell words
# take none either.
QUOTE_SAFE_FORMS = [
    '{k}="{v}"', 'export {k}="{v}"', '"{k}": "{v}"', '{k} = "{v}"', '{k}: "{v}"',
    '  {k}: "{v}"', '$env:{k} = "{v}"', '{k} := "{v}"', 'const {k} = "{v}";',
    '{k} ?= "{v}"', 'Environment="{k}={v}"', '<{k}>{v}</{k}>', '{k}={v}', '{k}: {v}',
    "- {k}={v}", "{k} = {v}", "  {k}: {v}", "ENV {k}={v}",
    '<add key="{k}" value="{v}" />', "{k}={v}  # rotated",
]  # fmt: skip
NO_QUOTE_FORMS = ["export {k}='{v}'", "{k}: '{v}'", "{k} = '{v}'", "set {k}='{v}'"]
PREFIXES = [
    "", "# config\n", "see below:\n", "deploy notes -- ", "[prod]\n", "services:\n  web:\n",
    "커밋 전에 확인: ", "다음 설정을 씁니다.\n", "Fixed the failing job. ", "```\n",
]  # fmt: skip
SUFFIXES = ["", "\n", "\n```", " -- do not share", "\nDEBUG=false", " 입니다.", "\nPORT=8080"]


def _check_caught(text: str, secret: str) -> None:
    out, report = redact_text(text)
    assert report.redacted, text
    assert not leaked(secret, text, out), (text, out)


@settings(max_examples=400, deadline=None)
@given(
    st.data(),
    key_names(),
    st.sampled_from(PREFIXES),
    st.sampled_from(SUFFIXES),
)
def test_a_value_under_a_key_that_names_a_secret_goes_whole(
    data: st.DataObject, key: str, before: str, after: str
) -> None:
    value = data.draw(st.one_of(passwords(quote_free=True), tokens()))
    forms = list(QUOTE_SAFE_FORMS)
    if "'" not in value:
        forms += NO_QUOTE_FORMS
    form = data.draw(st.sampled_from(forms))
    _check_caught(before + form.format(k=key, v=value) + after, value)


# --- Prose, English and Korean ---------------------------------------------------------------

EN_WORDS = ["password", "passwd", "pw", "passphrase", "root password", "admin password",
            "db password", "API key", "api token", "access token", "secret", "client secret",
            "auth token", "token"]  # fmt: skip
EN_FORMS = [
    "the {w} is {v}", "the {w} for the bastion host is {v}", "{w}: {v}", "{w} = {v}",
    "new {w} is {v} (rotated today)", "use {v} as the {w}", "set the {w} to {v}",
    "{w} was changed to {v}", "{W}: {v}", "FYI the {w} is now {v}.", "the {w} is `{v}`",
    'the {w} is "{v}"', "{w} -> {v}", "my {w} is {v}, don't share it",
    "use this {w} for the Cloudflare sandbox: {v}", "the {w} for the Tokyo mirror: {v}",
    "the {w} on the Isilon array is {v}",
]  # fmt: skip
KO_WORDS = ["암호", "비밀번호", "비번", "패스워드", "토큰", "API 키", "시크릿", "인증 토큰",
            "액세스 키", "관리자 암호", "DB 비밀번호", "서버 비밀번호", "접속 토큰"]  # fmt: skip
KO_FORMS = [
    "{w}: {v}", "{w}는 {v}", "{w}은 {v}", "{w}는 {v} 입니다", "{w}는 {v}입니다.",
    "{w}가 {v}로 바뀌었습니다", "{w}이 {v}로 바뀌었습니다", "새 {w}: {v}",
    "{w} = {v}", "{w}는 `{v}` 이에요", "{w}는 \"{v}\"입니다", "{w}를 {v}로 바꿨어요",
]  # fmt: skip
EN_AROUND = ["", "Heads up: ", "After the migration, ", "(internal) ", "Per the runbook, "]
KO_AROUND = ["", "참고로 ", "배포 후에 ", "공유 금지: ", "어제 회의에서 정한 대로 "]


LANGUAGES = {"en": (EN_WORDS, EN_FORMS, EN_AROUND), "ko": (KO_WORDS, KO_FORMS, KO_AROUND)}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
@settings(max_examples=400, deadline=None)
@given(data=st.data(), value=passwords(quote_free=True))
def test_a_password_in_a_sentence_goes_whole(
    language: str, data: st.DataObject, value: str
) -> None:
    words, forms, around = LANGUAGES[language]
    assume(not value.endswith((".", ",")))  # the sentence's own punctuation ends it there
    word = data.draw(st.sampled_from(words))
    form = data.draw(st.sampled_from(forms))
    text = data.draw(st.sampled_from(around)) + form.format(w=word, W=word.upper(), v=value)
    _check_caught(text, value)


# --- Command lines --------------------------------------------------------------------------

FLAG_FORMS = [
    "mycli deploy --password '{v}'", "mycli deploy --password='{v}'", "tool --token '{v}' run",
    "vercel deploy --prod --token '{v}'", "app --api-key='{v}' --region eu",
    "svc login --client-secret '{v}'", "sshpass -p '{v}' ssh deploy@10.0.0.4",
    "mysql -h db -u root -p'{v}' shop", "redis-cli -h cache -a '{v}' ping",
    "curl -u deploy:'{v}' https://ci.corp.example", "PGPASSWORD='{v}' psql -h db -U app",
    "docker login -u ci -p '{v}' registry.corp.example", "psql --password '{v}' --host db",
    "openssl pkcs12 -in a.p12 -passin 'pass:{v}'", "tool --db-password \"{v}\" migrate",
    "ldapsearch -x -D cn=admin -w '{v}' -b dc=corp", "helm repo add x https://h -p '{v}'",
    "./deploy.sh --auth-token \"{v}\"", "npx tool --access-token='{v}'",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(passwords(quote_free=True), st.sampled_from(FLAG_FORMS), st.sampled_from(EN_AROUND))
def test_a_flag_that_takes_a_secret_gives_it_up_whole(value: str, form: str, around: str) -> None:
    if '"{v}"' in form:
        assume(not any(c in value for c in '"$\\`'))
    _check_caught(around + form.format(v=value), value)


# --- URL user-info ----------------------------------------------------------------------------

SCHEMES = ["https", "postgres", "postgresql", "mysql", "redis", "amqp", "mongodb+srv", "ftp",
           "smtp", "git+https", "ldap"]  # fmt: skip
HOSTS = ["db.internal", "git.corp.example", "10.1.2.3", "cache.prod.svc", "mq.example.net"]
USERS = ["app", "ci-bot", "deploy", "admin", "svc_user", "root", "jiwoo.kim@acme.io", ""]


@settings(max_examples=400, deadline=None)
@given(passwords(quote_free=True), st.sampled_from(HOSTS), st.data())
def test_a_url_password_goes_whole_and_the_host_stays(
    value: str, host: str, data: st.DataObject
) -> None:
    scheme, user = data.draw(st.sampled_from(SCHEMES)), data.draw(st.sampled_from(USERS))
    tail = data.draw(st.sampled_from(["", ":5432", ":6379/0", "/shop?sslmode=require", "/x.git"]))
    around = data.draw(st.sampled_from(EN_AROUND + KO_AROUND))
    text = f"{around}{scheme}://{user}:{value}@{host}{tail}"
    out = redact_text(text)[0]
    assert not leaked(value, text, out), (text, out)
    assert host in out, (text, out)


# --- Pairs ------------------------------------------------------------------------------------

HEX = "0123456789abcdef"


def _random(value: str, distinct: int) -> bool:
    """Generated, not filler: many distinct characters and no run of four."""
    return len(set(value)) >= distinct and re.search(r"(.)\1{3,}", value) is None


def _hashed(size: int, alphabet: str) -> st.SearchStrategy[str]:
    """``size`` characters of ``alphabet`` spread as a generator spreads them: hashed from
    drawn bytes, so shrinking never turns them into filler."""
    return st.binary(min_size=8, max_size=8).map(
        lambda seed: "".join(
            alphabet[b % len(alphabet)] for b in hashlib.shake_256(seed).digest(size)
        )
    )


@settings(max_examples=200, deadline=None)
@given(
    _hashed(32, HEX),
    _hashed(32, HEX),
    st.sampled_from(
        [
            "curl https://api.twilio.com/2010-04-01/Accounts.json -u {i}:{s}",
            "twilio: sid {i}, auth token {s}",
            "TWILIO_ACCOUNT_SID={i}\nTWILIO_AUTH_TOKEN={s}",
            "export TWILIO_ACCOUNT_SID={i} TWILIO_AUTH_TOKEN={s}",
        ]
    ),
)
def test_the_secret_beside_an_id_goes_and_an_id_alone_stays(
    sid: str, secret: str, form: str
) -> None:
    assume(_random(secret, 10) and _random(sid, 10) and sid[:6] != secret[:6])
    ident = "AC" + sid
    text = form.format(i=ident, s=secret)
    out = redact_text(text)[0]
    assert not leaked(secret, text, out), (text, out)
    alone = f"Account SID {ident} is the one in the console"
    assert redact_text(alone)[0] == alone


@settings(max_examples=200, deadline=None)
@given(
    _hashed(16, string.ascii_uppercase + "234567"),
    _hashed(40, string.ascii_letters + string.digits + "+/"),
    st.sampled_from(
        [
            "AWS_ACCESS_KEY_ID={i}\nAWS_SECRET_ACCESS_KEY={s}",
            "[default]\naws_access_key_id = {i}\naws_secret_access_key = {s}",
            "aws configure set aws_access_key_id {i} && aws configure set "
            "aws_secret_access_key {s}",
            '{{"AccessKeyId": "{i}", "SecretAccessKey": "{s}"}}',
            "key id {i}, secret {s}",
        ]
    ),
)
def test_an_access_key_pair_goes_together(ident: str, secret: str, form: str) -> None:
    assume(sum(c.isdigit() for c in secret) >= 2 and any(c.isupper() for c in secret))
    assume(any(c.islower() for c in secret) and _random(secret, 16) and _random(ident, 8))
    key_id = "AKIA" + ident
    text = form.format(i=key_id, s=secret)
    out = redact_text(text)[0]
    assert not leaked(secret, text, out), (text, out)
    assert not leaked(key_id, text, out), (text, out)


# --- Hard negatives ---------------------------------------------------------------------------

NAMES = st.from_regex(r"[A-Z][A-Z0-9]{1,8}(?:_[A-Z][A-Z0-9]{1,8}){0,3}", fullmatch=True)
LOWER_NAMES = st.from_regex(r"[a-z][a-z0-9]{1,8}(?:_[a-z][a-z0-9]{1,8}){0,2}", fullmatch=True)


@st.composite
def references(draw: st.DrawFn) -> str:
    """A reference to a secret kept elsewhere, or filler in its place."""
    name = draw(NAMES)
    lower = draw(LOWER_NAMES)
    return draw(
        st.sampled_from(
            [
                f"${name}", f"${{{name}}}", f"${{{name}:?missing}}", f"${{{name}:-}}",
                f"%({lower})s", f"{{{{ {lower} }}}}", f"{{{{ .Values.{lower}.{lower} }}}}",
                f"${{{{ secrets.{name} }}}}", f"process.env.{name}",
                f'process.env["{name}"]', f'os.environ["{name}"]', f'os.getenv("{name}")',
                f"os.environ.get('{name}')", f"settings.{name}", f"config.{lower}.{lower}",
                f"ENV.fetch('{name}')", f"<your-{lower.replace('_', '-')}>", f"<{name}>",
                f"YOUR_{name}_HERE", "XXXXXXXXXXXXXXXXXXXX", "xxxxxxxxxxxx", "****", "********",
                "...", "[REDACTED]", "<redacted>", "TODO", "<set-in-vault>", "changeme",
                f"op://infra/{lower}/credential", f"vault:secret/data/{lower}#{lower}",
                f"arn:aws:secretsmanager:eu-west-1:123456789012:secret:{lower}-AbCdEf",
                f"projects/acme/secrets/{lower}/versions/latest", "''", '""',
                f"var.{lower}", f"local.{lower}", f"$env:{name}", f"{{env:{name}}}",
                f"$({name})", f"!Ref {lower.title().replace('_', '')}", f"sk-...{lower[:4]}",
                f"****{lower[:4]}", f"${{env:{name}}}", "null",
            ]
        )
    )  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.data(), key_names(), st.sampled_from(PREFIXES), st.sampled_from(SUFFIXES))
def test_a_reference_or_filler_where_a_secret_would_stand_stays(
    data: st.DataObject, key: str, before: str, after: str
) -> None:
    reference = data.draw(references())
    form = data.draw(st.sampled_from(QUOTE_SAFE_FORMS[:18]))
    if reference.startswith(("'", '"')) or '"' in reference:
        assume('"{v}"' not in form)
    if "<" in reference or "[" in reference:
        assume("<{k}>" not in form)
    text = before + form.format(k=key, v=reference) + after
    out = redact_text(text)[0]
    assert out == text, (text, out)


@settings(max_examples=300, deadline=None)
@given(
    st.data(),
    st.sampled_from([*FLAG_FORMS, "gh secret set API_TOKEN --body '{v}'"]),
)
def test_a_reference_passed_to_a_flag_stays(data: st.DataObject, form: str) -> None:
    name = data.draw(NAMES)
    reference = data.draw(st.sampled_from([f"${name}", f"${{{name}}}", "$(cat /run/secrets/pw)"]))
    text = form.replace("'{v}'", '"{v}"').format(v=reference)
    assert redact_text(text)[0] == text, text


@st.composite
def public_identifiers(draw: st.DrawFn) -> tuple[str, str]:
    """(a sentence, the identifier in it): public by design, or a hash or an id."""
    raw = draw(st.binary(min_size=32, max_size=32))
    hexa = raw.hex()
    b64 = base64.b64encode(raw + draw(st.binary(min_size=32, max_size=32))).decode()
    sha1 = hashlib.sha1(raw).hexdigest()
    uid = str(uuid.UUID(bytes=raw[:16]))
    alnum = base64.b32encode(raw).decode().rstrip("=").lower()
    cursor = base64.urlsafe_b64encode(
        f'{{"offset": {raw[0] * 97}, "sort": "created_at"}}'.encode()
    ).decode()
    kinds = [
        (f"AC{hexa}", "Twilio Account SID {x} (the auth token is in the vault)"),
        (f"pk_live_{alnum[:24]}", "Stripe publishable key for the checkout page: {x}"),
        (f"pk_test_{alnum[:24]}", 'STRIPE_PUBLISHABLE_KEY="{x}"'),
        (f"ssh-ed25519 {b64[:68]} deploy@ci", "authorized_keys:\n{x}"),
        (f"ssh-rsa AAAAB3NzaC1yc2E{b64.rstrip('=')} ops@bastion", "add this public key: {x}"),
        (
            f"-----BEGIN PUBLIC KEY-----\n{b64}\n{b64}\n-----END PUBLIC KEY-----",
            "public_key: |\n{x}",
        ),
        (
            f"-----BEGIN CERTIFICATE-----\n{b64}\n{b64}\n-----END CERTIFICATE-----",
            "ca.crt:\n{x}",
        ),
        (sha1, "fixed in commit {x}"),
        (sha1, "git cherry-pick {x}"),
        (sha1[:12], "reverts {x}, which broke the token refresh"),
        (uid, "request_id={x} status=401 token expired"),
        (uid, "tenant_id: {x}"),
        (uid, "AZURE_CLIENT_ID={x}"),
        (f"sha512-{b64}", '"integrity": "{x}"'),
        (f"sha256:{hashlib.sha256(raw).hexdigest()}", "image: ghcr.io/acme/api@{x}"),
        (f"h1:{b64[:43]}=", "golang.org/x/crypto v0.31.0 {x}"),
        (f"sha256:{hashlib.sha256(raw).hexdigest()}", "pip install cryptography --hash={x}"),
        (cursor, "next_page_token: {x}"),
        (cursor, "?cursor={x}&limit=50"),
        (f"{raw[:6].hex()}-{raw[6:10].hex()}.apps.googleusercontent.com", "client_id={x}"),
        (f"ami-{hexa[:17]}", "the bastion runs {x}"),
        (f'"{hexa}"', "ETag: {x}"),
    ]
    value, form = draw(st.sampled_from(kinds))
    return form.format(x=value), value


@settings(max_examples=500, deadline=None)
@given(public_identifiers(), st.sampled_from(EN_AROUND + KO_AROUND))
def test_a_public_identifier_hash_or_id_stays(found: tuple[str, str], around: str) -> None:
    text, value = found
    text = around + text
    out = redact_text(text)[0]
    assert value in out, (text, out)


POLICY = [
    "password must be at least {n} characters and contain a digit",
    "passwords expire every {n} days; rotate the token weekly",
    "the token expires in {n} seconds",
    "set the password policy to {n} characters minimum",
    "password: see 1Password vault 'infra'",
    "password: ask in #ops",
    "the API key is stored in Vault, not in the repo",
    "token bucket rate limiter: {n} tokens per second",
    "keyboard shortcuts: press Ctrl+K to open the password strength meter",
    "primaryKey: id, tokenizer: wordpiece",
    "mysql -u root -p",
    "sshpass -f ~/.ssh/pass.txt ssh deploy@host",
    "비밀번호 정책은 {n}자 이상입니다",
    "토큰 만료 시간을 {n}시간으로 늘렸습니다",
    "비밀번호는 1Password 금고에 있습니다",
    "API 키는 환경 변수로 넘깁니다",
    "암호를 잊었다면 관리자에게 문의하세요",
    "password reset emails now arrive within {n} minutes",
    "rotate AWS_SECRET_ACCESS_KEY every {n} days",
    "the secret is mounted at /var/run/secrets/app/token",
    "use --password-stdin instead of -p",
    "auth: required",
    "token: null",
    "password_min_length: {n}",
    "api_key_header: X-API-Key",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(POLICY),
    st.integers(1, 999),
    st.sampled_from(EN_AROUND + KO_AROUND),
)
def test_prose_about_a_password_without_one_stays(form: str, number: int, around: str) -> None:
    text = around + form.format(n=number)
    out = redact_text(text)[0]
    assert out == text, (text, out)
