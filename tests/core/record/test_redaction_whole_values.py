"""Values that go whole whatever they hold, pairs that go together, and references that stay.

Each case is the general rule's example, written here, not a corpus sentence: a value whose
characters the older patterns stopped at (``'``, ``/``, ``;``, ``<``, ``)``, ``{{``, ``[``,
``%(``, a leading ``-``), a line-filling assignment, a connection string's next field, a hex key
beside its secret, a value handed over in a sentence about a refused login or described in
parentheses as an account's, base64 of a password, a TOTP seed, and the references beside them
(``$VAR;Field=…``, ``user:var.x``, paths) that must not change.
"""

from __future__ import annotations

import base64
import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bench.redaction_scoring import leaked
from core.record.redaction import redact_text
from core.record.redaction_values import Position, is_credential, is_reference, never_a_secret

CAUGHT = [
    # an apostrophe or a slash inside a password, in a sentence, a reply and a login pair
    "the password for the box is «346Falcon@'raven».",
    "pw for the bastion host is «winter'EMB6170&» — ask first",
    "[09:14] kate: what's the wifi password?\n[09:15] raj: «280Harbor@'falcon»",
    "[오후 2:31] 민지: 서버 비번 뭐였죠?\n[오후 2:32] 현우: «cZUvNh=nCY5&49»",
    "backup box creds ubuntu / «Kimchi24007/Robin»",
    # a reply that starts with a dash or ends with base64 padding is no flag nor assignment
    "Fastly 키 어디 있어요?\n수빈: «-WlZOu3XE1jE-eELr5JEBCVnEuDFk1gV»",
    "partner API 키 어디 있어요?\n수빈: «PiR4RISC8XESIsHBDS6gh9unFHT-b3R=»",
    # a line-filling assignment keeps ; < ( : as its own
    "APP_ENV=dev\nOCI_AUTH_TOKEN=«0h+q2bi(v(G2j-4aFf-»\nLOG_LEVEL=debug",
    "$ export OCI_AUTH_TOKEN=«25F0PL;sW2C3WU<F0)lo»\n$ ./deploy.sh",
    # template openers alone, brackets, a call's shape and a closing ">" inside a random value
    "DJANGO_SECRET_KEY='«sr((ntjt%@wq8vjc5o4*z_zddjto^_4&&6uf!9j^1c1pwo$oo)»'",
    "SECRET_KEY_BASE=«of*=d&7gvj%(0#)0u^=oe1-42w^fy*7jve4s%am!5^x3fq%o2y»",
    "docker login iad.ocir.io -u ops -p '«NMDtRfQ2[EOmuDq}G7j]»'",
    "Rotated the OCI credential. New value is «qCERAIvg{{q9P[5ZE5D+» — update",
    'ADYEN_API_KEY: "«AQEqfRhmfx22NHG7GjGbsh+YBf4jleuRXzJbj9=-w4eWvUWBCLF;W[(>»"',
    '-H "Authorization: Bearer «AQE4Dxhmfxwvd9iD4sFQIh0dNnqrg8m=-)vXh,36>Mmgk9pko»"',
    # an environment list after "=", an ipsec.secrets line
    'environment=DB_PASSWORD="«EheYx+CrHWE*48»",QUEUE="high"',
    '%any %any : PSK "«H@nbit?398@»"',
    # a connection string's password before its next field
    '"Server=db;User Id=app;Password=«Tiger23Nimbus!»;TrustServerCertificate=True"',
    # a hex key beside its secret goes with it
    "use «40224de05ca6c8ccec8abb6e3b6efbad» with secret ffa1301351393a91233dca34 for Datadog",
    "Datadog 접속 정보: ID: «1afbb71187e2fd564661b8003296c655» / 시크릿: 8f0bfc94e06f0bd359caa7",
    # a value handed over in a sentence about a refused login, or described as an account's
    "why does Heroku return 401? I'm using «3d8fdf3a-66f9-4752-ba59-1d7afa393726»",
    "이거 써보세요: «gpy8r3qgX72Q8qDdbKtbmyeON1x31tsn4frdZroO» (Zendesk 테스트 계정)",
    # a key written the way code spells it, then a blank
    "AccessKeyId ASIAAEEUY24GXQJ63UPF / SessionToken «IQoJb3JpZ2luX2VjUP9BkA5Ckpy7Si5t+lbh/3H2»",
    # Korean particles after an English key
    "config.json 의 auth 값 «b3BzOmRja3JfcGF0X1RBYnRtXzh2MkdKUnM1VWdLUWN3cHlFcjloYQ==» 이거 그대로",
    "credentials 값은 «04ed9b106955ac24160ba899687e9eff9f59647e977826192bcc» 로 설정했습니다",
    # base64 of a password
    "kind: Secret\ndata:\n  username: deploy\n  token: «SmVqdTIwMjIq»",
    "echo «UzRWQDhOZmdCX2VEVjZebnVYIyU5TQ==» | base64 -d 하면 비번 나와요",
    # a TOTP seed (base32, no digit) and a Korean key with a colon
    "공용 계정 2FA 시드(OTP 앱에 등록용): «KTJKORCXRTNPKVJQRZNIMKLLZA»",
    "키: «Dragon2026_»",
]

