"""Credentials written in sentences, English and Korean, and in headers people paste.

"the password for the bastion host is …", "pw: …", "use … as the password", "login root /
…", "관리자 암호: …", "비밀번호는 …입니다", ``Authorization: Basic …``, and a generic ``*_KEY``
with a random value. These run after the structural rules (``core.record.redaction_structure``)
and only see what those left. In a sentence the value must look random, not merely be there;
``core.record.redaction_values`` holds the test (position ``PROSE``).
"""

from __future__ import annotations

import base64
import binascii
import re

from core.record.redaction_rules import Replacer, Rule, compile_ascii, is_filler, token
from core.record.redaction_structure import SECRET_WORD, accepts, key_at, key_kind
from core.record.redaction_values import (
    Position,
    is_credential,
    looks_random,
    taken_in_part,
    trim_value,
)


def _replace_secret(
    match: re.Match[str], value: str, name: str, offset: int = 0
) -> tuple[str, str]:
    """The match with ``value``, which starts ``offset`` into the ``secret`` group, replaced."""
    whole, start = match.group(0), match.start("secret") - match.start() + offset
    return whole[:start] + token(name) + whole[start + len(value) :], name


_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019"}


def _replace_value(name: str, *, random_only: bool = False) -> Replacer:
    """Replaces the ``secret`` group when it passes the test for where it stands.

    A value right after ``:`` or ``=`` stands in a key's place; after "is" or a gap of words
    it stands in a sentence and must look random. ``random_only`` asks for a random-looking
    value even then (a bare "secret …" with no connector).
    """

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        raw = match.group("secret")
        if raw[:1] in {">", ")", "]", "}"}:
            return None  # the end of a placeholder: <비밀번호>, (see vault)
        quoted = len(raw) >= 2 and _QUOTES.get(raw[0]) == raw[-1]
        value = raw[1:-1] if quoted else trim_value(raw)
        offset = 1 if quoted else max(raw.find(value), 0)  # "(value)" in a sentence
        groups = match.groupdict()
        keyed = (groups.get("conn") or "").strip() in {":", "="} and not groups.get("gap")
        after_equals = (groups.get("conn") or "").strip() == "="  # a query's a=1&b=2 too
        if taken_in_part(value, one_word=quoted or not after_equals):  # the rest of a value
            whole, base = match.group(0), match.start()  # an earlier rule cut: it goes whole
            start = match.start("secret") - base + offset
            return whole[:start] + token(name) + whole[start + len(value) :], name
        position = Position.KEYED if keyed else Position.PROSE
        user = groups.get("user")
        if user is not None and (
            value == user
            or user.startswith(("$", "%", "{"))
            or ("/" in value and re.search(r"[\t ]/[\t ]", match.group(0)) is None)
        ):
            return None  # src/auth/tokenStore.ts, ghcr.io/acme/app:latest: a path, not a pair
        word = groups.get("word") or ""
        seed = (
            _seed_word(word, match.string[: match.start("secret")])
            and _BASE32_SEED.fullmatch(value) is not None
        )
        # a TOTP seed is base32, often without a digit (KTJKORCXRTNPKVJQ…)
        if (
            not seed
            and random_only
            and not (looks_random(value, 12) or (keyed and _password_shaped(value)))
        ):
            return None
        password_key = key_kind(word.replace(" ", "_")) == "password" or any(
            w in word for w in _KO_PASSWORD_WORDS
        )
        if not seed and not is_credential(
            value, position, password_key=password_key or "user" in groups
        ):
            return None
        return _replace_secret(match, value, name, offset)

    return replace


_BASE32_SEED = re.compile(r"(?=[A-Z2-7]*[A-Z][A-Z2-7]*)[A-Z2-7]{16,64}={0,6}")


_ONE_TIME = re.compile(r"(?i:2fa|\botp|totp|mfa|authenticator|two-factor)")


def _seed_word(word: str, before: str) -> bool:
    """A one-time-password seed: the word says seed or secret, and its line says 2FA or OTP
    (a test fixture's random seed is no secret)."""
    folded = word.casefold()
    if not ("시드" in word or "seed" in folded or "secret" in folded):
        return False
    return _ONE_TIME.search(before[before.rfind("\n") + 1 :]) is not None


