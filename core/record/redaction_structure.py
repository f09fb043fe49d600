"""Credentials recognised by where they stand, whatever their vendor: keys, flags and URLs.

A password has no format, and neither do most config secrets (Django's ``SECRET_KEY``, npm's
``_auth``, a kubeconfig's ``client-key-data``). What gives them away is their place:

* the value of an assignment or key/value pair whose key names a secret, in shell, dotenv,
  INI, YAML, JSON, TOML, XML, ``.netrc``, ``.npmrc``, Docker and kube configs;
* the argument of a command-line flag that takes one (``--password``, ``--token``,
  ``sshpass -p``, ``mysql -p…``, ``redis-cli -a``, ``-u user:pass``);
* the password in a URL's user-info, parsed the way people write it: up to the last ``@``
  before the host, so unencoded ``#``, ``?``, ``/`` and ``@`` stay inside it.

The whole value goes, whatever its characters; an id written beside its secret
(``-u ACxxxx:token``) goes with it. Whether the value is a secret or a reference to one
(``$VAR``, ``settings.X``, ``<your-token>``) is decided by ``core.record.redaction_values``.
"""

from __future__ import annotations

import re

from core.record.redaction_rules import (
    TOKEN_RE,
    Replacer,
    Rule,
    any_case,
    compile_ascii,
    token,
)
from core.record.redaction_values import (
    Position,
    is_credential,
    is_placeholder,
    is_reference,
    looks_random,
    taken_in_part,
    trim_value,
)

# --- Key names ------------------------------------------------------------------------------

_SECRET_WORDS = frozenset(
    """password passwd passwort passphrase passcode pass pw pwd secret token auth credential
    credentials creds apikey privatekey secretkey accesskey authtoken accesstoken sessiontoken
    refreshtoken requirepass masterauth masterkey pat psk""".split()
)
_SECRET_ENDINGS = ("password", "passwd", "passphrase", "pwd", "secret", "token", "apikey")
_NOT_PASS = frozenset({"bypass", "compass", "surpass", "overpass", "underpass", "trespass"})
_KEY_QUALIFIERS = frozenset(
    """api secret private access signing sign encryption encrypt master client app application
    auth session hmac webhook account service server storage admin consumer license licence
    subscription shared psk jwt cookie csrf root deploy gpg pgp aes crypto cipher decryption
    integration partner merchant""".split()
)
_TAILS = frozenset(
    "data value b64 base64 hex str string raw bytes text plain plaintext base".split()
)
_PUBLIC_KEY_QUALIFIERS = frozenset(
    """public publishable pub primary foreign sort partition cache idempotency routing shard
    host ssh gpg pgp ca cert certificate sequence composite unique natural surrogate index
    hash lookup map dict object row column field json yaml config registry search site
    anon""".split()
)
_NOT_SECRET_BEFORE_TOKEN = frozenset(
    "page next continuation cancellation sync resume max num total input output".split()
)
_PASSWORD_WORDS = frozenset(
    "password passwd passwort passphrase passcode pass pw pwd requirepass masterauth".split()
)
_CAMEL = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _parts(key: str) -> list[str]:
    return [
        p.casefold() for chunk in re.split(r"[^A-Za-z0-9]+", key) for p in _CAMEL.findall(chunk)
    ]


def key_kind(key: str) -> str | None:
    """``"password"`` or ``"secret"`` when a key or flag name says its value is one, ``"weak"``
    for a key of no known kind (``key``, ``widget_key``), else None.

    Compound names put their head last (``password_policy`` is a policy, ``client_key_data``
    a key), so the last part decides, after dropping a trailing ``_data``/``_value``.
    """
    parts = _parts(key)
    while len(parts) > 1 and parts[-1] in _TAILS:
        parts.pop()
    if not parts:
        return None
    last = parts[-1]
    before = parts[-2] if len(parts) > 1 else ""
    if last in _PASSWORD_WORDS or (
        last.endswith(("password", "passwd", "pwd", "pw"))
        or (last.endswith("pass") and last not in _NOT_PASS)
    ):
        return "password"
    if last == "token" and before in _NOT_SECRET_BEFORE_TOKEN:
        return None
    if (last in _SECRET_WORDS or last.endswith(_SECRET_ENDINGS)) or (
        last == "key" and before in _KEY_QUALIFIERS
    ):
        return "secret"
    if last in {"key", "apikey"} and before not in _PUBLIC_KEY_QUALIFIERS:
        return "weak"  # only a random-looking value makes a bare or unknown key a secret
    return None


