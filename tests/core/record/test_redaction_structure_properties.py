"""Properties of the structural rules, drawn across the formats people write credentials in:
a generated secret after a key, flag or URL user-info never survives in any piece; a reference
or placeholder in the same place is left alone; redacting again changes nothing; and no
replacement ever brings back more of a secret than the first one left."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bench.redaction_scoring import leaked
from core.record.redaction import redact_text
from core.record.redaction_values import is_placeholder

# Characters a generated password may hold, the hard ones included (+ / = # ? @ ! % $ & *)
PASSWORD_CHARS = string.ascii_letters + string.digits + "+/=#?@!%$&*^_-."
KEYS = ["password", "DB_PASSWORD", "secret", "api_key", "AUTH_TOKEN", "client_secret", "pw"]
FORMS = [
    "{k}={v}",
    "export {k}={v}",
    '{k}="{v}"',
    "{k}: '{v}'",
    '"{k}": "{v}"',
    "{k} = '{v}'",
    "<{k}>{v}</{k}>",
    "--{k} '{v}'",
    "sshpass -p '{v}' ssh host",
    "mysql -u root -p'{v}' db",
    "curl -u deploy:'{v}' https://ci.corp.net",
    "the password is '{v}'",
    "관리자 암호: '{v}'",
]
URL_FORMS = ["postgres://app:{v}@db.internal:5432/shop", "https://ci-bot:{v}@git.corp.net/x.git"]
REFERENCES = [
    "$DB_PASSWORD", "${DB_PASSWORD}", "${DB_PASSWORD:?missing}", "%(password)s",
    "{{ vault_password }}", "process.env.DB_PASSWORD", "settings.DB_PASSWORD",
    "<your-password>", "XXXXXXXXXXXX", "********", "...", "changeme",
]  # fmt: skip


@st.composite
def generated_passwords(draw: st.DrawFn) -> str:
    """Eight to thirty characters with a letter and a digit: what a generator or a person
    picking a strong password writes."""
    body = draw(st.text(alphabet=PASSWORD_CHARS, min_size=6, max_size=28))
    letter = draw(st.sampled_from(string.ascii_letters))
    digit = draw(st.sampled_from(string.digits))
    value = letter + body + digit
    # filler, not a password: few distinct characters, or a run of one (a0000000, xxxx)
    assume(len(set(value)) >= 5 and re.search(r"(.)\1{3,}", value) is None)
    assume(not is_placeholder(value))  # holds "sample", "notset", "****": filler by design
    assume(re.fullmatch(r"[A-Z0-9_]+", value) is None)  # A0AAB_C0 after a key reads as a name
    return value


def _quoteless(value: str) -> bool:
    return not any(quote in value for quote in "'\"`")


@settings(max_examples=300, deadline=None)
@given(generated_passwords(), st.sampled_from(KEYS), st.sampled_from(FORMS))
def test_a_secret_where_a_credential_stands_never_survives(value: str, key: str, form: str) -> None:
    text = form.format(k=key, v=value)
    out, report = redact_text(text)
    assert report.redacted
    assert not leaked(value, text, out), (text, out)


@settings(max_examples=200, deadline=None)
@given(generated_passwords(), st.sampled_from(URL_FORMS))
def test_a_url_password_goes_whole_whatever_it_holds(value: str, form: str) -> None:
    password = value.replace("@", "#") if value.endswith("@") else value
    text = form.format(v=password)
    out = redact_text(text)[0]
    assert not leaked(password, text, out), (text, out)
    assert out.endswith(text[text.rindex("@") :])  # the host and the path stay


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(REFERENCES), st.sampled_from(KEYS), st.sampled_from(FORMS[:7]))
def test_a_reference_or_placeholder_in_the_same_place_stays(
    reference: str, key: str, form: str
) -> None:
    text = form.format(k=key, v=reference)
    assert redact_text(text)[0] == text


@settings(max_examples=300, deadline=None)
@given(generated_passwords(), st.sampled_from(KEYS), st.sampled_from(FORMS), st.text(max_size=30))
def test_redacting_again_changes_nothing_and_gives_nothing_back(
    value: str, key: str, form: str, around: str
) -> None:
    text = around + " " + form.format(k=key, v=value) + " " + around
    once = redact_text(text)[0]
    twice = redact_text(once)[0]
    assert twice == once
    if _quoteless(around):
        assert not leaked(value, text, twice)


@pytest.mark.parametrize(
    "text, password",
    [
        ("the password is 'aPW=01A0'", "aPW=01A0"),
        ("the password is vS0=/OuF@pw=/Eb10F+!U=9", "vS0=/OuF@pw=/Eb10F+!U=9"),
        ("requirepass zTOKEN=9f3Kq1", "zTOKEN=9f3Kq1"),
        ('["redis-cli", "-a", "zPW=01A0x"]', "zPW=01A0x"),
    ],
)
def test_a_password_holding_an_assignment_goes_whole(text: str, password: str) -> None:
    redacted = redact_text(text)[0]
    assert password[:4] not in redacted, redacted
    assert not leaked(password, text, redacted), redacted


# Where a value stands after a sentence's or a directive's word, not after its own key: the
# assignment rule may take the part after an inner "=" first.
HOLDER_FORMS = [
    "the password is '{v}'",
    "the password is {v}",
    "password {v}",
    "관리자 암호: {v}",
    "비밀번호는 {v}",
    "{v} is the root password",
    "requirepass {v}",
    '["redis-cli", "-a", "{v}"]',
    "sshpass -p '{v}' ssh host",
    "  - name: DB_PASSWORD\n    value: {v}",
]
INNER_NAMES = ["PW", "pw", "pass", "TOKEN", "Secret", "auth", "apikey", "x_key"]


@settings(max_examples=300, deadline=None)
@given(
    generated_passwords(),
    st.sampled_from(INNER_NAMES),
    generated_passwords(),
    st.sampled_from(HOLDER_FORMS),
)
def test_a_password_holding_a_secret_named_assignment_never_survives_in_part(
    head: str, name: str, tail: str, form: str
) -> None:
    assume(_quoteless(head + tail))
    password = head + name + "=" + tail
    text = form.format(v=password)
    out = redact_text(text)[0]
    assert not leaked(password, text, out), (text, out)


@pytest.mark.parametrize(
    "text",
    [
        "the token is [REDACTED:github_token]/[REDACTED:npm_token]",  # punctuation between two
        "curl -u ops:[REDACTED:github_token] https://ci.corp.net",  # the login name stays
    ],
)
def test_a_replacement_with_only_punctuation_or_a_login_beside_it_is_left_as_it_is(
    text: str,
) -> None:
    assert redact_text(text)[0] == text