def _password_shaped(value: str) -> bool:
    """``키: Dragon2026_``: both cases and a digit, eight characters or more, no path or
    cache-key separators (``user:42:profile``)."""
    return (
        len(value) >= 8
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and not any(c in "/:." for c in value)
    )


# --- English prose ------------------------------------------------------------------------

# Compound words first: "secret key X" must not stop at "secret" with "key" as its value.
_WORD = (
    r"(?:(?:api[\t _-]?key|access[\t _-]?key|secret[\t _-]?key|private[\t _-]?key"
    r"|auth[\t _-]?token|access[\t _-]?token|(?:2fa|otp|totp|mfa)[\t _-]?(?:seed|secret)"
    r"|pass(?:word|phrase|code)?|passwd|pwd|pw|secret|token|credentials?|creds|seed)s?)"
)
_WORD_START = "(?=[AaSsPpTtCcOoMm2])"
"""The letters a word of _WORD starts with: a cheap first test at each position."""
# Unquoted, a value may hold an apostrophe (346Falcon@'raven): it runs to the next blank.
_VALUE = (
    r"(?P<secret>\"[^\"\n]+\"|'[^'\n]+'|`[^`\n]+`|\u201c[^\u201d\n]+\u201d"
    r"|[^\s\"'`][^\s\"`]*)"
)
# Longest first: the engine takes the first that fits, and a replacer that then refuses the
# value ("now" after "is") does not send it back for a longer one. After a gap of words, "="
# needs a blank before it: "set the pw to ab=cd" is "to", not a gap "to ab" and "=". A word
# connector starts a word ("Cloudflare" holds "are").
_CONNECTOR = (
    r"(?P<conn>:(?=[\t ])|(?(gap)(?<=[\t ])=|=)"
    r"|(?:(?<![A-Za-z])(?i:(?:was|has[\t ]+been|is|got)[\t ]+(?:changed|set|reset|rotated)[\t ]+to"
    r"|is[\t ]+now|is[\t ]+still|will[\t ]+be|set[\t ]+to|changed[\t ]+to|reads"
    r"|becomes|is|was|are|were|to)|->|=>|--|-|\u2192|\u2014|\u2013)(?=[\t ]))"
)
_PROSE = compile_ascii(
    rf"(?<![:/]){_WORD_START}(?P<word>(?i:\b{_WORD}\b))(?:[\t ]*\([^()\n]{{1,30}}\))?"
    rf"(?P<gap>[\t ]+(?i:for|of|on|to|in|at|from|used[\t ]+(?:by|for|in))[\t ]+[^\n:=;]{{1,48}}?)?"
    rf"[\t ]*{_CONNECTOR}[\t ]*{_VALUE}"
)
# "password Tiger23+Nimbus", "secret 9fK…": a bare value right after the word.
_BARE = compile_ascii(rf"(?<![:/]){_WORD_START}(?P<word>(?i:\b{_WORD}\b))[\t ]+{_VALUE}")
# "use Tiger23+Nimbus as the password", "Tiger23+Nimbus is the root password"
_BEFORE = compile_ascii(
    r"(?<![^\s\"'`(])(?<!%\()(?P<secret>[^\s\"'`(]{6,128})[\t ]+(?i:is[\t ]+(?:the|my|our|your|its)"
    r"|as[\t ]+(?:the|a|my|our|your|its)?)[\t ]*(?:[\w-]+[\t ]+){0,2}?(?P<word>(?i:"
    + _WORD
    + r"))\b"
)
_LOGIN_PAIR = compile_ascii(
    r"(?i:\b(?:log ?in|sign ?in|credentials?|creds)\b)[^\n.;]{0,30}?"
    r"(?<![\w.@+${/:-])(?P<user>[\w.@+-]{2,40})[\t ]*(?:/|\||:(?=[\t ]))[\t ]*"
    r"(?P<secret>[^\s\"'`/][^\s\"`]{5,63})"  # a password may hold "/" and "'" after its start
)

# --- Korean prose: 관리자 암호: …, 비밀번호는 …입니다, 새 토큰을 …로 바꿨다 -----------------

