"""Whether a value found where a credential stands is one: the tests the structural rules share.

A structural rule (``core.record.redaction_structure``, ``core.record.redaction_prose``) finds
a value by its position: after a key that names a secret, after a flag that takes one, inside a
URL's user-info, after "the password is". Position says *this could be a secret*; these tests
say whether the value is one, or a reference to one (``$VAR``, ``${VAR}``, ``%(name)s``,
``{{ name }}``, ``process.env.X``, ``os.environ[...]``, ``settings.X``), a placeholder
(``<your-token>``, ``XXXX``, ``****``, ``...``, ``changeme``), or an ordinary word. They look
at the value's shape, never at single characters: a random secret may hold ``(`` or ``$``.

Three strengths of position, from the most to the least telling:

* ``STRONG``: a URL's password, a flag that takes one, a config directive (``requirepass``);
* ``KEYED``: an assignment or key/value pair whose key names a secret;
* ``PROSE``: a sentence ("the password for the box is …"), where the value must look random.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from enum import Enum

from core.record.redaction_rules import TOKEN_RE


class Position(Enum):
    """How sure the place a value stands in makes us that it is a credential."""

    STRONG = "strong"
    KEYED = "keyed"
    PROSE = "prose"


_REFERENCE = re.compile(
    r"""(?x)
    \$\{[^}]*\}?.* | \$\(.* | \$[A-Za-z_][A-Za-z0-9_]* | \$[0-9]  # $VAR, ${VAR}, $(cmd), $1
    | \$env:[A-Za-z_]\w* | \{env:[^}]+\}                  # PowerShell's $env:X, {env:X} configs
    | !(?:Ref|Sub|GetAtt|ImportValue|Join|Select|FindInMap|If|Base64|Split|vault|secret
        |include|env_var|ENV|reference)\b.*      # CloudFormation's !Ref X, Ansible's !vault
    | %\(?[A-Za-z_][\w.]*\)?[sdr]? | %[A-Za-z_][A-Za-z0-9_]*%      # %(name)s, %s, %APPDATA%
    | \{\{.*\}\}? | \{%.*%\}? | <%.*%>? | \#\{.*\}? | @\{.*\}?    # templates
    | \{[A-Za-z_][\w.-]*\}                   # {token}, a format field
    | \[[^\]]*\]                            # [REDACTED], [secret]
    | <[^<>]*>                              # <your-token>
    | !{1,2}(?:[a-z][a-z-]*|(?:[A-Z][a-z]+)+|[A-Z]{2,8})   # YAML tags: !vault, !GetAtt, !ENV
    | [&*][a-z_][a-z0-9_-]*                 # YAML anchors and aliases
    | :[A-Za-z_]\w*                         # :token, a route or SQL parameter
    | [A-Za-z_$][A-Za-z_$.]*\((?:[\w$.:/\t ,=()\[\]-]|"[^"]*"|'[^']*')*\)  # getenv("X"), env('X')
    | [A-Za-z_][\w.]*\[(?:"[^"]*"|'[^']*'|[\w$.-]*)\](?:\[(?:"[^"]*"|'[^']*'|[\w$.-]*)\])*
                                          # os.environ["X"], ENV['X'], config[key]
    | (?:vault|ssm|secretsmanager|aws-sm|gcp-sm|op|env|file|keyring|sops|azure-kv|k8s|arn):.+
    | projects/[^/\s]+/secrets/.+ | [\w.-]+/secrets?/[\w./#-]+   # GCP and other secret-store paths
    """
)
_ARGS = r"\((?:[\w$.:/\t ,=-]|\"[^\"]*\"|'[^']*')*\)"  # code's arguments: names, literals
_INDEX = r"\[(?:\"[^\"]*\"|'[^']*'|[\w$.-]*)\]"  # ["db"], [key], [0]
_CODE_CHAIN = re.compile(
    rf"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|{_ARGS}|{_INDEX})*"
    rf"(?:{_ARGS}|{_INDEX})(?:\.[A-Za-z_$][\w$]*|{_ARGS}|{_INDEX})*"
)  # session.get_credentials().access_key, config["db"]["password"]
_CUT_CODE = re.compile(
    r"@?[A-Za-z_$](?:::|[\w$.])*[(\[](?:'[\w.:-]*'?|\"[\w.:-]*\"?)?,?"  # os.environ[, @Value(,
    # std::env::var( cut at a quote; os.getenv('OPENAI_API_KEY', cut at the next blank
    r"|[A-Za-z_$][\w$]{2,}(?:\.[A-Za-z_$][\w$]*)*\(:?[a-z_$][A-Za-z_$.]*"  # jwt.encode(payload, …
)
_CODE_ROOTS = frozenset(
    """process os settings config conf cfg env environ self this app secrets vars inputs params
    values import window request req ctx context args opts options props properties System
    Rails ENV current_app st Deno Bun cli flags""".split()
)
_STRONG_ROOTS = frozenset("process os settings var local data module env self this".split())
_DOTTED_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_NAME_SEGMENT = (
    r"(?:[a-z_$][a-z0-9_$]*|[A-Z][A-Z0-9_]*|[a-z]+(?:[A-Z][a-z0-9]+)+|(?:[A-Z][a-z0-9]+)+)"
)
_SHORT_SEGMENTS = re.compile(rf"(?=[^.]{{1,12}}\.){_NAME_SEGMENT}(?:\.{_NAME_SEGMENT})+")
"""settings.DB_PASSWORD, config.apiKey: segments a programmer names, the first one short."""
_PUBLIC_ID = re.compile(
    r"(?:AC|SK|PN|MG|SM|CA|RE|IS|US|AP)[0-9a-f]{32}"  # Twilio SIDs
    r"|age1[02-9ac-hj-np-z]{58}"  # age public keys (bech32): the recipient, shared on purpose
    r"|phc_[A-Za-z0-9]{32,}"  # PostHog project keys, shipped in browsers
    r"|pk_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe publishable keys
    r"|pk\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"  # Mapbox public tokens
)
_UPPER_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
_PLACEHOLDER_WORDS = (
    "change_me", "changeme", "change-me", "change_this", "changethis", "replace_me", "replaceme",
    "replace-me", "replace_with", "your_", "your-", "yourpass", "yoursecret", "yourtoken",
    "yourkey", "placeholder", "example", "sample", "dummy", "redacted", "insert_", "insert-",
    "put_your", "put-your", "fill_in", "fill-in", "not_set", "notset", "not-set", "****",
    "....", "…", "your_token", "sekret",
    "secret123", "password123", "passw0rd", "p@ssw0rd", "p@ssword", "abc123", "qwerty123",
)  # fmt: skip
_TEMPLATE = re.compile(r"\{\{.*\}\}|\$\{[^}]*\}|%\([A-Za-z_][\w.]*\)")
"""A template's field inside a value (``{{ name }}``, ``${VAR}``, ``%(name)s``): opener and closer.
A generated password may hold an opener alone (``qCERAIvg{{q9P``, ``%(0#)``)."""
_STOP_VALUES = frozenset(
    """true false yes no on off none null nil undefined empty required optional disabled enabled
    default inherit inherited auto automatic prompt ask generated random secret password passwd
    pass token key apikey api_key value string str text bytes base64 hex hash hashed bearer basic
    digest oauth oauth2 jwt ldap saml kerberos ntlm sso mfa totp env environment vault keyring
    keychain stdin file path secure insecure plain plaintext cleartext encrypted masked hidden
    sensitive public private local remote admin root guest user username test testing demo dev
    development staging production prod hunter2 foobar foo bar baz qux abc abcdef letmein
    changeit welcome here todo tbd fixme mypassword mysecret mytoken secretkey supersecret
    topsecret 1password bitwarden lastpass keepass keepassxc dashlane passbolt pass-store
    gopass""".split()
)
_TECH_WORDS = (
    "argon2", "sha1", "sha2", "sha3", "sha256", "sha384", "sha512", "md5", "base64", "pbkdf2",
    "bcrypt", "scrypt", "utf-8", "utf8", "oauth2", "1password", "aes-", "aes128", "aes256",
    "rsa2048", "rsa4096", "ed25519", "x509", "x.509", "pkcs", "hmac", "2fa", "totp", "http",
)  # fmt: skip
_VERSION = re.compile(r"v?[0-9]+(?:\.[0-9]+)+[a-z0-9.+-]*", re.IGNORECASE)
_DURATION = re.compile(r"[0-9]+(?:ms|s|m|h|d|w|y|mo|min|sec|hrs?|days?|k|kb|mb|gb|%)", re.I)
_PATH = re.compile(
    r"(?:~|\.{1,2})?/(?:[\w.@-]+/)*[\w.@-]+/?|[A-Za-z]:\\[^\s]*|\.?[\w-]+\.[a-z]{2,5}"
)
_FILE_END = re.compile(
    r"\.(?:txt|pem|key|crt|cer|json|ya?ml|env|toml|ini|conf|cfg|p12|pfx|jks|gpg|asc|age|enc|pub"
    r"|der|csr|log|sh)$"
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_SNAKE_WORDS = re.compile(r"[a-z]+(?:[_-][a-z]+)+")
_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_PATH_LIKE = re.compile(
    r"(?:~|\.{1,2})?/(?:[\w.-]+/)*[\w.-]*|(?:[a-z0-9_.-]+/)+[a-z0-9_.-]*"
)  # /etc/app/key, ./secret.txt, secret/data/app
_LOWER_DOTTED = re.compile(r"(?:[a-z][a-z_-]*|[0-9]+)(?:\.(?:[a-z][a-z_-]*|[0-9]+))+")
_SETTING_NAME = re.compile(r"[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+")  # jetbrains.mps.v8_x
_HANGUL_WORDS = re.compile(r"[\uac00-\ud7a3\u3131-\u318e\s.,()-]+")
_NUMERIC = re.compile(r"[0-9.:/-]+(?:/(?:tcp|udp))?")
_REPEATED = re.compile(r"([^/+=])\1{5,}")  # AWS session tokens hold runs of "/"
_HEX = re.compile(r"[0-9a-fA-F]+")
_CMDLET = re.compile(
    r"(?:Get|Set|New|Remove|ConvertTo|ConvertFrom|Read|Write|Invoke|Add|Import|Export|Test"
    r"|Start|Stop|Select|Out)-[A-Z][A-Za-z]+"
)  # ConvertTo-SecureString: a PowerShell command where a value would stand
_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_PASSWORD_HASH = re.compile(
    r"(?:\$(?:2[abxy]?|1|5|6|y|apr1|argon2(?:id|i|d)|scrypt|pbkdf2[\w-]*)\$"
    r"|(?:pbkdf2_sha(?:1|256)|argon2|bcrypt(?:_sha256)?|scrypt)\$|\{S?SHA(?:256|512)?\})\S+"
)
"""A stored password hash (``$2b$12$…``, ``pbkdf2_sha256$…``, ``{SSHA}…``): what is kept instead of
the password."""
NEXT_FIELD = _NEXT_FIELD = re.compile(r";(?=[A-Za-z][A-Za-z ]{1,40}=)")
"""Where a connection string's next ``Name=value`` field starts (ADO.NET, ODBC, JDBC)."""
_LOGIN_NAME = re.compile(r"[A-Za-z_][\w.-]{0,40}")
_FLAG_SHAPE = re.compile(r"--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:=\S*)?|-[A-Za-z]")
"""``--no-verify``, ``-p``: a flag; ``-WlZOu3XE1jE-eELr5JE…`` is a token that starts with a dash."""
_REMARK = re.compile(r"[(\[][A-Za-z][A-Za-z0-9-]*")
_SPEC = re.compile(r"(?:[a-z][a-z0-9_-]*=[^,=\s]*,)+[a-z][a-z0-9_-]*=[^,=\s]*")
"""``id=npm,src=$HOME/.npmrc``, ``type=bind,source=/x``: a mount or secret spec, names and paths."""
_SPEC_SECRET_NAME = re.compile(r"(?:^|,)[a-z_-]*(?:pass|pw|secret|token|key|auth|cred)[a-z_-]*=")


def is_reference(value: str, *, bare_names: bool = True) -> bool:
    """A variable, template field, code expression or secret-store address, not the secret.

    ``bare_names`` False: a dotted or upper-case name without ``$`` or a call is taken as a
    value, as in a URL or a flag, where code does not stand.
    """
    value = value.replace("?.", ".")  # session?.access_token: optional chaining
    if value.endswith("!") and _DOTTED_NAME.fullmatch(value[:-1]):
        value = value[:-1]  # process.env.API_KEY!: TypeScript's non-null assertion
    if (
        _REFERENCE.fullmatch(value)
        or _CODE_CHAIN.fullmatch(value)
        or _CUT_CODE.fullmatch(value)
        # process.env.X, var.db_password: code even where a value is expected
        or (_DOTTED_NAME.fullmatch(value) and value.split(".", 1)[0] in _STRONG_ROOTS)
    ):
        return True
    if not bare_names:
        return False
    digits = sum(ch.isdigit() for ch in value)
    if _DOTTED_NAME.fullmatch(value):
        # settings.X, process.env.X: name-like segments without digits, or a known root; a
        # password that holds a dot (Orbit.quartz08) has digits
        root = value.split(".", 1)[0]
        return root in _CODE_ROOTS or (digits == 0 and _SHORT_SEGMENTS.fullmatch(value) is not None)
    # OTHER_VARIABLE or TOKEN names a variable; a random upper-case key carries digits.
    if _UPPER_NAME.fullmatch(value) is None:
        return False
    if value.isalpha():
        return len(value) <= 12  # TOKEN, SECRET: a name
    segments = value.split("_")
    # DB_PASSWORD, S3_BUCKET: every part a word that starts with a letter, few digits
    return (
        len(segments) > 1
        and digits <= 2
        and all(
            part[:1].isalpha() and sum(c.isalpha() for c in part) >= sum(c.isdigit() for c in part)
            for part in segments
        )
    )


def is_placeholder(value: str) -> bool:
    """Filler a document or template puts where a secret would go (``XXXX``, ``<token>``)."""
    lowered = value.casefold()
    if (
        any(w in lowered for w in _PLACEHOLDER_WORDS)
        or _REPEATED.search(value)
        or _TEMPLATE.search(value)
    ):
        return True
    if _masked(value):
        return True  # sk-...4f2a, ****a1b2: a masked value
    if value.startswith("<") or _ANGLE_END.search(value) or "<your" in lowered:
        return (
            True  # <paste-here>, <YOUR_KEY>; a "<" inside a random value is one of its characters
        )
    if value.endswith("@") and value.rstrip("@").casefold() in _STOP_VALUES:
        return True  # guest@, anonymous@: the anonymous-FTP convention
    first, sep, second = value.replace("/", ":").partition(":")
    if sep and first == second:
        return True  # minioadmin/minioadmin, guest:guest: a documented default
    return all(ch in "*xX.#?-_•·" for ch in value)


_ANGLE_END = re.compile(r"<[A-Za-z_][\w .-]*>$")
"""``YOUR_KEY_HERE<token>``: a placeholder's ending; a ``>`` alone ends a random value."""
_MASK_RUN = re.compile(r"[*.•·]{3,}|[xX]{4,}")
_MASK_SHOWS_AT_MOST = 8


def _masked(value: str) -> bool:
    """A value shown with most of it hidden (``sk-...4f2a``, ``****a1b2``, ``ghp_XXXX``): a mask
    run, and little else: at most a few letters and digits outside the runs, or the runs a third
    of the value or more. A password that merely holds ``***`` among many other characters
    (``DO***8ePBP6L3yq~``) is a password."""
    runs = _MASK_RUN.findall(value)
    if not runs:
        return False
    hidden = sum(len(run) for run in runs)
    shown = sum(ch.isalnum() for ch in _MASK_RUN.sub("", value))
    return shown <= _MASK_SHOWS_AT_MOST or hidden * 3 >= len(value)


def _plain_word(value: str) -> bool:
    """A word a config or a sentence puts there that is no secret: ``true``, ``required``."""
    lowered = value.casefold()
    return lowered.strip("-_.") in _STOP_VALUES or len(set(lowered)) <= 2


def _not_a_secret_shape(value: str) -> bool:
    """A path, file name, URL, e-mail address, version, duration or number with a unit."""
    lowered = value.casefold()
    if _URL.match(value) or _EMAIL.fullmatch(value):
        return True
    if _VERSION.fullmatch(value) or _DURATION.fullmatch(value):
        return True
    if _FILE_END.search(lowered):
        return True
    return bool(
        value.startswith(("/", "./", "../", "~/"))
        and _PATH.fullmatch(value)
        and not any(_generated(part) for part in value.split("/"))
    )


def _generated(part: str) -> bool:
    """A path segment no one names a folder: 12 characters or more of both cases and digits
    (``/FEL2TSV5EO0A5ooaft1gRBkx`` is a base64 secret that starts with a slash)."""
    return (
        len(part) >= 12
        and any(c.isdigit() for c in part)
        and any(c.isupper() for c in part)
        and any(c.islower() for c in part)
    )


_WORDY_SEGMENT = re.compile(r"[A-Za-z]{2,}(?:[._-][A-Za-z]{2,})*|v?[0-9]+|")


def _wordy_path(value: str) -> bool:
    """``secret/data/app``, ``api/v1/users``: a relative path of words, not ``s5k/vst5``."""
    return _PATH_LIKE.fullmatch(value) is not None and all(
        _WORDY_SEGMENT.fullmatch(part) for part in value.split("/")
    )


def is_credential(value: str, position: Position, *, password_key: bool = False) -> bool:
    """Whether ``value``, found at ``position``, is a credential to remove.

    Args:
        value: the whole value, quotes removed.
        position: how telling the place it stands in is.
        password_key: the key or flag names a password itself (``password``, ``requirepass``),
            so a plain word of eight letters or more is taken too: people pick words.
    """
    if never_a_secret(value, bare_names=position is not Position.STRONG):
        return False
    if position is Position.PROSE:
        return _random_enough_for_prose(value)
    minimum = 3 if position is Position.STRONG else 4
    return _secret_in_place(value, minimum, password_key) or _encoded_secret(value, minimum)


_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4}){2,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _encoded_secret(value: str, minimum: int) -> bool:
    """A value that is base64 of a password (a Kubernetes Secret's ``data``, a ``.npmrc``
    ``_auth``): printable text that passes the password test itself (``SmVqdTIwMjIq``)."""
    if _BASE64.fullmatch(value) is None:
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return (
        len(decoded) >= 6
        and decoded.isprintable()
        and not never_a_secret(decoded)
        and _secret_in_place(decoded, minimum, True)
    )


def _harmless_spec(value: str) -> bool:
    return _SPEC.fullmatch(value) is not None and _SPEC_SECRET_NAME.search(value) is None


def taken_in_part(value: str, *, one_word: bool = False) -> bool:
    """Whether a value found where a credential stands holds an earlier rule's replacement glued
    to more of its own characters (``aPW=[REDACTED:…]``: a password that held an assignment,
    whose part after the ``=`` the assignment rule took first). Such a value is one credential,
    and what is left of it goes with the replacement. Punctuation alone beside replacements
    (``[REDACTED:a]/[REDACTED:b]``) and a URL whose user-info was replaced are not, nor a
    replacement a separator touches (``[REDACTED:jwt]&state=1``: the next query parameter;
    ``token:[REDACTED:…]@github.com``: user-info, a host after it). ``one_word`` True: the
    value is one whatever it holds (quoted, after ``: `` or "the password is"), so none of
    those separators in it separates anything."""
    if "[REDACTED:" not in value or "://" in value:
        return False
    for found in TOKEN_RE.finditer(value):
        before, after = value[found.start() - 1 : found.start()], value[found.end() :]
        if after.startswith("@") or (
            not one_word and (before in _SEPARATORS or after[:1] in _SEPARATORS)
        ):
            return False
    rest = TOKEN_RE.sub("", value)
    return any(ch.isalnum() for ch in rest) and _HANGUL.search(rest) is None


_SEPARATORS = frozenset("&;,|")


def never_a_secret(value: str, *, bare_names: bool = True) -> bool:
    """Values no position makes a secret: references, filler, public ids, paths, numbers."""
    if not value or len(value) > 8192 or "[REDACTED" in value:
        return True
    if (
        _REMARK.fullmatch(value)
        or _harmless_spec(value)
        or _PASSWORD_HASH.fullmatch(value)
        or _COLOUR.fullmatch(value)  # --color-primary-token: #3b82f6, a design token
        or _CMDLET.fullmatch(value)
    ):
        return True  # "(see 1Password…": a remark begins where a value would; a mount spec
    if _HANGUL.search(value) and (_HANGUL_WORDS.fullmatch(value) or " " in value):
        return True  # Korean words where a value would stand: a sentence, not a password
    if _NUMERIC.fullmatch(value) and not value.isdigit():
        return True  # a port mapping, an address, a time or a date
    if (
        is_reference(value, bare_names=bare_names)
        or is_placeholder(value)
        or _plain_word(value)
        or _reference_beside(value, bare_names=bare_names)
    ):
        return True
    # A Twilio account or key SID names the account; its secret stands apart.
    return _PUBLIC_ID.fullmatch(value) is not None or _not_a_secret_shape(value)


def _reference_beside(value: str, *, bare_names: bool) -> bool:
    """A reference with a connection string's next field after it
    (``$APP_SECRET;TrustServerCertificate=True``), or after a login (``app_rw:var.db_password``,
    ``deploy:${TOKEN}``)."""
    field = _NEXT_FIELD.search(value)
    if field is not None and never_a_secret(value[: field.start()], bare_names=bare_names):
        return True
    user, sep, rest = value.partition(":")
    return bool(sep and _LOGIN_NAME.fullmatch(user) and is_reference(rest))


def _random_enough_for_prose(value: str) -> bool:
    """In a sentence: six characters or more, a letter, and a digit, a symbol or mixed case;
    not Korean (the sentence going on), a flag, a path, or a setting's or algorithm's name."""
    if len(value) < 6 or not any(ch.isalpha() for ch in value) or _not_for_prose(value):
        return False
    word = value.rstrip("?!")
    if word.isalpha() and (word.islower() or word.istitle()):
        return False  # "policy?", "Reset!": a word and the sentence's own mark
    if any(ch.isdigit() for ch in value) or _has_symbol(value.replace("'", "")):
        return True  # an apostrophe alone is English ("everyone's"), not a generated symbol
    mixed = any(ch.isupper() for ch in value) and any(ch.islower() for ch in value)
    return mixed and not value.istitle() and len(value) >= 10


def _names_a_technique(lowered: str) -> bool:
    """``sha256``, ``aes-256-gcm``, ``bcrypt``: an algorithm's name, not ``2fa0abf9…``."""
    for word in _TECH_WORDS:
        if lowered.startswith(word):
            rest = lowered[len(word) :]
            if len(rest) <= 8 or not rest[0].isalnum():
                return True
    return False


def _not_for_prose(value: str) -> bool:
    lowered = value.casefold()
    return bool(
        _SNAKE_WORDS.fullmatch(value)
        or _HANGUL.search(value)
        or _FLAG_SHAPE.fullmatch(value) is not None
        or _names_a_technique(lowered)
        or _LOWER_DOTTED.fullmatch(value)  # color.primary.500: a design token's name
        or ("/" in value and _wordy_path(value))
    )


def _secret_in_place(value: str, minimum: int, password_key: bool) -> bool:
    """After a key, a flag or in a URL: anything but a plain word or a resource's name."""
    if len(value) < minimum:
        return False
    digit, alpha = any(ch.isdigit() for ch in value), any(ch.isalpha() for ch in value)
    if digit and not alpha:
        return password_key and len(value) >= 6
    if digit or _has_symbol(value):
        return True
    if _SNAKE_WORDS.fullmatch(value):
        return False  # db-creds, app-secret: a resource's name
    if password_key:
        return len(value) >= 8  # people pick words for passwords
    mixed = any(ch.isupper() for ch in value) and any(ch.islower() for ch in value)
    return mixed and len(value) >= 20


def looks_random(value: str, minimum: int = 16) -> bool:
    """Long, letters with digits, spread over many characters: a generated secret, wherever
    it stands."""
    return (
        len(value) >= minimum
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and _entropy(value) >= (2.9 if _HEX.fullmatch(value) else 3.2)  # hex has 16 letters
        and not never_a_secret(value)
        and _SETTING_NAME.fullmatch(value) is None
        and not _FLAG_SHAPE.fullmatch(value)
    )


def is_public_id(value: str) -> bool:
    """An identifier public by design: a Twilio account or API key SID, a Stripe publishable
    key, a Mapbox public token."""
    return _PUBLIC_ID.fullmatch(value) is not None


def _has_symbol(value: str) -> bool:
    return any(not ch.isalnum() and ch not in "-_." for ch in value)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}


def trim_value(value: str) -> str:
    """The value without what a sentence or a markup puts after it.

    Sentence punctuation (``.``, ``,``, ``:``, ``;``) goes, and a closing bracket the value
    never opened; Korean particles glued to an ASCII value (``Tiger23+Nimbus입니다``) go too.
    """
    if value and value[0].isascii():
        for index, ch in enumerate(value):
            if ch.isalpha() and not ch.isascii():  # a particle; "…" of a masked value stays
                value = value[:index]
                break
    for _ in range(2):  # "(TODO).": the sentence's punctuation, then the parentheses
        while value:
            last = value[-1]
            if (
                last in ".,:;"
                or (last in _CLOSERS and _CLOSERS[last] not in value)
                or (last in "'\"`" and value.count(last) == 1)  # 'API_KEY is required')
            ):
                value = value[:-1]
            else:
                break
        if value.startswith("(") and value.endswith(")"):
            value = value[1:-1]  # (TODO), ($GITHUB_TOKEN): a value written in parentheses
    return value