def names_no_secret(key: str) -> bool:
    """Whether a name that holds a secret word says its value is no secret: a page or
    continuation token (``next_page_token``), a public or publishable key, a sort or cache key.
    Narrower than ``key_kind`` returning None: an unknown spelling is not vouched for."""
    parts = _parts(key)
    while len(parts) > 1 and parts[-1] in _TAILS:
        parts.pop()
    if len(parts) < 2:
        return False
    last, before = parts[-1], parts[-2]
    if last == "token" and before in _NOT_SECRET_BEFORE_TOKEN:
        return True
    publicly = {"public", "publishable"}
    return last in {"key", "apikey", "token"} and (
        before in _PUBLIC_KEY_QUALIFIERS or not publicly.isdisjoint(parts)
    )


def _word_before(text: str, at: int) -> str:
    """The word before the name that ends at ``at``, across one blank (``public`` in
    ``public key:``)."""
    start = len(name_before(text, at))
    head = text[: at - start].rstrip(" \t")
    return name_before(head, len(head)) if len(head) < at - start else ""


def name_before(text: str, at: int) -> str:
    """The name characters that end at ``at`` (``next_page_`` before ``token=``)."""
    start = at
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    return text[start:at]


def accepts(kind: str, value: str, position: Position) -> bool:
    """Whether ``value`` of a key or flag of ``kind`` (see ``key_kind``) is a secret."""
    if kind == "weak":
        return looks_random(value)
    return is_credential(value, position, password_key=kind == "password")


def _position_value(value: str) -> tuple[str, int, int]:
    """The value without quotes or trailing punctuation, and its span inside ``value``."""
    if len(value) >= 2 and value[0] in "\"'`" and value[-1] == value[0]:
        return value[1:-1], 1, len(value) - 1
    trimmed = trim_value(value)
    return trimmed, 0, len(trimmed)


def _replace_group(match: re.Match[str], group: str, start: int, end: int, name: str) -> str:
    whole, base = match.group(0), match.start()
    at = match.start(group) - base
    return whole[: at + start] + token(name) + whole[at + end :]


_QUOTED = r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|`[^`\n]*`"
_VALUE = rf"(?P<value>{_QUOTED}|[^\s\"'`,;&]+)"

# --- Assignments and key/value pairs --------------------------------------------------------

SECRET_WORD = any_case("pass", "pw", "secret", "token", "auth", "cred", "key", "psk", "pat")
"""Where a key that names a secret has its secret word. A match starts there, not at the key's
first character: the engine then tries a few literals at each position instead of a run of
name characters, and ``key_at`` reads the rest of the name backwards."""
_ASSIGNMENT = compile_ascii(
    SECRET_WORD + r"[\w.-]*(?P<kq>[\"']?)\]?[\t ]*(?P<sep>::?=|[?+]=|=>|=|:)"
    r"[\t ]*(?P<value>" + _QUOTED + r"|[^\s\"'`]+(?=[\t ]*(?:\r?\n|$))|[^\s\"'`,;]+)"
)  # a value that ends its line is one however it reads (OCI_AUTH_TOKEN=25F0PL;sW2C…); one
# within a line stops at "," or ";" unless its key starts the line (see _line_value)
_LINE_START = re.compile(
    r"(?:^|\n)[\t ]*(?:[$#>%][\t ]+)?(?:export[\t ]+|set[\t ]+|-[\t ]+)?[\"']?$"
)  # "$ export X=…": a prompt, then the line's assignment
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-@")
_NOT_BEFORE_KEY = ("$", "%", "${", "%(", "[REDACTED:")


def _inside_value(text: str, start: int, key: str) -> bool:
    """Whether a name that starts at ``start`` is glued to a value's characters before it."""
    before = text[start - 1 : start]
    if before in {"+", "/"}:
        return any(c.isdigit() for c in key)
    if before == "#":  # "#DB_PASSWORD=…" comments a line out; "…L#Hbpw=" is inside a value
        return start >= 2 and not text[start - 2].isspace()
    if before == "=" and _ENV_LIST_KEY.fullmatch(key.rstrip("\"'] \t:=>?+")):
        return not text[start - 2 : start - 1].isalpha()  # environment=DB_PASSWORD="…",Q=…
    return before != "" and before in "!%^*=~|\\"  # not ? or &: a query's parameters