# Fixed places, tables, replies and vendors met on text by a third author, each as its rule
CAUGHT += [
    "rabbitmqctl add_user ops «iug7JygDMGPrHyy55JnQi@»",
    "CREATE USER 'deploy'@'%' IDENTIFIED BY '«$Y5LV$qJ5d!RHWniAU»';",
    "GRANT ALL ON app.* TO 'ops'@'localhost' IDENTIFIED BY '«LpNyYC0NJt=ieIqA»';",
    "sshpass -p'«Q9=2M5PxyzoRHjBFrpj»' rsync -avz ./build/ ops@db.internal:/srv",
    'sql.Open("mysql", "app:«RLpJBiUW+Gl2i»@tcp(db.corp.local:3306)/analytics")',
    "ldap_default_authtok = «GF8T*biEq31Tm»",
    "<name>javax.jdo.option.ConnectionPassword</name>\n  <value>«Ops=2026%Spri»</value>",
    "| env | user | password |\n|-----|------|----------|\n| stg | ops | «walrus/dish/saturn6#» |",
    "| 항목 | 값 |\n|---|---|\n| 페이저듀티 키 | «u+lDb08LKhR85DRoPX8W» |",
    'Client("AC6f4324eb218a476a647da3c79312192e", "«71eec4200b73fceebaf28880868dcc55»")',
    "TENCENTCLOUD_SECRET_ID=«AKIDYDt0hv7CaFNWcBGjLrs3l7NNHHx41b4r»",
    "bearer=«AAAAAAAAAAAAAAAAAAAAAHV3xKzCtaQUkQiK2Y0xndld2K%3DUwXV1Em56qTlQoWwkcYed» x",
    "AuthError: credential rejected: '«ybseokVVF4f2En7ROMdWq3Uvjd8qBZEcJ8s03yiU»'",
    "혹시 AZURE_STORAGE_KEY 필요하시면 이거 쓰세요 «40+2wOVrjmx0EWlKVEFme/tGJ9tx06ra0aveZk==»",
    "etl CLOUDFLARE_API_TOKEN 값 공유합니다 → «DKGZa1VInY9_Yo_7JmykXv1bCnhCaXh-AHWjkp0m»",
    "텔닉스 키 새로 발급받았습니다: «KEY9CaEb67fd67217b860A9C7f7D8072866_rfUxGL9Wbf»",
    "jun: 방금 API 토큰 재발급했어요\njun: «VSdmt919G3jGylWtJkjegA-bxhpjPWj5MCZ5-cer»",
    "jun: 서버 root 비번 뭐였죠?\njun: «Blizzard2011+» 입니다",
    "alex: redis password 알려주실 수 있나요?\nsoyeon: 「«TangerineWalnut+?9»」 이거예요.",
    "alex: what's the root pw on 10.0.3.17?\nmaria: «J=mKBk2Egv78OLroAAu?m»",
    "Decision: keep using «110842f388682ba1f9361d95f9ec7acbf8» for the Jenkins API token",
    "Razorpay keys: key_id rzp_live_QoldBQ1gxiYrwo (public) and key_secret «wv2A5YEOcMarUx29UiCD».",
    '<add key="ClearTextPassword" value="«PWgFzF@aN2fMk.AsJj»" />',  # no host has both cases
    "ENV ADYEN_API_KEY=«AQEbvMhmfxEHNbxnvai0xZio4NRGTAVwkmTn7=-;WvKlcFPx(gms63H»\nRUN npm ci",
]