_KO_WORD = (
    r"(?:암호|비밀[\t ]?번호|비번|패스워드|패스프레이즈|토큰|시크릿|자격[\t ]?증명|인증[\t ]?정보"
    r"|(?:API|api|Api|비밀|인증|액세스|엑세스|접근|서버|개인|보안|마스터|시크릿)[\t ]?키)"
)
_KO_PASSWORD_WORDS = ("암호", "비밀번호", "비밀 번호", "비번", "패스워드", "패스프레이즈")
_KO_PROSE = compile_ascii(
    "(?P<word>" + _KO_WORD + ")" + r"(?:은|는|이|가|을|를|도|값은|값이|값|로|으로|에는|란)?"
    r"(?P<gap>(?:[\t ]+[\uac00-\ud7a3]+){0,3}?)[\t ]*(?P<conn>[:=]|->|\u2192|-(?=[\t ]))?[\t ]*"
    r"(?P<secret>\"[^\"\n]+\"|'[^'\n]+'|`[^`\n]+`|[!-~]+)"
)

# 키 alone is too common a word ("키보드", "키 이름"): after it, only a random-looking value.
_KO_KEY = compile_ascii(
    r"(?<![\uac00-\ud7a3])(?<!공개 )(?P<word>키|시드)(?:[0-9]|\([^)\n]{0,30}\))?"
    r"(?:는|은|를|을|가|이|값은|값)?[\t ]*(?P<conn>[:=])?[\t ]*(?P<secret>[!-~]+)"
)
# "aa95… 키를 그대로 쓰고", "Pangyo2015# 비밀번호로": the value before the word
_KO_BEFORE = compile_ascii(
    r"(?<![!-~])(?P<secret>[!-~]{8,200})[\t ]*(?P<word>키|토큰|비밀번호|암호|패스워드)"
    r"(?:를|을|는|은|가|이|로|으로)"
)
# "계정은 ci-bot / Pangyo2015#", "로그인 정보: admin / …"
_KO_LOGIN = compile_ascii(
    r"(?:계정|로그인[\t ]?정보|접속[\t ]?정보)(?:은|는|:)?[\t ]*[:=]?[\t ]*"
    r"(?P<user>[\w.@+-]{2,40})[\t ]*/[\t ]*(?P<secret>[^\s\"'`]{6,64})"
)
# "set SNYK_TOKEN to …", "ZENDESK_API_TOKEN를 …로 바꾸고", "api_key 값은 … 로": a name that says
# it holds a secret, a connector, then the value
_NAMED = compile_ascii(
    SECRET_WORD + r"[\w.-]*(?P<conn>[\t ]*(?:값은|값이|값을|값|를|을|은|는|이|가)"
    r"|[\t ]+(?i:to|is|was|are|=>|->))[\t ]+(?P<secret>[!-~]+)"
)


def _named(match: re.Match[str]) -> tuple[str, str] | None:
    key = key_at(match, "conn")
    if key is None:
        return None
    korean = not match.group("conn").strip().isascii()
    if key.isalpha() and key.islower() and not korean:
        return None  # a plain word ("the key is …"): the sentence rules judge those; before a
        # Korean particle (auth 값, credentials 값은) an English word is the config's key
    kind = key_kind(key)
    if kind is None:
        return None
    value = trim_value(match.group("secret"))
    if not accepts(kind, value, Position.KEYED):
        return None
    return _replace_secret(match, value, "password_in_prose")


# "AccessKeyId ASIA… / SecretAccessKey … / SessionToken IQoJb3Jp…": a name written the way code
# spells it (SessionToken, AWS_SESSION_TOKEN), a blank, then a generated value
_SPACED = compile_ascii(SECRET_WORD + r"[\w.-]*(?P<sp>[\t ]+)(?P<secret>[A-Za-z0-9+/][!-~]{15,})")
# the value starts as a generated one does: not "}}@db…" after a template's field


def _spaced(match: re.Match[str]) -> tuple[str, str] | None:
    key = key_at(match, "sp")
    if key is None or key.islower() or (key.isupper() and "_" not in key):
        return None  # a word of the sentence ("token", "TOKEN"): the sentence rules judge it
    if key_kind(key) not in {"secret", "password"}:
        return None
    value = trim_value(match.group("secret"))
    if not looks_random(value) or not is_credential(value, Position.KEYED):
        return None
    return _replace_secret(match, value, "password_in_prose")


# --- Answers: a question names the secret, the reply is the value --------------------------