_ENV_LIST_KEY = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _line_value(match: re.Match[str], raw: str) -> str:
    """An unquoted value as far as it goes: to its line's end when its key starts the line
    (a dotenv or shell line: ``;``, ``,`` and ``<`` belong to the value), else to the first
    ``,`` or ``;`` (``user=ops,password=…,domain=x``, mount options)."""
    if raw[:1] in "\"'`" or not re.search(r"[,;]", raw):
        return raw
    text = match.string
    key_start = match.start() - len(name_before(text, match.start()))
    if _LINE_START.search(text, 0, key_start):
        return raw
    return re.split(r"[,;]", raw, maxsplit=1)[0]


def key_at(match: re.Match[str], end_group: str) -> str | None:
    """The whole name whose secret word starts ``match``, up to where ``end_group`` starts
    (without its closing quote); None when the name stands inside a reference (``${X:-}``,
    ``%(x)s``) or an earlier replacement, or its opening quote does not match its closing one.
    """
    text, start = match.string, match.start()
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    if text.endswith(_NOT_BEFORE_KEY, 0, start):
        return None
    key = text[start : match.start(end_group)]
    if _inside_value(text, start, key):
        return None  # …0EwEHPw== in a base64 blob, …L#Hbpw=gorY in a password: not a name
    quote = match.groupdict().get("kq") or ""
    if quote and not text.endswith(quote, 0, start):
        return None
    return key.rstrip("\"'] \t:=>?+")


def _key(match: re.Match[str]) -> str | None:
    if "key" in match.re.groupindex:
        key: str = match.group("key")
        return None if match.string.endswith("[REDACTED:", 0, match.start("key")) else key
    return key_at(match, "sep")


def _in_query(text: str, at: int) -> bool:
    """Whether the name ending before ``at`` follows a URL query's ``?`` or ``&``."""
    while at > 0 and text[at - 1] in _NAME_CHARS:
        at -= 1
    return text[at - 1 : at] in {"?", "&"}


def _keyed_value(position: Position) -> Replacer:
    """Replaces the ``value`` group when ``key`` names a secret and the value is one.

    The value is taken as written: inside its quotes, or to the next blank, without the
    sentence punctuation after it.
    """

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        key = _key(match)
        kind = None if key is None else key_kind(key)
        if kind is None or key is None:
            return None
        if kind == "weak" and names_no_secret(
            _word_before(match.string, match.start()) + "_" + key
        ):
            return None  # "public key: age1…", "SSH key: ssh-ed25519 …"
        raw = match.group("value")
        if match.re is _XML_ELEMENT or match.re is _XML_NAMED:  # element text, spaces and all
            value, start, end = raw.strip(), 0, len(raw)
        else:
            if _in_query(match.string, match.start()):
                raw = raw.split("&", 1)[0]  # a URL's query: the next parameter is not the value
            if match.re.pattern == _ASSIGNMENT.pattern:
                raw = _line_value(match, raw)
            value, start, end = _position_value(raw)
        one_word = start == 1 or "=" not in (match.groupdict().get("sep") or "=")
        if not (taken_in_part(value, one_word=one_word) or accepts(kind, value, position)):
            return None
        name = "generic_api_key" if kind == "weak" else "secret_assignment"
        return _replace_group(match, "value", start, end, name), name

    return replace


# ``requirepass X`` (Redis), ``password X`` after a .netrc ``login``, ``ENV DB_PASSWORD X``.
_DIRECTIVE = compile_ascii(
    r"(?m)(?:(?:^|(?<=\s))(?=requirepass|masterauth)|\blogin[\t ]+\S+\s+(?=pass)"
    r"|(?<=[\t ]:)[\t ]+(?=PSK[\t ])"  # ipsec.secrets: "%any %any : PSK "…""
    r"|^[\t ]*(?:ENV|ARG)[\t ]+)(?P<key>[A-Za-z_]\w*)[\t ]+"
    r"(?P<value>" + _QUOTED + r"|[^\s\"'`]+)"  # a config file's word: & and ; are its own
)


