"""Credentials written the way people write them: in sentences, short assignments and headers.

The reference only redacts an assigned value of 16 bytes or more. People also type
``DB_PASSWORD=Tr0ub4dor549``, "the password is hunter2xyz!", "login root / Winter2024!",
``Authorization: Basic …`` and ``curl -u deploy:…``. These rules run after the reference's,
so they only see what it left, and each value must look like a credential: long enough, a
letter with a digit or symbol, and none of the placeholder, template, code, path or algorithm
words that ordinary technical text puts in the same places (``${DB_PASSWORD}``, ``changeme``,
"hashed with argon2id").
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

from core.record.redaction_rules import Replacer, Rule, compile_ascii, is_filler, token

_PLACEHOLDERS = (
    "change_me", "changeme", "change-me", "replace_me", "replaceme", "replace-me", "your_",
    "your-", "yourpass", "placeholder", "example", "sample", "dummy", "fake", "todo", "xxxx",
    "<", ">", "{{", "}}", "${", "%(", "redacted", "password", "passw0rd", "secret",
    "******", "....", "none", "null", "undefined", "required", "optional",
)  # fmt: skip
# "hunter2" alone is the classic joke; "hunter2xyz!" still differs from it and is caught.
_PLACEHOLDER_EXACT = frozenset({"hunter2"})
_CODE = (
    "(", ")", "[", "]", "request.", "self.", "os.environ", "getenv", "config.", "config[",
    "args.", "json.", "secrets.", "process.env", "env.", "env:", "vault:", "ssm:", "file:",
    "://", "=>", "->", "::",
)  # fmt: skip
# Words that carry a digit in technical prose next to "password": algorithms and formats.
_TECH = (
    "argon2", "sha1", "sha2", "sha3", "sha256", "sha384", "sha512", "md5", "base64", "pbkdf2",
    "bcrypt", "scrypt", "utf-8", "utf8", "oauth2", "1password", "http", "aes-", "aes1", "aes2",
    "rsa", "ed25519", "x509", "x.509", "pkcs", "hmac", "2fa", "mfa", "totp", "kms", "s3",
)  # fmt: skip
_TEMPLATE_START = tuple("$%{<[(`\\@&*#")
_FILE_END = re.compile(r"\.[a-z]{2,5}$")
_VERSION = re.compile(r"v?[0-9]+(?:\.[0-9]+)+[a-z0-9.+-]*")
_TRAILING = ".,;:)]}"


def _is_credential(value: str, minimum: int = 6) -> bool:
    """A typed password: not a placeholder, template, path, version, algorithm or plain word."""
    if not minimum <= len(value) <= 128 or value.startswith(_TEMPLATE_START):
        return False
    lowered = value.casefold()
    if lowered in _PLACEHOLDER_EXACT or any(word in lowered for word in _PLACEHOLDERS):
        return False
    if any(marker in lowered for marker in _CODE) or any(word in lowered for word in _TECH):
        return False
    if "/" in value or _FILE_END.search(lowered) or _VERSION.fullmatch(lowered):
        return False
    if not any(ch.isalpha() for ch in value):
        return False
    return any(ch.isdigit() for ch in value) or any(
        not ch.isalnum() and ch not in "-_." for ch in value
    )


def _strip_trailing(match: re.Match[str]) -> tuple[int, int, str]:
    """The secret's span and text without sentence punctuation after it."""
    value = match.group("secret").rstrip(_TRAILING)
    start = match.start("secret")
    return start, start + len(value), value


def _replace_value(name: str, minimum: int = 6) -> Replacer:
    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        start, end, value = _strip_trailing(match)
        user = match.groupdict().get("user")
        if not _is_credential(value, minimum) or (user is not None and value == user):
            return None
        whole, base = match.group(0), match.start()
        return whole[: start - base] + token(name) + whole[end - base :], name

    return replace


# --- Short assignments: DB_PASSWORD=Tr0ub4dor549, "smtp_pass": "…", Password=…; in a DSN ---

_SECRET_WORD = (
    r"(?i:password|passwd|passphrase|(?<![a-z])(?:pass|pwd|pw|secret|token|api[_-]?key|apikey"
    r"|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?)(?![a-z]))"
)
# Keys that name something about the secret rather than hold it.
_NOT_A_VALUE_KEY = re.compile(
    r"(?:_|-|\b)(?:id|ids|name|length|len|size|file|path|dir|url|uri|ttl|expiry|expires|count|"
    r"type|header|field|env|var|hash|hashed|policy|min|max|timeout|prefix|format|mode|version|"
    r"ref|arn|limit|budget|rotation|store|manager|length_min|hint|label|enabled|required)['\"]?$",
    re.IGNORECASE,
)
_SHORT_ASSIGNMENT = compile_ascii(
    rf"(?<![\w.-])(?P<key>[\"']?[\w.-]*?{_SECRET_WORD}[\w.-]*[\"']?)"
    r"[\t ]*[:=][\t ]*[\"']?(?P<secret>[^\s\"'`,;]{6,})"
)


_SHORT_VALUE = _replace_value("short_password_assignment")


def _short_assignment(match: re.Match[str]) -> tuple[str, str] | None:
    if _NOT_A_VALUE_KEY.search(match.group("key")):
        return None
    return _SHORT_VALUE(match)


# --- Generic keys: SIGNING_KEY = 9fQ2…, the gitleaks generic-api-key idea with its entropy bar ---

