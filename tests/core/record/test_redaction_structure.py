"""Credentials found by where they stand (keys, flags, URLs, sentences, English and Korean),
the vendor families that leaked on text written by someone else, and the references and public
ids that must stay. Every example of the leaks that motivated the structural rules is here.

A secret counts as caught only when no piece of it survives (bench/redaction_scoring.py).
"""

from __future__ import annotations

import pytest

from bench.redaction_scoring import leaked
from core.record.redaction import redact_text
from core.record.redaction_structure import key_kind
from core.record.redaction_values import Position, is_credential, is_reference

B64_AUTH = "ZGVwbG95OlNwcmluZzIwMjYhIXg="  # deploy:Spring2026!!x
KUBE_KEY = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBdTJx"
AWS_SESSION = "IQoJb3JpZ2luX2VjEOr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+q9Xf3kPz/8LmW5="
FCM = (
    "AAAAq1w2e3r:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx4aOqZwxEcDDcoFuAOsdHP9yZu3iN8a2sPKz4"
    "Ab-VHpT8JFfz4yH5GAlx6Cj9ZvN7FpR2nE9oAbQWDX0TdMHqvN0sKZWk7qZs0vBqy3UOp"
)
TWILIO_SID = "AC5d3f0c9a7b1e2d4c6f8a0b2c4d6e8f1a"
TWILIO_TOKEN = "9c1e7f3a5b2d4e6f8a0c2e4f6a8b0d1c"
TWILIO_KEY_SECRET = "Qm3T8vXw1ZpL5nR9sK2dF7hJ4cG6bY0a"