# <password>…</password>, and <add key="ClearTextPassword" value="…"/> (NuGet, .NET config)
_XML_ELEMENT = compile_ascii(r"<(?P<key>[\w:.-]+)>(?P<value>[^<\n]{1,2000})</(?P=key)>")
_XML_NAMED = compile_ascii(
    r"<(?P<tag>[\w:.-]+)[^<>\n]*?\b(?:name|key)=[\"'](?P<key>[^\"'\n]{1,80})[\"'][^<>\n]*>"
    r"(?P<value>[^<\n]{1,2000})</(?P=tag)>"
)
_XML_KEY_VALUE = compile_ascii(
    r"(?i:key|name)[\t ]*=[\t ]*[\"'](?P<key>[^\"'\n]{1,80})[\"'][\t ]+(?i:value)[\t ]*=[\t ]*"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*')"
)


# Authorization: Token abc…, Authorization: SSWS 00…, "authorization": "Basic …"
_AUTHORIZATION = compile_ascii(
    r"(?i:(?:proxy-)?authorization)[\"']?[\t ]*[:=][\t ]*[\"']?"
    r"(?:(?P<scheme>[A-Za-z][\w-]{1,20})[\t ]+)?(?P<value>[^\s\"'`,;]+)"
)


def _authorization(match: re.Match[str]) -> tuple[str, str] | None:
    if (match.group("scheme") or "").casefold() == "basic":
        return None  # basic_auth decodes it and names it
    value = trim_value(match.group("value"))
    if not is_credential(value, Position.KEYED):
        return None
    name = "authorization_header"
    return _replace_group(match, "value", 0, len(value), name), name


# --- Command-line flags ---------------------------------------------------------------------

# A flag's value is one shell word: quoted, or bare with quoted parts (deploy:'p@ss w0rd')
_SHELL_WORD = r"(?:[^\s\"'`;&|]|'[^'\n]*'|\"(?:[^\"\\\n]|\\.)*\")+"
_FLAG_CONFIRM = r"-[a-z][\w-]*(?:=|[\t ]+)\S"
"""What follows the dash of a flag the rule can match, on casefolded text."""
_FLAG = compile_ascii(
    r"(?<![\w-])(?P<flag>--?[A-Za-z][\w-]*)(?:=|[\t ]+)(?!-)(?P<value>" + _SHELL_WORD + ")"
)
_GLUED_P = compile_ascii(r"(?<![\w-])-p(?P<value>" + _QUOTED + r"|[^\s\"'`;&|]+)")
_SHORT_FLAG_COMMANDS = {
    "-p": re.compile(
        r"\b(?:sshpass|mysql\w*|mariadb\w*|mongo\w*|docker|podman|nerdctl|buildah|skopeo|oras|"
        r"helm|7z|rabbitmqctl|influx|clickhouse-client)\b"
    ),
    "-P": re.compile(
        r"\b(?:zip|unzip|sqlcmd|bcp|rar|unrar|osql|isql|ssh-keygen|mosquitto_(?:pub|sub|rr))\b"
    ),
    "-N": re.compile(r"\bssh-keygen\b"),
    "-a": re.compile(r"\b(?:redis-cli|keydb-cli|http|https)\b"),
    "-w": re.compile(r"\bldap\w+\b"),
    "-k": re.compile(r"\bopenssl\b"),
}
_USER_FLAG = re.compile(r"(?:^|\s)(?:-u|--user(?:name)?)[\t =]+\S+[\t ]+$")
_VALUE_FLAGS = frozenset({"--body", "--value", "-b"})
_SECRET_SETTER = re.compile(
    r"\bsecrets?[\t ]+(?:set|put|add|create)\b[^\n]*?[A-Z_]*(?:TOKEN|KEY|SECRET|PASS)"
)
_GLUED_COMMANDS = re.compile(r"\b(?:mysql\w*|mariadb\w*|7z|7za)\b")
_PAIR_FLAGS = frozenset({"-u", "--user", "--proxy-user", "-U", "--auth", "-a", "--basic-auth"})
_FLAG_NOT_VALUE = frozenset(
    "file stdin env path dir type length prompt command cmd helper store id name url endpoint "
    "expiry ttl format mode policy".split()
)


def _line_before(match: re.Match[str]) -> str:
    text, at = match.string, match.start()
    return text[text.rfind("\n", 0, at) + 1 : at]