_GENERIC_KEY = compile_ascii(
    r"(?<![\w.-])(?P<key>[\"']?[\w.-]+?(?i:key)[\"']?)[\t ]*[:=][\t ]*[\"']?"
    r"(?P<secret>[A-Za-z0-9_.+/=-]{20,200})(?![A-Za-z0-9_.+/=-])"
)
_PUBLIC_KEY_NAMES = re.compile(
    r"(?i:public|publishable|pub|cache|partition|sort|primary|foreign|idempotency|routing|shard)"
)
_HEXISH = re.compile(r"[0-9a-fA-F-]+")
_DOTTED_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)+")


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _generic_key(match: re.Match[str]) -> tuple[str, str] | None:
    key, value = match.group("key"), match.group("secret")
    if _PUBLIC_KEY_NAMES.search(key) or _NOT_A_VALUE_KEY.search(key):
        return None
    if _HEXISH.fullmatch(value) or is_filler(value) or _entropy(value) < 3.5:
        return None  # hashes, UUIDs and digests stay
    if _DOTTED_NAME.fullmatch(value):
        return None  # a setting or package name (jetbrains.mps.v8_elimination), not a key
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return None
    whole, base = match.group(0), match.start()
    name = "generic_api_key"
    start, end = match.start("secret") - base, match.end("secret") - base
    return whole[:start] + token(name) + whole[end:], name


# --- Prose: "the password is hunter2xyz!", "password for the box: …", "login root / …" ---

_CONNECTOR = r"(?:is|was|are|is[\t ]+now|will[\t ]+be|set[\t ]+to|to|=|:|-)"
_PROSE_PASSWORD = compile_ascii(
    r"(?i:\b(?:pass(?:word|phrase|code)|passwd|pwd)s?\b)"
    r"(?:[\t ]+(?i:for|of|on)[\t ]+(?:[\w.@-]+[\t ]+){0,3}?(?i:" + _CONNECTOR + r")"
    r"|[\t ]*(?i:" + _CONNECTOR + r"))?"
    r"[\t ]*[\"'`]?(?P<secret>[^\s\"'`]{6,64})"
)
_LOGIN_PAIR = compile_ascii(
    r"(?i:\b(?:log ?in|sign ?in|credentials?|creds)\b)[^\n.;]{0,30}?"
    r"(?<![\w.@+-])(?P<user>[\w.@+-]{2,40})[\t ]*[/:|][\t ]*(?P<secret>[^\s\"'`/]{6,64})"
)


# --- Headers and command lines ---------------------------------------------------------------

_BASIC = compile_ascii(r"\b(?i:basic)[\t ]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")


def _basic_auth(match: re.Match[str]) -> tuple[str, str] | None:
    """An HTTP Basic credential decodes to ``user:password``; prose after "basic" does not."""
    value = match.group("secret")
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    if ":" not in decoded or not decoded.isprintable() or is_filler(value):
        return None
    user, _, password = decoded.partition(":")
    if not password or password == user or password.startswith("$"):
        return None
    whole, base = match.group(0), match.start()
    name = "basic_auth"
    start, end = match.start("secret") - base, match.end("secret") - base
    return whole[:start] + token(name) + whole[end:], name


_CURL_USER = compile_ascii(
    r"\bcurl\b[^\n|;&]{0,200}?[\t ](?:-u|--user)(?:[\t ]*|=)[\"']?(?P<user>[^:\s\"'$]+)"
    r":(?P<secret>[^\s\"']+)"
)


_ASSIGNED = r"[\w.-]*[\"']?[\t ]*[:=]"
"""What follows a short key word in casefolded text before an assignment rule can match."""
_LOGIN_TAIL = r"[^\n;]*?[/:|]"
"""What follows a login word before a user and password can: the user's separator, on the line."""

PROSE_RULES: tuple[Rule, ...] = (
    Rule("basic_auth", _BASIC, ("basic",), _basic_auth, gates={"basic": "[\t ]+[a-z0-9+/]{8}"}),
    Rule(
        "curl_credentials",
        _CURL_USER,
        ("curl",),
        _replace_value("curl_credentials", 4),
        gates={"curl": r"[^\n|;&]{0,200}?[\t ](?:-u|--user)"},
    ),
    Rule(
        "short_password_assignment",
        _SHORT_ASSIGNMENT,
        ("pass", "pwd", "pw", "secret", "token", "key", "credential"),
        _short_assignment,
        re.compile(r"(?:pass|pwd|pw|secret|token|key|credentials?)[\w.-]*[\"']?[\t ]*[:=]"),
        gates=dict.fromkeys(("pass", "pw", "credential"), _ASSIGNED),
    ),
    Rule(
        "generic_api_key", _GENERIC_KEY, ("key",), _generic_key, re.compile(r"key[\"']?[\t ]*[:=]")
    ),
    Rule(
        "password_in_prose",
        _PROSE_PASSWORD,
        ("passw", "passp", "passc", "pwd"),
        _replace_value("password_in_prose"),
    ),
    Rule(
        "login_credentials",
        _LOGIN_PAIR,
        ("login", "log in", "signin", "sign in", "credential", "creds"),
        _replace_value("login_credentials"),
        gates=dict.fromkeys(
            ("login", "log in", "signin", "sign in", "credential", "creds"), _LOGIN_TAIL
        ),
    ),
)