_SECRET_NAMES = (
    r"(?:(?i:pass(?:word|phrase|wd)?|\bpw\b|secret|token|\bkey\b|api[\t _-]?key|credentials?"
    r"|creds)|암호|비밀[\t ]?번호|비번|패스워드|토큰|시크릿|키)"
)
# "[09:14] kate: what's the wifi password in the lab?\n[09:15] raj: H@zelbr@mble%47"
_ANSWER = compile_ascii(
    r"(?m)^(?P<question>[^\n]*?" + _SECRET_NAMES + r"[^\n]*\?(?![=.\w])[^\n]*)\n"
    r"(?:\[[^\]\n]{1,24}\][\t ]*)?(?:[^\s:\[\]]{1,24}:[\t ]*)?"
    r"(?P<secret>[^\s\"'`][^\s\"`]{7,199})[\t ]*$"
)
# "Rotated the IBM Cloud credential this morning. New value is …", "새 값은 …"
_NEW_VALUE = compile_ascii(
    r"\b(?i:(?:the[\t ]+)?(?:new|current|rotated|updated)[\t ]+"
    r"(?:value|one)[\t ]+is|new[\t ]+value:)[\t ]+(?P<secret>[^\s\"'`]{8,200})"
)
_SECRET_CONTEXT = re.compile(_SECRET_NAMES)
_ASKING = re.compile(
    r"(?i:\b(?:have|got|share|send|give|paste|need|what(?:'s|\s+is|\s+was)|where(?:'s|\s+is)?)\b)"
    r"|뭐|무엇|어디|알려|공유|있어|있나|주세요|줄래|줄 수"
)
_ASKING_ABOUT = re.compile(r"(?i:\b(?:which|who|whose|when|why|how)\b)|언제|누가|왜|어떻게|몇")
_SECRET_THEN_OTHER = re.compile(
    _SECRET_NAMES + r"[\t ]*(?i:ids?|names?|formats?|endpoints?|polic(?:y|ies)|length|fix|types?"
    r"|rotation|expiry|scopes?|owners?|paths?|files?)\b"
    r"|(?:키|토큰|비밀번호)[\t ]?(?:이름|형식|경로|파일|만료)"
)
_ASSIGNMENT_LINE = re.compile(
    r"(?:[a-z][a-z0-9_.-]*|[A-Z][A-Z0-9_.-]*|[a-z]+(?:[A-Z][a-z0-9]+)+)[=:][^\s=]"
)  # DEBUG=false, logLevel: x; not cZUvNh=nCY5&49 (a password) nor a base64 value's "=" end


def _asks_for_the_secret(question: str) -> bool:
    """Whether a question asks for the secret it names ("anyone have the Vercel key?", "토큰
    어디 있어요?"), not about something else ("which commit removed the token?", "what's the
    key id?")."""
    return (
        _ASKING.search(question) is not None
        and _ASKING_ABOUT.search(question) is None
        and _SECRET_THEN_OTHER.search(question) is None
    )


def _answer(match: re.Match[str]) -> tuple[str, str] | None:
    """The reply to a question that names a secret: a generated value, or a password that
    looks like one (not "in the vault", not a word)."""
    if "question" in match.re.groupindex:
        if not _asks_for_the_secret(match.group("question")):
            return None
    else:  # "New value is …": the line before it says whose value
        text, at = match.string, match.start()
        line = text[max(text.rfind("\n", 0, at) + 1, at - 160) : at]
        if _SECRET_CONTEXT.search(line) is None or _ASKING_ABOUT.search(line) is not None:
            return None
    value = trim_value(match.group("secret"))
    if value.startswith("@"):
        return None  # a handle: who owns it
    if _ASSIGNMENT_LINE.match(value):
        return None  # DEBUG=false: the next line of a config, not a reply
    if not (looks_random(value, 12) or is_credential(value, Position.PROSE)):
        return None
    return _replace_secret(match, value, "password_in_prose")


# ``장고 SECRET_KEY 가 레포에 올라가 있었어요: '9$7e2&@i+w…'``: a quoted generated value a few words
# after a name that says it holds a secret
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_NEAR_CONNECTOR = re.compile(r"(?:[:=]|(?i:\b(?:is|was|to|as))|[는은가이로를을])[\t ]*$")
_QUOTED_NEAR_NAME = compile_ascii(
    SECRET_WORD + r"[\w.-]*(?P<conn>[^\n\"'`=]{1,60}?)[\"'`](?P<secret>[^\"'`\s]{16,200})[\"'`]"
)