KEPT = [
    "The key is everyone's responsibility, and the password is the team's problem.",
    '"Default": "Server=10.0.0.9;User Id=app;Password=$APP_SECRET;TrustServerCertificate=True"',
    "AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=blobs;AccountKey=TODO;EndpointSuffix=x",
    'provider "grafana" {\n  auth = "app_rw:var.db_password"\n}',
    "Credentials are read from src/auth/tokenStore.ts at startup; nothing is baked in.",
    "docker run -e SQUARE_TOKEN=op://payments/square/credential ghcr.io/acme/mobile-bff:latest",
    "why does the build fail? I'm using 4a08879fd0a40654d9dfcbc927e8344767da08f3",
    "see commit 4a08879fd0a40654d9dfcbc927e8344767da08f3 (the account page fix)",
    "use c32e60206aa823cd40c07389 with secret $PLAID_SECRET for the Plaid sandbox",
    "echo aGVsbG8gd29ybGQ= | base64 -d",
    "the seed for the test fixtures is ABCDEFGHIJKLMNOPQRST",
    "The GITHUB_TOKEN permissions were narrowed in 4a08879fd0a40654d9dfcbc927e8344767da08f3.",
    'url: "rediss://default:${{ secrets.REDIS_PASSWORD }}@db-prod-1.internal:6380/1"',
    "id_token=[REDACTED:jwt]&state=1",
    "정렬 키: created_at",
    "PUSHER_APP_ID=5182413\nPUSHER_KEY=65a7605d762e4faedbb7",  # Pusher's app key is public
    "# placeholder values\nGITHUB_TOKEN=secret-goes-here",
    "| key | value |\n|---|---|\n| sort key | created_at |",
    "| a | b |\n|---|---|\n| x | y |",
    "who issued the token?\nops: 4a08879fd0a40654d9dfcbc927e8344767da08f3",
    "We use ed25519 for the SSH key and 4096 for the RSA key.",
    "docker run -e NGROK_AUTHTOKEN=projects/acme/secrets/ngrok-token/versions/latest img:1",
    "password: ops@acme.io",
    "use 7c6f706ada7b20d3be7ae45e91a80e1b with secret $AMPLITUDE_SECRET for the Amplitude project",
    "echo TG9yZW0gaXBzdW0gZG9sb3Igc2l0IGFtZXQ= | base64 -d  # not the password",
    "AuthError: credential rejected: 'invalid signature'",
    "what JVM options for the key service?\nops: -XX:MaxRAMPercentage=75.0",
    # words about a secret, not its value
    "AAAAC3NzaC1lZDI1NTE5AAAAIGq2v8Kx7pLmN3q9RtYw1Zs (deploy key)",
    "GITHUB_TOKEN 권한 문제는 4a08879fd0a40654d9dfcbc927e8344767da08f3 커밋에서 고쳤어요",
    "token 을 4a08879fd0a40654d9dfcbc927e8344767da08f3 커밋에서 지웠어요",
    "we pay $20/month for the API key",
    "| token | lifetime |\n|---|---|\n| access token | 1h |\n| repo:read | 90d |",
    "rotated the token, see the commit:\n4a08879fd0a40654d9dfcbc927e8344767da08f3",
]


@pytest.mark.parametrize("marked", CAUGHT)
def test_the_whole_value_goes(marked: str) -> None:
    """«» mark the secret inside its text."""
    secret = marked[marked.index("«") + 1 : marked.index("»")]
    text = marked.replace("«", "").replace("»", "")
    out = redact_text(text)[0]
    assert not leaked(secret, text, out), out


@pytest.mark.parametrize("text", KEPT)
def test_references_paths_and_prose_stay(text: str) -> None:
    assert redact_text(text)[0] == text