def _looks_like_key_id(user: str) -> bool:
    """An id that travels with its secret (a Twilio SID, an access key id), not a login name."""
    return (
        len(user) >= 16
        and any(c.isdigit() for c in user)
        and any(c.isalpha() for c in user)
        and re.fullmatch(r"[A-Za-z0-9_-]+", user) is not None
    )


def _pair(match: re.Match[str], start: int, end: int, value: str) -> tuple[str, str] | None:
    """``user:secret`` (or ``user%secret``): the secret goes, the user too when it is an id."""
    if "[REDACTED" in value or is_reference(value) or is_placeholder(value):
        return None  # ${env:X}, op://vault/item: one reference, not a user and a password
    user, sep, secret = value.partition(":")
    if not sep:
        user, sep, secret = value.partition("%")
    if not sep or (is_reference(user) and is_reference(secret)):
        return None
    if user.isdigit() and secret.isdigit():
        return None  # docker -u 1000:1000
    inner, quoted = secret, len(secret) >= 2 and secret[0] in "'\"" and secret[-1] == secret[0]
    if quoted:
        inner = secret[1:-1]  # deploy:'p@ss': the quotes are the shell's
    if inner == user or not is_credential(inner, Position.STRONG, password_key=True):
        return None
    name = "command_line_secret"
    cut = start if _looks_like_key_id(user) else start + len(user) + 1 + quoted
    return _replace_group(match, "value", cut, end - quoted, name), name


def _flag_value(match: re.Match[str]) -> tuple[str, str] | None:
    if match.group("value").endswith(":"):
        return None  # -Auth "password": …, a mapping's key after a word that looks like a flag
    return _flag(match)


def _flag(match: re.Match[str]) -> tuple[str, str] | None:
    flag = match.group("flag")
    value, start, end = _position_value(match.group("value"))
    own = TOKEN_RE.sub("", value)  # a replacement's name holds a ":" of its own
    if flag in _PAIR_FLAGS and (":" in own or (flag == "-U" and "%" in own)):
        return _pair(match, start, end, value)
    if flag in {"-passin", "-passout", "-pass", "-password", "-k"} and value.startswith("pass:"):
        value, start = value[5:], start + 5
    elif flag in _VALUE_FLAGS:
        if _SECRET_SETTER.search(_line_before(match)) is None:
            return None  # gh secret set NAME --body VALUE, fly secrets set …
    elif len(flag) == 2:
        before = _line_before(match)
        command = _SHORT_FLAG_COMMANDS.get(flag)
        after_user = flag == "-p" and _USER_FLAG.search(before) is not None
        if not after_user and (command is None or command.search(before) is None):
            return None
    else:
        parts = _parts(flag)
        if (parts and parts[-1] in _FLAG_NOT_VALUE) or key_kind(flag) is None:
            return None
    kind = "password" if len(flag) == 2 else key_kind(flag) or "secret"
    if not taken_in_part(value, one_word=start == 1) and not is_credential(
        value, Position.STRONG, password_key=kind == "password"
    ):
        return None
    name = "command_line_secret"
    return _replace_group(match, "value", start, end, name), name


# ``echo Zebra2021_ | docker login ghcr.io -u deploy --password-stdin``
_PIPED_PASSWORD = compile_ascii(
    r"\becho[\t ]+(?:-n[\t ]+)?(?P<value>"
    + _QUOTED
    + r"|[^\s\"'`|;&]+)[\t ]*\|[^|\n]*--password-stdin"
)


# ``process.env.API_TOKEN || "…"``, ``os.getenv("API_KEY", "…")``: a literal fallback for a
# variable that names a secret is that secret.
_FALLBACK = compile_ascii(
    r"(?P<key>[A-Za-z_][\w]*)[\"']?[\])]?[\t ]*(?:\|\||\?\?|\bor\b|,)[\t ]*"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)+\"|'[^'\n]+')"
)