def _quoted_near_name(match: re.Match[str]) -> tuple[str, str] | None:
    key = key_at(match, "conn")
    if key is None or key.islower() or key_kind(key) not in {"secret", "password"}:
        return None  # a plain word ("the key is …") is the sentence rules' to judge
    if _NEAR_CONNECTOR.search(match.group("conn")) is None:
        return None  # "… derived with '…'", process.env["NAME"]: not the name's value
    value = match.group("secret")
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    if not looks_random(value) or not (mixed or any(not c.isalnum() for c in value)):
        return None
    if _UUID.fullmatch(value):
        return None
    return _replace_secret(match, value, "password_in_prose")


# --- Values a sentence hands over without naming them ---------------------------------------

# "use 40224de0…6efbad with secret ffa1…", "ID: 95fe2fb9… / 시크릿: 3c23…": a hex id of an API
# key's length beside its secret is a key itself (client ids, SIDs and e-mail addresses are not
# hex of 32 characters or more, and stay)
_PAIR_ID = compile_ascii(
    r"(?<![\w-])(?P<secret>[0-9a-f]{32,64})(?![\w-])(?=[\t ]+(?i:with[\t ]+(?:the[\t ]+)?secret)\b"
    r"|[\t ]*/[\t ]*(?:시크릿|비밀|(?i:secret|key|token)))"
)
# "why does Heroku return 401? I'm using 3d8fdf3a-…": a generated value someone is using, in a
# text about a refused login
_IN_USE = compile_ascii(
    r"(?i:\b(?:i'm|i am|we're|we are|i've been|currently)[\t ]+using)[\t ]+"
    r"(?P<secret>[^\s\"'`]{16,200})"
)
_AUTH_FAILURE = re.compile(
    r"(?i:\b(?:401|403|unauthori[sz]ed|forbidden"
    r"|invalid[\t ]+(?:api[\t ]+)?(?:key|token|credentials?)"
    r"|auth(?:entication)?[\t ]+(?:fail|error))\w*)|인증[\t ]?(?:실패|오류|에러)"
)
# "이거 써보세요: gpy8r3…O (Zendesk 테스트 계정)", "… (staging account token)": a generated value
# the words in parentheses after it call an account's, a key or a token
_DESCRIBED = compile_ascii(
    r"(?<![^\s:(\[\"'`])(?P<secret>[!-~]{16,200}?)[\t ]*\([^()\n]{0,40}"
    r"(?:계정|키|토큰|(?i:account|key|token|credentials?))\)"
)  # the parenthesis ends on the word: "(the account page fix)" describes something else


def _generated_near(check: re.Pattern[str] | None) -> Replacer:
    """Replaces ``secret`` when it looks generated and, given ``check``, the text says so."""

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        if check is not None and check.search(match.string) is None:
            return None
        value = trim_value(match.group("secret"))
        if not looks_random(value):
            return None
        return _replace_secret(match, value, "password_in_prose")

    return replace


def _pair_id(match: re.Match[str]) -> tuple[str, str] | None:
    value = match.group("secret")
    if len(set(value)) < 8:
        return None  # 0000…, deadbeef…: filler
    return _replace_secret(match, value, "key_pair_id")


# ``echo UzRWQDhO…== | base64 -d`` in a line that names a password: the encoded password
_DECODED = compile_ascii(
    r"\becho[\t ]+(?:-n[\t ]+)?[\"']?(?P<secret>[A-Za-z0-9+/]{8,}={0,2})[\"']?[\t ]*\|[\t ]*base64"
    r"[\t ]+(?:-d|--decode|-D)\b"
)


def _decoded(match: re.Match[str]) -> tuple[str, str] | None:
    text, at = match.string, match.start()
    line = text[text.rfind("\n", 0, at) + 1 : text.find("\n", at) % (len(text) + 1)]
    if _SECRET_CONTEXT.search(line) is None:
        return None
    value = match.group("secret")
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    if not decoded.strip().isprintable() or not is_credential(
        decoded.strip(), Position.KEYED, password_key=True
    ):
        return None
    whole, base = match.group(0), match.start()
    start, end = match.start("secret") - base, match.end("secret") - base
    name = "password_in_prose"
    return whole[:start] + token(name) + whole[end:], name