def test_a_public_login_stays_beside_the_redacted_connection_password() -> None:
    text = '"Server=db;User Id=app;Password=Tiger23Nimbus!;TrustServerCertificate=True"'
    out = redact_text(text)[0]
    assert out.endswith(';TrustServerCertificate=True"') and "User Id=app;" in out


# --- Properties of the value tests ------------------------------------------------------

HARD = string.ascii_letters + string.digits + "+/=#?@!%$&*^_-.'()[]{}<>;:,~"


@st.composite
def passwords_with_hard_characters(draw: st.DrawFn) -> str:
    body = draw(st.text(alphabet=HARD, min_size=8, max_size=30))
    value = draw(st.sampled_from(string.ascii_letters)) + body + draw(st.sampled_from("0123456789"))
    assume(len(set(value)) >= 6)
    assume(not never_a_secret(value))  # a drawn value may spell a template or a placeholder
    return value


@settings(max_examples=300, deadline=None)
@given(passwords_with_hard_characters(), st.sampled_from(["OCI_AUTH_TOKEN", "DB_PASSWORD"]))
def test_a_line_filling_assignment_takes_the_whole_line(value: str, key: str) -> None:
    assume(not any(c in value for c in "\"'`"))
    text = f"APP_ENV=dev\n{key}={value}\nLOG_LEVEL=debug"
    out = redact_text(text)[0]
    assert not leaked(value, text, out), out
    assert out.startswith("APP_ENV=dev\n") and out.endswith("\nLOG_LEVEL=debug")


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
    st.sampled_from(["$", "${", "%(", "{{ "]),
)
def test_a_reference_stays_a_reference_before_a_connection_strings_next_field(
    name: str, opener: str
) -> None:
    closer = {"$": "", "${": "}", "%(": ")s", "{{ ": " }}"}[opener]
    value = f"{opener}{name}{closer};TrustServerCertificate=True"
    assert never_a_secret(value)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=string.ascii_letters + string.digits + "!#%&*+-_@", min_size=6, max_size=24)
)
def test_base64_of_a_password_is_judged_as_the_password(password: str) -> None:
    encoded = base64.b64encode(password.encode()).decode()
    plain = is_credential(password, Position.KEYED, password_key=True) and not never_a_secret(
        encoded
    )
    if plain:
        assert is_credential(encoded, Position.KEYED)


@settings(max_examples=300, deadline=None)
@given(passwords_with_hard_characters())
def test_a_random_value_is_never_read_as_code(value: str) -> None:
    """A call or an index is code only with code's arguments: names, literals, commas."""
    assume("(" in value or "[" in value)
    assume(not any(c in value for c in "\"'"))
    if any(c in value for c in "#@!%^&*~;<>?+{}"):
        assert not is_reference(value), value


@settings(max_examples=200, deadline=None)
@given(
    st.lists(passwords_with_hard_characters(), min_size=1, max_size=4),
    st.sampled_from(["password", "비밀번호", "DB password", "passwd"]),
)
def test_a_table_column_that_names_a_secret_loses_every_cell_and_keeps_the_rest(
    values: list[str], header: str
) -> None:
    assume(all("|" not in v and "`" not in v for v in values))
    rows = [f"| env{i} | ops{i} | {v} |" for i, v in enumerate(values)]
    text = "\n".join([f"| env | user | {header} |", "|---|---|---|", *rows])
    out = redact_text(text)[0]
    for value in values:
        assert not leaked(value, text, out), out
    for i in range(len(values)):
        assert f"| env{i} | ops{i} |" in out


def test_a_token_column_loses_generated_values_and_keeps_descriptions() -> None:
    rows = ["| service | token |", "|---|---|", "| ci | «Zk8qP2mX7vR4tL9wN3bC6yH1» |"]
    text = "\n".join([*rows, "| docs | access token |"])
    secret = "Zk8qP2mX7vR4tL9wN3bC6yH1"
    plain = text.replace("«", "").replace("»", "")
    out = redact_text(plain)[0]
    assert not leaked(secret, plain, out) and "| docs | access token |" in out