# (text, the secrets that must go): the leaks, each in more than one form
CAUGHT = [
    # Passwords by structure, in English and Korean
    ("관리자 암호: Tiger23+Nimbus", ["Tiger23+Nimbus"]),
    ("서버 비밀번호는 Tiger23+Nimbus입니다.", ["Tiger23+Nimbus"]),
    ("DB 암호는 새로 바꾼 Qw7!rty#Pine 이에요", ["Qw7!rty#Pine"]),
    ("스테이징 토큰: q9Xf3kPz8LmW2vRt", ["q9Xf3kPz8LmW2vRt"]),
    ("API 키는 k7Gq2Lm9Xp4Rt8Vw1Zs5 로 바꿨습니다", ["k7Gq2Lm9Xp4Rt8Vw1Zs5"]),
    ("sshpass -p 'Maple$3794ember' ssh deploy@10.0.4.12", ["Maple$3794ember"]),
    ('sshpass -p "Birch#88quartz" scp dump.sql backup:/srv', ["Birch#88quartz"]),
    ("mysql -u root -p'Oak!2291river' -h db.internal shop", ["Oak!2291river"]),
    ("mysqldump -uadmin -pCedar%4417lake --all-databases", ["Cedar%4417lake"]),
    ("requirepass Kq7vR2pLx9mZ", ["Kq7vR2pLx9mZ"]),
    ("# redis.conf\nrequirepass s3cret/Redis=77\nmasterauth s3cret/Redis=77", ["s3cret/Redis=77"]),
    ("redis-cli -h cache -a 'Fjord+7731#' ping", ["Fjord+7731#"]),
    ("pw for the bastion host: Kq7!vR2pLx", ["Kq7!vR2pLx"]),
    ("the password for the staging box is Falcon1999#", ["Falcon1999#"]),
    ("pw: hX9#mQ2!vL", ["hX9#mQ2!vL"]),
    ("use Winter2024!x as the root password", ["Winter2024!x"]),
    ("PGPASSWORD=Tr0ub4dor549 psql -h db -U app", ["Tr0ub4dor549"]),
    ("docker login -u ci -p Xq9_77abcdEF registry.corp.net", ["Xq9_77abcdEF"]),
    ("psql --password=Gr4nite?Peak! --host db", ["Gr4nite?Peak!"]),
    ("machine api.corp.net login deploy password Zx8!mmq2Lp", ["Zx8!mmq2Lp"]),
    # Config and framework secrets
    ("SECRET_KEY = 'django-insecure-m9x(2k!q@z#h^8&*r3p_w5v'", ["m9x(2k!q@z#h^8&*r3p_w5v"]),
    ('SECRET_KEY = "w(8#k2!hq@v^z5m&x*r3p-l9n+c0t%y"', ["w(8#k2!hq@v^z5m&x*r3p-l9n+c0t%y"]),
    (f"_auth={B64_AUTH}", [B64_AUTH]),
    (f"//registry.npmjs.org/:_auth={B64_AUTH}\nalways-auth=true", [B64_AUTH]),
    (f'{{"auths": {{"ghcr.io": {{"auth": "{B64_AUTH}"}}}}}}', [B64_AUTH]),
    (f"smtp:\n  user: mailer\n  pass: {B64_AUTH}", [B64_AUTH]),
    (f"users:\n- name: admin\n  user:\n    client-key-data: {KUBE_KEY}", [KUBE_KEY]),
    (
        '{"type": "service_account", "private_key_id": "b1c2", "private_key": "-----BEGIN PRIVATE'
        " KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\nq9Xf3kPz8LmW2vRtYh"
        '\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@proj.iam.gserviceaccount.com"}',
        ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "q9Xf3kPz8LmW2vRtYh"],
    ),
    (
        '"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj',
        ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj"],
    ),
    # Pairs go together
    (
        f"curl -X POST https://api.twilio.com/2010-04-01/Accounts -u {TWILIO_SID}:{TWILIO_TOKEN}",
        [TWILIO_SID, TWILIO_TOKEN],
    ),
    (
        f"API key SKa1b2c3d4e5f60718293a4b5c6d7e8f90 with secret {TWILIO_KEY_SECRET}",
        [TWILIO_KEY_SECRET],
    ),
    (f"TWILIO_API_SECRET={TWILIO_KEY_SECRET}", [TWILIO_KEY_SECRET]),
    # Values with + / = whole
    ("export API_TOKEN=q9+Xf3kPz/8LmWv2Rt==", ["q9+Xf3kPz/8LmWv2Rt=="]),
    (f"export AWS_SESSION_TOKEN={AWS_SESSION}", [AWS_SESSION]),
    (f'aws_session_token = "{AWS_SESSION}"', [AWS_SESSION]),
    ("Authorization: Bearer abc+def/ghiJKL012mno345==", ["abc+def/ghiJKL012mno345=="]),
    # URL passwords with unencoded characters
    ("git clone https://ci-bot:fYOdEY#hCbklR@git.corp.net/app.git", ["fYOdEY#hCbklR"]),
    ("postgres://app:p@ss#word!9x@db.internal:5432/shop", ["p@ss#word!9x"]),
    ("amqp://svc:Tq/9?xZ!a2@mq.internal/vhost", ["Tq/9?xZ!a2"]),
    ("redis://:Sn0w%Peak!7@cache:6379/0", ["Sn0w%Peak!7"]),
    # Vendors that leaked
    (f"FCM server key {FCM}", [FCM]),
    ("DOCKER_TOKEN=dckr_oat_7Hq2LmXp9Rt4Vw8Zs1Kd5Fg3Jb6", ["dckr_oat_7Hq2LmXp9Rt4Vw8Zs1Kd5Fg3Jb6"]),
    (
        "the access token ya29.a0AfH6SMBx3kQ9pL2mN8rT5vW1yZ4cF7hJ0kD3gS6aE9 expires hourly",
        ["ya29.a0AfH6SMBx3kQ9pL2mN8rT5vW1yZ4cF7hJ0kD3gS6aE9"],
    ),
    (
        "refresh with 1//0gFq8Ztyb3kXCgYIARAAGBASNwF-L9IrQn4KzP1m3XyZ7cWvTqHb0R8s",
        ["1//0gFq8Ztyb3kXCgYIARAAGBASNwF-L9IrQn4KzP1m3XyZ7cWvTqHb0R8s"],
    ),
    ("vercel deploy --prod --token Vq8pL2xK9mR4tW7zN1cB5dF3", ["Vq8pL2xK9mR4tW7zN1cB5dF3"]),
    (
        "Cloudflare global API key: 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9",
        ["1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9"],
    ),
    (
        "X-Auth-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d",
        ["9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d"],
    ),
    (
        "my Azure DevOps PAT is k3v7q2xw5ml4ha6zr2dp7yt3nb5jc4gs6fe2ku7wq3xm5ln4hb6a",
        ["k3v7q2xw5ml4ha6zr2dp7yt3nb5jc4gs6fe2ku7wq3xm5ln4hb6a"],
    ),
    (
        "NEW_RELIC_INSIGHTS_KEY=NRII-7hQ2-LmXp9Rt4Vw8Zs1Kd5Fg3Jb6Nc",
        ["NRII-7hQ2-LmXp9Rt4Vw8Zs1Kd5Fg3Jb6Nc"],
    ),
    (
        "access_token$production$x7k2m9q4w1z8r5t3$0f9e8d7c6b5a49382716f5e4d3c2b1a0",
        ["access_token$production$x7k2m9q4w1z8r5t3$0f9e8d7c6b5a49382716f5e4d3c2b1a0"],
    ),
    (
        "braintree private key 5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a",
        ["5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a"],
    ),
    (
        "SNYK_TOKEN=3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706",
        ["3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706"],
    ),
    (
        "snyk auth token 3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706",
        ["3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706"],
    ),
    (
        "HEROKU_API_KEY=7c6b5a49-3827-4f16-a5e4-d3c2b1a0f9e8",
        ["7c6b5a49-3827-4f16-a5e4-d3c2b1a0f9e8"],
    ),
]


