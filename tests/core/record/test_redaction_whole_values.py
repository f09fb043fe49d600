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
    "use «40224de05ca6c8ccec8abb6e3b6efbad» with secret ffa1301351393a91233dca344c599eed60e1",
    "접속 정보: ID: «1afbb71187e2fd564661b8003296c655» / 시크릿: 8f0bfc94e06f0bd359caa7",
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