# --- Headers ------------------------------------------------------------------------------

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


def _bare(match: re.Match[str]) -> tuple[str, str] | None:
    """A bare value must be random unless the word is a password's: "password Tiger23+"."""
    is_password = key_kind(match.group("word").replace(" ", "_")) == "password"
    return _replace_value("password_in_prose", random_only=not is_password)(match)


_PROSE_KEYWORDS = ("pass", "pw", "secret", "token", "key", "cred", "seed")
_NAMED_KEYWORDS = ("pass", "pw", "secret", "token", "auth", "cred", "key", "psk", "pat")
_LOGIN_WORDS = ("login", "log in", "signin", "sign in", "credential", "creds")
_KO_KEYWORDS = ("암호", "비밀", "비번", "패스워드", "토큰", "시크릿", "자격", "인증", "키")

PROSE_RULES: tuple[Rule, ...] = (
    Rule("basic_auth", _BASIC, ("basic",), _basic_auth, gates={"basic": "[\t ]+[a-z0-9+/]{8}"}),
    Rule("password_in_prose", _PROSE, _PROSE_KEYWORDS, _replace_value("password_in_prose")),
    Rule("password_in_prose", _KO_PROSE, _KO_KEYWORDS, _replace_value("password_in_prose")),
    Rule("password_in_prose", _BEFORE, _PROSE_KEYWORDS, _replace_value("password_in_prose")),
    Rule("password_in_prose", _BARE, _PROSE_KEYWORDS, _bare),
    Rule("password_in_prose", _NAMED, _NAMED_KEYWORDS, _named),
    Rule("password_in_prose", _SPACED, _NAMED_KEYWORDS, _spaced),
    Rule(
        "password_in_prose",
        _KO_KEY,
        ("키", "시드"),
        _replace_value("password_in_prose", random_only=True),
    ),
    Rule(
        "password_in_prose",
        _KO_BEFORE,
        _KO_KEYWORDS,
        _replace_value("password_in_prose", random_only=True),
    ),
    Rule(
        "password_in_prose",
        _ANSWER,
        (*_PROSE_KEYWORDS, *_KO_KEYWORDS),
        _answer,
        confirm=re.compile(r"\?[^\n]*\n"),
    ),
    Rule(
        "password_in_prose",
        _NEW_VALUE,
        ("value",),
        _answer,
        confirm=re.compile(
            r"(?:new|current|rotated|updated)[\t ]+(?:value|one)[\t ]+is|new value:"
        ),
    ),
    Rule(
        "password_in_prose",
        _QUOTED_NEAR_NAME,
        _NAMED_KEYWORDS,
        _quoted_near_name,
        confirm=re.compile(r"[\"'`][^\"'`\s]{16}"),
    ),
    Rule(
        "key_pair_id",
        _PAIR_ID,
        ("with secret", "시크릿", "비밀", "/"),
        _pair_id,
        confirm=re.compile(r"[0-9a-f]{32}(?:[\t ]+with[\t ]+(?:the[\t ]+)?secret|[\t ]*/)"),
    ),
    Rule(
        "password_in_prose",
        _IN_USE,
        ("using",),
        _generated_near(_AUTH_FAILURE),
        confirm=re.compile(r"(?:i'm|i am|we're|we are|i've been|currently)[\t ]+using"),
    ),
    Rule(
        "password_in_prose",
        _DESCRIBED,
        ("(",),
        _generated_near(None),
        confirm=re.compile(
            r"[!-~]{16}[\t ]*\([^()\n]{0,40}(?:계정|키|토큰|account|key|token|cred)\w*\)"
        ),
    ),
    Rule(
        "password_in_prose",
        _DECODED,
        ("base64",),
        _decoded,
        confirm=re.compile(r"echo[^\n|]*\|[\t ]*base64[\t ]+(?:-d|--decode)"),
    ),
    Rule(
        "login_credentials",
        _KO_LOGIN,
        ("계정", "로그인", "접속"),
        _replace_value("login_credentials"),
    ),
    Rule(
        "login_credentials",
        _LOGIN_PAIR,
        _LOGIN_WORDS,
        _replace_value("login_credentials"),
        gates=dict.fromkeys(_LOGIN_WORDS, r"[^\n;]*?[/:|]"),
    ),
)