@pytest.mark.parametrize(("text", "secrets"), CAUGHT)
def test_no_piece_of_the_secret_survives(text: str, secrets: list[str]) -> None:
    out, report = redact_text(text)
    assert report.redacted
    for secret in secrets:
        assert not leaked(secret, text, out), out


# Text that must come out unchanged: references, placeholders, public ids, ordinary prose
LEFT = [
    f"Twilio account {TWILIO_SID} is the parent of the messaging subaccount",
    f"TWILIO_ACCOUNT_SID={TWILIO_SID}",
    "the API key SKa1b2c3d4e5f60718293a4b5c6d7e8f90 belongs to the SMS service",
    "export AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
    "export GITHUB_TOKEN=${GITHUB_TOKEN}",
    "const apiKey = process.env.API_KEY ?? ''",
    "client_secret = settings.OAUTH_CLIENT_SECRET",
    "api_key = os.environ['OPENAI_API_KEY']",
    'password = os.environ["DB_PASSWORD"]',
    "access_key = session.get_credentials().access_key",
    "cursor.execute(sql, {'token': token}) with token=%(token)s",
    "url = f'{base}?token=%(token)s'",
    "password: {{ vault_db_password }}",
    'token: "{{ .Values.apiToken }}"',
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "Authorization: Bearer <your-token>",
    "API_KEY=<your-api-key>",
    "export GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "password: ********",
    "token: ...",
    "SECRET_KEY=changeme",
    "password = getpass.getpass()",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq9Xf3kPz8LmW2vRtYhKd5Fg3Jb6Nc7hQ2LmXp9Rt deploy@ci",
    "public_key: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7q9Xf3kPz8LmW2vRtYh",
    '"private_key_id": "59f34cac5658cd749e17a32a6a3af3e78e6e7835",',
    "SENTRY_DSN=https://fb60185fa6ae563fd0bed259b67a2e39@o281321.ingest.sentry.io/6656735",
    "Release artifacts are signed with minisign; the public key is RWQf6LRCGA9i53mlYecO4IzT51TG.",
    "docker run -p 8080:80 -v /srv:/data nginx",
    "mkdir -p /var/lib/app && docker run -u 1000:1000 app",
    "The password policy requires 12 characters and one digit.",
    "password_reset_timeout: 3600",
    "max_tokens: 4096",
    "secret: my-app-secret",
    "auth: oauth2",
    "Default credentials for local MinIO are minioadmin/minioadmin.",
    "Rotate the API token every 90 days and store it in Vault at secret/data/app.",
    "비밀번호는 최소 12자 이상이어야 합니다.",
    "토큰은 Vault에 저장합니다.",
    "psql --password-stdin < pw.txt",
    "git clone https://github.com/org/repo.git && open https://medium.com/@author/post",
    "curl https://user@host.example.com:8443/path",
    "password: ${DB_PASSWORD:-}",
    "token = config['auth']['token']",
]


@pytest.mark.parametrize("text", LEFT)
def test_references_placeholders_and_public_ids_stay(text: str) -> None:
    assert redact_text(text)[0] == text


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("DB_PASSWORD", "password"), ("PGPASSWORD", "password"), ("requirepass", "password"),
        ("pw", "password"), ("pass", "password"), ("SECRET_KEY", "secret"),
        ("_authToken", "secret"), ("_auth", "secret"), ("client-key-data", "secret"),
        ("X-API-Key", "secret"), ("aws_session_token", "secret"), ("--token", "secret"),
        ("password_policy", None), ("token_url", None), ("passwordFile", None),
        ("next_page_token", None), ("max_tokens", None), ("public_key", None),
        ("client-certificate-data", None), ("bypass", None), ("tokenizer", None),
    ],
)  # fmt: skip
def test_a_key_names_a_secret_by_its_last_part(key: str, kind: str | None) -> None:
    assert key_kind(key) == kind


@pytest.mark.parametrize(
    "value",
    ["$VAR", "${VAR}", "%(name)s", "{{ name }}", "process.env.X", 'os.environ["X"]',
     "settings.X", "<your-token>", "getenv('X')", "ENV['X']", "OTHER_VAR", "[REDACTED]"],
)  # fmt: skip
def test_references_are_recognised(value: str) -> None:
    assert is_reference(value)
    assert not is_credential(value, Position.STRONG, password_key=True)


@pytest.mark.parametrize(
    "value", ["Tiger23+Nimbus", "p@ss#word!9x", "q9+Xf3kPz/8LmW==", "m9x(2k!q@z#h^8&*r3p", "x%41"]
)
def test_values_with_any_characters_are_credentials(value: str) -> None:
    assert not is_reference(value)
    assert is_credential(value, Position.STRONG, password_key=True)