# ``host:port:database:user:password`` lines of a .pgpass file
_PGPASS = compile_ascii(
    r"(?m)(?:^|(?<=[\s\"']))[\w.*-]+:(?:[0-9]{2,5}|\*):[\w.*-]+:[\w.@*-]+:(?P<value>[^\s\"']+)"
)
# Bundler: BUNDLE_GEMS__HOST__COM=user:password, bundle config set host user:password
_BUNDLER = compile_ascii(
    r"\bBUNDLE_[A-Z0-9]+(?:__[A-Z0-9]+)+[\"']?[\t ]*[:=][\t ]*[\"']?(?P<value>[^\s\"']+)"
    r"|\bbundle[\t ]+config[\t ]+(?:set[\t ]+)?(?:--(?:global|local)[\t ]+)?"
    r"[\w-]+(?:\.[\w-]+)+[\t ]+(?P<value2>[^\s\"']+)"
)


def _strong_value(name: str, *groups: str, line_needs: re.Pattern[str] | None = None) -> Replacer:
    """Replaces the first of ``groups`` (default ``value``) that matched when it passes the
    strong test, and, given ``line_needs``, the line before the match holds that pattern."""
    names = groups or ("value",)

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        if line_needs is not None and line_needs.search(_line_before(match)) is None:
            return None
        group = next(g for g in names if match.group(g) is not None)
        value, start, end = _position_value(match.group(group))
        quoted = start == 1
        if not (
            taken_in_part(value, one_word=quoted)
            or is_credential(value, Position.STRONG, password_key=True)
        ):
            return None
        return _replace_group(match, group, start, end, name), name

    return replace


def _fallback(match: re.Match[str]) -> tuple[str, str] | None:
    text = match.string
    if text[match.end() :].lstrip(" \t").startswith(":"):
        return None  # "name": "DB_PASSWORD", "valueFrom": …: the next key of a mapping
    if "," in match.group(0)[len(match.group("key")) : match.start("value") - match.start()]:
        before = text[: match.start("key")].rstrip("\"' \t")
        if not before.endswith(("(", "[")):
            return None  # a literal default is an argument: getenv("API_KEY", "…")
    kind = key_kind(match.group("key"))
    value, start, end = _position_value(match.group("value"))
    if kind is None or not accepts(kind, value, Position.KEYED):
        return None
    name = "secret_assignment"
    return _replace_group(match, "value", start, end, name), name


# --- URL user-info --------------------------------------------------------------------------

# The password runs to the last "@" that a host follows: people paste passwords unencoded.
_URL_USERINFO = compile_ascii(
    r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://(?P<value>(?P<user>[^\s:/'\"<>`\[\]]*)"
    r":(?P<secret>[^\s'\"<>`]+))@(?=[A-Za-z0-9\[_])"
)
_PORT = re.compile(r"[0-9]{1,5}(?:[/?#].*)?")


def _url_userinfo(match: re.Match[str]) -> tuple[str, str] | None:
    user, secret = match.group("user"), match.group("secret")
    if (
        "[REDACTED" in match.group("value")
        or "://" in secret
        or _PORT.fullmatch(secret)
        or secret == user
    ):
        return None
    if secret.startswith("[REDACTED") or not is_credential(
        secret, Position.STRONG, password_key=True
    ):
        return None
    name = "url_credentials"
    start = 0 if _looks_like_key_id(user) else len(user) + 1
    return _replace_group(match, "value", start, len(match.group("value")), name), name


# Kubernetes and compose ``env:`` lists, ECS task definitions: the name and its value apart.
#   - name: DJANGO_SECRET_KEY         {"name": "API_TOKEN", "value": "…"}
#     value: "…"
_NAME_VALUE = compile_ascii(
    r"\bname[\"']?[\t ]*:[\t ]*[\"']?(?P<key>[A-Za-z_][\w.-]*)[\"']?[\t ]*"
    r"(?:\n[\t -]*|,[\t ]*)[\"']?value[\"']?[\t ]*:[\t ]*(?P<value>" + _QUOTED + r"|[^\s\"'`,}]+)"
)
# Terraform: variable "db_password" { … default = "…" }
_HCL_VARIABLE = compile_ascii(
    r"\bvariable[\t ]+\"(?P<key>[^\"\n]{1,80})\"[\t ]*\{[^{}]{0,400}?\bdefault[\t ]*=[\t ]*"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\")"
)
# An exec array: ["redis-server", "--requirepass", "…"], command: ["redis-cli", "-a", "…"]
_ARRAY_FLAG = compile_ascii(
    r"[\"'](?P<flag>--?[A-Za-z][\w-]*)[\"'][\t ]*,[\t ]*(?P<value>\"(?:[^\"\\\n]|\\.)+\"|'[^'\n]+')"
)
# ``snyk auth 0c1af2ed-…``, ``tool login <token>``: a generated value given to a login command
_AUTH_COMMAND = compile_ascii(
    r"(?m)(?:^|(?<=[\s;&|$]))[a-z][\w.-]*[\t ]+(?:auth|login|authenticate)[\t ]+"
    r"(?P<value>[^\s\"'`;&|<>]{16,})"
)


# Passwords as Windows tools and a few others take them, each a fixed place in a command:
# xfreerdp /p:…, net use \\host /user:ops …, htpasswd -b file user …,
# ConvertTo-SecureString "…" -AsPlainText, requests' auth=("user", "…")
_PLACED_PASSWORD = compile_ascii(
    r"(?<![\w/])/p(?:ass(?:word)?)?:(?P<value>\"[^\"\n]*\"|[^\s\"]+)"
    r"|(?<![\w/])/user:[^\s/]+[\t ]+(?P<value2>\"[^\"\n]*\"|[^\s/\"][^\s\"]*)"
    r"|\bhtpasswd[\t ]+-\w*b\w*[\t ]+\S+[\t ]+\S+[\t ]+(?P<value3>\"[^\"\n]*\"|'[^'\n]*'|\S+)"
    r"|\b(?:sqlplus|rman|expdp|impdp)[\t ]+(?:-\w+[\t ]+)*[\w$#]+/"
    r"(?P<value6>'[^'\n]*'|\"[^\"\n]*\"|[^\s@/\"']+)@"
    r"|\bConvertTo-SecureString[\t ]+(?:-String[\t ]+)?(?P<value4>\"[^\"\n]*\"|'[^'\n]*')"
    r"|\bauth[\t ]*=[\t ]*\([\t ]*(?:\"[^\"\n]*\"|'[^'\n]*')[\t ]*,[\t ]*"
    r"(?P<value5>\"[^\"\n]*\"|'[^'\n]*')"
)
# Settings written by a command: yarn config set npmAuthToken …, dotnet user-secrets set
# "Stripe:SecretKey" "…", git config --global github.token …
_CONFIG_SET = compile_ascii(
    r"\b(?:config|user-secrets)(?::set)?[\t ]+(?:set[\t ]+)?(?:--?[\w-]+[\t ]+)*"
    r"(?P<key>\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|[^\s=\"'-][^\s=\"']{0,80})[\t ]+"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'-][^\s\"']*)"
)


def _generated_value(name: str) -> Replacer:
    """Replaces ``value`` when it looks generated: a command's argument says nothing more."""

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        value, start, end = _position_value(match.group("value"))
        if not looks_random(value):
            return None
        return _replace_group(match, "value", start, end, name), name

    return replace


_ASSIGNED = r"[\w.-]*[\"']?\]?[\t ]*(?:::?=|[?+]=|=>|[:=])"  # config["SECRET_KEY"] = … too
"""What follows a secret word in an assignment: ``=``, ``:``, ``:=`` (Go, Make), ``?=``, ``+=`` and
``::=`` (Make), ``=>`` (Ruby, PHP)."""
STRUCTURE_RULES: tuple[Rule, ...] = (
    Rule(
        "url_credentials",
        _URL_USERINFO,
        ("://",),
        _url_userinfo,
        confirm=re.compile(r"://[^\s:/]*:[^\s]*@"),  # the user may be an e-mail address
    ),
    Rule("authorization_header", _AUTHORIZATION, ("authorization",), _authorization),
    Rule(
        "command_line_secret",
        _PIPED_PASSWORD,
        ("--password-stdin",),
        _strong_value("command_line_secret"),
        confirm=re.compile(r"echo[^\n]*\|[^\n]*--password-stdin"),
    ),
    Rule(
        "secret_assignment",
        _FALLBACK,
        ("||", "??", " or ", ","),
        _fallback,
        confirm=re.compile(
            r"(?:pass|pw|secret|token|auth|cred|key|psk|pat)[\w]*[\"']?[\])]?[\t ]*"
            r"(?:\|\||\?\?|or\b|,)[\t ]*[\"']"
        ),
    ),
    Rule(
        "secret_assignment",
        _PGPASS,
        (":",),
        _strong_value("secret_assignment"),
        confirm=re.compile(r":(?:[0-9]{2,5}|\*):[\w.*-]+:[\w.@*-]+:\S"),
    ),
    Rule(
        "secret_assignment",
        _BUNDLER,
        ("bundle",),
        _strong_value("secret_assignment", "value", "value2"),
    ),
    Rule(
        "command_line_secret",
        _FLAG,
        ("-",),
        _flag_value,
        confirm=re.compile(_FLAG_CONFIRM),
        # "-" is in every decision id: the early exit asks for a flag's name and its = or
        # space (the confirm's own start, so sound, and never reaching past a NUL)
        gates={"-": r"[a-z][\w-]*(?:=|[\t ]+)"},
    ),
    Rule(
        "command_line_secret",
        _GLUED_P,
        ("-p",),
        # mysql -uroot -pS3cret: MySQL, MariaDB and 7-Zip take the password glued to -p
        _strong_value("command_line_secret", line_needs=_GLUED_COMMANDS),
        confirm=re.compile(r"(?:mysql|mariadb|7z)[^\n]*-p"),
    ),
    Rule(
        "secret_assignment",
        _ASSIGNMENT,
        ("pass", "pw", "secret", "token", "auth", "cred", "key", "psk", "pat"),
        _keyed_value(Position.KEYED),
        gates=dict.fromkeys(
            ("pass", "pw", "secret", "token", "auth", "cred", "key", "psk", "pat"), _ASSIGNED
        ),
    ),
    Rule(
        "secret_assignment",
        _DIRECTIVE,
        ("requirepass", "masterauth", "env", "arg", "login", "psk"),
        _keyed_value(Position.STRONG),
        confirm=re.compile(
            r"(?m)(?:^|\s)(?:requirepass|masterauth)[\t ]|^[\t ]*(?:env|arg)[\t ]"
            r"|login[\t ]+\S+\s+pass|[\t ]:[\t ]+psk[\t ]"
        ),
    ),
    Rule(
        "secret_assignment",
        _NAME_VALUE,
        ("value",),
        _keyed_value(Position.KEYED),
        confirm=re.compile(r"name[\"']?[\t ]*:[^\n]*(?:\n[\t -]*|,[\t ]*)[\"']?value[\"']?[\t ]*:"),
    ),
    Rule(
        "secret_assignment",
        _HCL_VARIABLE,
        ("variable",),
        _keyed_value(Position.KEYED),
        confirm=re.compile(r"variable[\t ]+\""),
    ),
    Rule(
        "command_line_secret",
        _ARRAY_FLAG,
        ('"-', "'-"),
        _flag,
        confirm=re.compile(r"[\"']--?[a-z][\w-]*[\"'][\t ]*,"),
    ),
    Rule(
        "command_line_secret",
        _AUTH_COMMAND,
        (" auth ", " login ", " authenticate "),
        _generated_value("command_line_secret"),
    ),
    Rule(
        "command_line_secret",
        _PLACED_PASSWORD,
        (
            *("/p:", "/pass:", "/password:", "/user:", "htpasswd", "convertto-securestring"),
            *("auth", "sqlplus", "rman", "expdp", "impdp"),
        ),
        _strong_value(
            "command_line_secret", "value", "value2", "value3", "value4", "value5", "value6"
        ),
        confirm=re.compile(
            r"/p(?:ass(?:word)?)?:|/user:|htpasswd|convertto-securestring|auth[\t ]*=[\t ]*\("
            r"|(?:sqlplus|rman|expdp|impdp)[\t ][^\n]*/"
        ),
    ),
    Rule(
        "secret_assignment",
        _CONFIG_SET,
        ("config", "user-secrets"),
        _keyed_value(Position.KEYED),
        confirm=re.compile(r"(?:config|user-secrets)(?::set)?[\t ]+\S"),
    ),
    Rule("secret_assignment", _XML_ELEMENT, ("</",), _keyed_value(Position.KEYED)),
    Rule("secret_assignment", _XML_NAMED, ("</",), _keyed_value(Position.KEYED)),
    Rule(
        "secret_assignment",
        _XML_KEY_VALUE,
        ("value",),
        _keyed_value(Position.KEYED),
        confirm=re.compile(r"value[\t ]*="),
    ),
)
