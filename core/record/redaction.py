"""Removes secrets from journal text before it is stored, shown or exported.

Two layers run in one pipeline:

* the reference redactor's six patterns, reproduced exactly (names, order, replacement rules and
  Go ``regexp`` semantics), so a record redacts as it would in the reference;
* families the reference misses (AWS, JWT, URL credentials, Slack, Stripe, Google, npm, PyPI,
  GitLab, Hugging Face, quoted JSON keys, PKCS#8/PGP and unterminated PEM keys), each reported
  under its own name.

The decision log (docs/decisions.md, 2026-11-29, redaction) records the ordering choices,
the readings of the reference brief, and the measured recall; ``bench/redaction_bench.py``
reproduces the figures.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.record.redaction_prose import PROSE_RULES
from core.record.redaction_rules import (
    TOKEN_RE,
    Rule,
    compile_ascii,
    is_filler,
    token,
    vendor,
)
from core.record.redaction_structure import STRUCTURE_RULES, name_before, names_no_secret
from core.record.redaction_values import (
    NEXT_FIELD,
    Position,
    is_credential,
    is_placeholder,
    is_public_id,
    is_reference,
    never_a_secret,
    trim_value,
)
from core.record.redaction_vendors import VENDOR_RULES, VENDOR_RULES_AFTER_REFERENCE


@dataclass(frozen=True)
class RedactionReport:
    """What one redaction removed, by pattern name; merged across a record's fields."""

    redacted: bool
    patterns: tuple[str, ...]

    def merge(self, other: RedactionReport) -> RedactionReport:
        """Combines two reports the way the reference merges a record's old and new redaction.

        Names are compared case-insensitively because stored records may carry names written
        by another implementation; the first spelling seen is kept.
        """
        return RedactionReport(
            redacted=self.redacted or other.redacted,
            patterns=_dedupe_casefold((*self.patterns, *other.patterns)),
        )


EMPTY_REPORT = RedactionReport(redacted=False, patterns=())


def redact_text(text: str) -> tuple[str, RedactionReport]:
    """Replaces every secret in ``text`` with ``[REDACTED:<name>]``.

    Blank text is returned unchanged, as in the reference, so whitespace-only fields keep
    their exact bytes. Text that changed is redacted again until nothing more changes: a
    replacement can turn a glued neighbour (``…key-glpat-…``) into a separate, matchable
    secret, and a second redaction must never reveal more to remove. Ordinary text settles
    after one pass, so its output is the reference's.

    Returns:
        The redacted text and a report naming the patterns that changed it, in the order
        they first changed it.
    """
    if not text.strip():
        return text, EMPTY_REPORT
    if _ANY_KEYWORD.search(text.casefold()) is None:
        return text, EMPTY_REPORT  # no rule's gate can open: most text, and every plain id
    redacted, names = _redact(text, _RULES)
    if not names:
        return text, EMPTY_REPORT
    for _ in range(_MAX_EXTRA_PASSES):
        again, more = _redact(redacted, _RULES)
        if not more:
            break
        redacted = again
        names.extend(more)
    return redacted, RedactionReport(redacted=True, patterns=_dedupe_casefold(names))


def none_sensitive(texts: Iterable[str]) -> bool:
    """True only when `looks_sensitive` is False for every text; one C search for them all.

    Sound because no rule can change a text whose casefolded form holds none of the gate
    keywords, a keyword is plain text (no anchor, no NUL), and casefolding works character by
    character: a keyword in any one text is also in the NUL-joined whole. False proves
    nothing; the caller then asks text by text.
    """
    return _ANY_KEYWORD.search("\x00".join(texts).casefold()) is None


def looks_sensitive(text: str) -> bool:
    """Tells whether ``redact_text`` would change ``text``.

    Identifiers are rejected rather than rewritten, so callers need the verdict the redactor
    itself would reach, not a looser guess.
    """
    return redact_text(text)[0] != text


# ------------------------------------------------------------------------------------------
# Pipeline

# Each pass that changes text turns some plain text into tokens, so passes stop on their own;
# the cap only bounds the work a pathological input can cause.
_MAX_EXTRA_PASSES = 16


_Rule = Rule
_token = token
_TOKEN_RE = TOKEN_RE
_compile = compile_ascii
_is_filler = is_filler
_vendor = vendor


def _apply(rule: _Rule, text: str, names: list[str]) -> str:
    """Runs one rule over ``text``, appending its name(s) when it replaced something."""
    if rule.replacer is None:
        out, count = rule.regex.subn(_token(rule.name), text)
        if count:
            names.append(rule.name)
        return out
    replacer = rule.replacer

    def substitute(match: re.Match[str]) -> str:
        result = replacer(match)
        if result is None:
            return match.group(0)
        names.append(result[1])
        return result[0]

    return rule.regex.sub(substitute, text)


def _redact(text: str, rules: Iterable[_Rule]) -> tuple[str, list[str]]:
    """Applies ``rules`` in order, each to the output of the previous, as the reference does.

    Gates are checked once, against the text as it came in. That is safe because a gate's
    text lies in plain text the rule needs (its match, or the context an AWS secret needs)
    and no rule takes characters from an inserted ``[REDACTED:...]`` token; the property
    tests check that gating never changes a result.
    """
    folded = text.casefold()
    present = _keywords_in(folded)
    names: list[str] = []
    for rule in rules:
        if present.isdisjoint(rule.keyword_set) and "" not in rule.keyword_set:
            continue  # the hot path: one set test per rule ("" opens every text)
        if rule.confirm is None or rule.confirm.search(folded) is not None:
            text = _apply(rule, text, names)
    return text, names


def _keywords_in(folded: str) -> set[str]:
    """Every pipeline keyword that occurs in ``folded``: one C scan finds the longest keyword
    starting at each position, and the keywords it begins with are present there too. Rules
    given to ``_redact`` use these keywords (or "", which every text holds)."""
    present = {k for k in _COMMON_KEYWORDS if k in folded}
    for found in set(_KEYWORD_SCAN.findall(folded)):
        present.update(_PREFIX_KEYWORDS[found])
    return present


def _dedupe_casefold(names: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        key = _go_lower(name)
        if key not in seen:
            seen.add(key)
            out.append(name)
    return tuple(out)


# ------------------------------------------------------------------------------------------
# Go regexp semantics
#
# The reference runs on Go's RE2 engine. Three differences from Python's ``re`` matter and are
# spelled out rather than left to flags: Go's ``\s`` is ``[\t\n\f\r ]`` (no ``\v``, no Unicode
# spaces); ``\b`` looks at ASCII word characters only (``re.ASCII`` gives that); and ``(?i)``
# folds ``s`` with ``ſ`` and ``k`` with the Kelvin sign but not ``i`` with ``ı``/``İ``, which
# Python's Unicode IGNORECASE does. So case-insensitive reference patterns list their folds.

_GO_SPACE = r"[\t\n\f\r ]"
_VALUE_CHAR = r"[^\t\n\f\r \"']"
_FOLDED_LETTERS = "A-Za-z\u017f\u212a"
_EXTRA_FOLDS = {"k": "\u212a", "s": "\u017f"}
# strings.TrimSpace trims unicode.IsSpace; str.strip() would also trim \x1c-\x1f.
_GO_TRIM = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
_GO_TRIM += "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _ci(word: str) -> str:
    """Spells ``word`` as Go's ``(?i)`` matches it (see the note above)."""
    parts = []
    for ch in word:
        if ch.isascii() and ch.isalpha():
            low = ch.lower()
            parts.append(f"[{low}{low.upper()}{_EXTRA_FOLDS.get(low, '')}]")
        else:
            parts.append(re.escape(ch))
    return "".join(parts)


def _go_lower(text: str) -> str:
    """Lowercases like Go's strings.ToLower, which maps İ to a single ``i``."""
    return text.replace("\u0130", "i").lower()


# ------------------------------------------------------------------------------------------
# The reference's six patterns

# Read literally from the brief ("BEGIN <A-Z and spaces> PRIVATE KEY"): one or more letters or
# spaces, then a space. PKCS#8's bare "BEGIN PRIVATE KEY" does not match; an extra rule below
# catches it, so only the report's order could differ if the reference wrote [A-Z ]* instead.
_PEM_KIND = rf"[{_FOLDED_LETTERS} ]+ "
_PRIVATE_KEY = (
    _ci("-----BEGIN ") + _PEM_KIND + _ci("PRIVATE KEY-----")
    + ".*?" + _ci("-----END ") + _PEM_KIND + _ci("PRIVATE KEY-----")
)  # fmt: skip
_SIGNED_URL_KEYS = ("sig", "signature", "token", "access_token", "X-Amz-Signature")
_PASSWORD_KEYS = (
    ("password",), ("passwd",), ("pwd",), ("secret",), ("token",),
    ("api", "key"), ("access", "key"), ("client", "secret"),
)  # fmt: skip
# Two-part keys accept an optional "_" or "-" between the parts (api_key, api-key, apikey).
_PASSWORD_KEY = "|".join("[_-]?".join(_ci(part) for part in key) for key in _PASSWORD_KEYS)
_PASSWORD_KEYWORDS = ("passw", "pwd", "secret", "token", "key")
# Prose says "key" and "token" all the time; an assignment needs ":" or "=" right after.
_PASSWORD_GATE = re.compile(r"(?:password|passwd|pwd|secret|token|key)[\t\n\f\r ]*[:=]")

_PLACEHOLDER_MARKERS = (
    "change_me", "changeme", "change-me", "replace_me", "replaceme", "replace-me", "your_",
    "your-", "yoursecret", "yourtoken", "yourkey", "placeholder", "example", "sample", "dummy",
    "fake", "todo", "xxxx", "<", ">", "{{", "}}", "dev_secret", "dev-secret", "devsecret",
    "test_secret", "default_secret", "insert_", "put_your", "change_this", "changethis",
)  # fmt: skip
_CODE_MARKERS = (
    "(", ")", "[", "]", "request.", "self.", "os.environ", "os.getenv", "getenv", "config[",
    "config.", "form.", "form[", "args.", "args[", "json.", "json[", "hashlib", "hmac",
    "secrets.", "uuid", "generate", "hash(", '"+ "', '" +"', "%s", "{}", 'f"', "f'",
)  # fmt: skip


def _looks_like_credential(value: str) -> bool:
    """The reference's test for an assigned value: long, not a placeholder, not code.

    Lengths are UTF-8 byte counts because the reference measures Go strings with ``len``;
    character classes follow Go's ``unicode`` package (Nd digits, L letters, Lu/Ll case).
    """
    trimmed = value.strip(_GO_TRIM)
    size = len(trimmed.encode("utf-8", "surrogatepass"))
    if size < 16:
        return False
    lowered = _go_lower(trimmed)
    if any(marker in lowered for marker in _PLACEHOLDER_MARKERS):
        return False
    if any(marker in trimmed for marker in _CODE_MARKERS):
        return False
    if any(ch.isdecimal() or not (ch.isalpha() or ch in "_-") for ch in trimmed):
        return True
    categories = {unicodedata.category(ch) for ch in trimmed}
    return size >= 20 and "Lu" in categories and "Ll" in categories


def _password_assignment(match: re.Match[str]) -> tuple[str, str] | None:
    """Replaces only the value, keeping key, separator and quotes, as the reference does."""
    key, separator, open_quote, value, close_quote = match.groups()
    if not _looks_like_credential(value):
        return None
    name = "password_assignment"
    return f"{key}{separator}{open_quote}{_token(name)}{close_quote}", name


def _sk_key_family(match: re.Match[str]) -> tuple[str, str]:
    """Names an ``sk-`` key by its vendor prefix without changing the reference's span.

    Anthropic (``sk-ant-``) and OpenAI project (``sk-proj-``) keys match the reference's
    ``openai_api_key`` pattern too. Choosing the name inside that one pattern keeps the
    redacted text byte-identical to the reference while the report says whose key leaked.
    """
    body = _go_lower(match.group(0)[3:])
    if body.startswith("ant-"):
        name = "anthropic_api_key"
    elif body.startswith("proj-"):
        name = "openai_project_key"
    else:
        name = "openai_api_key"
    return _token(name), name


_SK_KEY = _compile(r"\b" + _ci("sk-") + rf"[{_FOLDED_LETTERS}0-9_-]{{20,}}\b")
_REFERENCE_AFTER_SK = (
    _Rule(
        "github_token",
        _compile(r"\bgh[pousr]_[A-Za-z0-9_]{20,}\b"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    # The reference spells this one without word boundaries, unlike the gh*_ pattern.
    _Rule("github_token", _compile(r"github_pat_[A-Za-z0-9_]{20,}"), ("github_pat_",)),
    _Rule("private_key", _compile(_PRIVATE_KEY, re.DOTALL), ("-----begin",)),
    _Rule(
        "bearer_token",
        _compile(_ci("bearer") + _GO_SPACE + rf"+[{_FOLDED_LETTERS}0-9._-]{{20,}}"),
        ("bearer",),
    ),
    _Rule(
        "signed_url_secret",
        _compile("(?:" + "|".join(map(_ci, _SIGNED_URL_KEYS)) + rf")=[{_FOLDED_LETTERS}0-9%._-]+"),
        ("sig=", "signature=", "token="),
    ),
    _Rule(
        "password_assignment",
        _compile(
            rf"({_PASSWORD_KEY})({_GO_SPACE}*[:=]{_GO_SPACE}*)([\"']?)({_VALUE_CHAR}{{6,}})([\"']?)"
        ),
        _PASSWORD_KEYWORDS,
        _password_assignment,
        _PASSWORD_GATE,
    ),
)
# The reference alone: the bench's baseline and the rules the Go vectors pin.
_REFERENCE_RULES = (_Rule("openai_api_key", _SK_KEY, ("sk-",)), *_REFERENCE_AFTER_SK)


# ------------------------------------------------------------------------------------------
# The reference's patterns as the pipeline runs them
#
# Two departures, both toward the issue a reader of the output cares about. A reference
# (``$VAR``, ``settings.X``, ``%(token)s``) or documentation filler (``ghp_XXXX…``) is left
# alone: it is not a secret, and redacting it hides what the text says. And a value the
# reference's character class cuts short (``TOKEN=q9+Xf3k…/8LmW``, ``Bearer abc+def/ghi=``)
# goes whole: the rest of it is the rest of the secret.

_NO_VALUE = frozenset({"null", "none", "nil", "undefined", "true", "false", "empty"})
_WHOLE_VALUE = re.compile(r"[\t\n\f\r ]*[^\t\n\f\r \"'`&,;]*")
_REST = r"(?P<rest>[^\t\n\f\r \"'`,;<>\[\](){}]*)"
_HEADER_REST = r"(?P<rest>[^\t\n\f\r \"'`]*)"
"""A bearer token runs to the next blank or quote whatever it holds (Adyen's keys hold
``)``, ``,``, ``>``, ``{``); the sentence's own punctuation after it is given back."""


def _guarded(rule: _Rule) -> _Rule:
    """The same rule, leaving references and filler alone and taking the whole value."""
    inner = rule.replacer

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        value = match.group(0)
        if "rest" in match.re.groupindex:  # key=value or "Bearer value": the value as written
            cut = value.find("=") + 1 or len(value.split(None, 1)[0])
            whole = _WHOLE_VALUE.match(match.string, match.start() + cut)
            value = whole.group(0).strip() if whole else value  # the pattern matches "" too
        if (
            is_reference(value)
            or is_filler(value)
            or is_placeholder(value)
            or is_public_id(value)
            or value.casefold() in _NO_VALUE
        ):
            return None
        before = match.string[match.start() - 1 : match.start()]
        if "rest" in match.re.groupindex and (
            before.isdigit() or before == "/" or _runs_on(match, rule.name, before)
        ):
            return None  # …a0010TOKEN=0 inside a longer value: the rules for that value judge
            # it; OCI_TOKEN=0h+q2bi(v(G2j…: the assignment rules take the whole value
        if "rest" in match.re.groupindex and names_no_secret(
            name_before(match.string, match.start()) + match.group(0).split("=", 1)[0]
        ):
            return None  # next_page_token=…, MAPBOX_PUBLIC_TOKEN=…
        if inner is not None:
            return inner(match)
        rest = match.groupdict().get("rest") or ""
        kept = ""
        if rule.name == "bearer_token" and rest:
            matched = match.group(0)
            kept = matched[len(trim_value(matched)) :]  # "(Bearer abc…)." keeps ")."
        elif "&" in rest and match.string[match.start() - 1 : match.start()] in {"?", "&"}:
            kept = rest[rest.index("&") :]  # a URL's query: the next parameter stays (and the
            # next pass judges it)
        return _token(rule.name) + kept, rule.name

    return dataclasses.replace(rule, replacer=replace)


_VALUE_ENDS = frozenset({"", " ", "\t", "\n", "\r", "\f", '"', "'", "`", "&"})


def _runs_on(match: re.Match[str], name: str, before: str) -> bool:
    """Whether a ``name=`` value outside a URL's query goes on past what the pattern took."""
    after = match.string[match.end() : match.end() + 1]
    return name == "signed_url_secret" and before not in {"?", "&"} and after not in _VALUE_ENDS


def _password_value(match: re.Match[str]) -> tuple[str, str] | None:
    """The reference's assignment, but not of a reference, placeholder or public id, nor for a
    key inside a larger value (``arn:…:secret:name``, ``vault/secret/…``)."""
    value = match.group(4).strip(_GO_TRIM).rstrip(";,")  # a statement's end is not the value
    after_break = match.group(2).rpartition("\n")
    if match.string[match.start() - 1 : match.start()] in {":", "/"} or (
        after_break[1] and not after_break[2]
    ):
        return None  # inside a larger value; "API_KEY=" with nothing after it (a YAML value
        # on the next line is indented)
    key_start = match.start() - len(name_before(match.string, match.start()))
    if match.string.endswith(("${", "$", "%(", "{{"), 0, key_start):
        return None  # ${DB_PASSWORD:?required}: the name of a variable, and its default
    field = NEXT_FIELD.search(match.group(4))
    if field is not None:  # Password=…;TrustServerCertificate=True: a connection string's field
        value = match.group(4)[: field.start()]
    if never_a_secret(value) or names_no_secret(
        name_before(match.string, match.start()) + "_" + match.group(1)
    ):
        return None  # a reference, placeholder, public id, path or number; a page token
    if field is None:
        return _password_assignment(match)
    key, separator, open_quote, whole, close_quote = match.groups()
    if not _looks_like_credential(value) and not is_credential(value, Position.KEYED):
        return None
    name = "password_assignment"
    rest = whole[field.start() :]
    return f"{key}{separator}{open_quote}{_token(name)}{rest}{close_quote}", name


_PEM_BODY = re.compile(r"[A-Za-z0-9+/]{20,}")


def _with_key_body(rule: _Rule) -> _Rule:
    """The same PEM rule, leaving a block whose body is filler (``...``, ``<paste key here>``):
    a key's body is base64, in lines of 64 characters."""
    inner = rule.replacer

    def replace(match: re.Match[str]) -> tuple[str, str] | None:
        if _PEM_BODY.search(match.group(0)) is None:
            return None
        if inner is None:
            return _token(rule.name), rule.name
        return inner(match)

    return dataclasses.replace(rule, replacer=replace)


def _pipeline_rule(rule: _Rule) -> _Rule:
    if rule.name in {"signed_url_secret", "bearer_token"}:
        pattern = rule.regex.pattern
        regex = _compile(pattern + (_HEADER_REST if rule.name == "bearer_token" else _REST))
        return _guarded(dataclasses.replace(rule, regex=regex))
    if rule.name == "password_assignment":
        return dataclasses.replace(rule, replacer=_password_value)
    if rule.name == "github_token":
        return _guarded(rule)
    if rule.name == "private_key":
        return _with_key_body(rule)
    return rule


_PIPELINE_AFTER_SK = tuple(_pipeline_rule(rule) for rule in _REFERENCE_AFTER_SK)


# ------------------------------------------------------------------------------------------
# Families the reference misses

# "aws" not inside a word (amazonaws.com), or the value's own name (SecretAccessKey). A bare
# "access_key" is left to the reference's password_assignment, which names it the same way.
_AWS_SECRET_CONTEXT = re.compile(r"(?<![a-z])aws|secret.?access.?key")


def _aws_secret_in_context(match: re.Match[str]) -> bool:
    """A bare 40-character base64 run is an AWS secret only when AWS is named just before it.

    Without that anchor, base64 fixtures and opaque bearer tokens would be redacted under the
    wrong name, and text the reference handles would come out differently.
    """
    value = match.group("secret")
    window = match.string[max(0, match.start() - 60) : match.start()]
    # Names inside earlier [REDACTED:aws_...] tokens are not context.
    window = _TOKEN_RE.sub(" ", window).casefold()
    if window.rstrip().endswith("bearer"):
        return False
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbolic = any(c.isdigit() or c in "/+" for c in value)
    return mixed and symbolic and _AWS_SECRET_CONTEXT.search(window) is not None


_GITLAB_PREFIXES = "glpat|gldt|glrt|glptt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct"
_PEM_BEGIN = r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
_PEM_LINE = r"(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Version|Comment):[^\n]*)"
_ANY_PASSWORD_KEY = "|".join("[_-]?".join(key) for key in _PASSWORD_KEYS)

# These run before the reference patterns: their secrets also match a reference pattern
# (a JWT after "Bearer", a Slack token after "token="), and the more specific name should win.
_BEFORE_REFERENCE = (
    _vendor(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        ("eyj",),
        filler_check=False,
    ),
    _vendor(
        "aws_access_key_id",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        ("akia", "asia", "abia", "acca", "a3t"),
    ),
    _vendor(
        "aws_secret_access_key",
        r"(?<![A-Za-z0-9/+])(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("aws", "access"),
        _aws_secret_in_context,
    ),
    _vendor(
        "slack_webhook",
        r"https://(?i:hooks\.slack\.com)/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        ("hooks.slack.com",),
    ),
    _vendor(
        "slack_token",
        r"\b(?:xox[abceoprs]-(?:[0-9]+-){1,3}[A-Za-z0-9]{8,}[A-Za-z0-9-]*"
        r"|xoxe(?:\.xox[bp])?-[0-9]-[A-Za-z0-9]{60,}"
        r"|xapp-[0-9]-[A-Z0-9]{6,}-[0-9]{6,}-[A-Za-z0-9]{20,})",
        ("xox", "xapp-"),
    ),
    _vendor(
        "stripe_key",
        r"\b(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9]{24,})"
        r"(?![A-Za-z0-9])",
        ("sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_"),
    ),
    _vendor("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", ("aiza",)),
    _vendor(
        "google_oauth_client_secret",
        r"\bGOCSPX-[0-9A-Za-z_-]{28}(?![0-9A-Za-z_-])",
        ("gocspx-",),
    ),
    _vendor("npm_token", r"\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", ("npm_",)),
    _vendor("pypi_token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", ("pypi-age",)),
    _vendor(
        "gitlab_token",
        rf"\b(?:(?:{_GITLAB_PREFIXES})-|GR1348941)[A-Za-z0-9_-]{{20,}}(?:\.[A-Za-z0-9_-]+)*",
        (*(f"{prefix}-" for prefix in _GITLAB_PREFIXES.split("|")), "gr1348941"),
    ),
    _vendor(
        "huggingface_token",
        r"\b(?:hf|api_org)_[A-Za-z]{34}(?![A-Za-z0-9])",
        ("hf_", "api_org_"),
    ),
)

# These run after: the reference should keep its own output and names where it matches.
_AFTER_REFERENCE = (
    # Complete RSA/EC/DSA/OPENSSH/ENCRYPTED blocks are gone by now (reference private_key).
    # Left: PKCS#8 "BEGIN PRIVATE KEY" and PGP blocks, which the reference's pattern does not
    # match, and keys pasted without their END line.
    _with_key_body(
        _vendor(
            "private_key",
            rf"(?is:{_PEM_BEGIN}(?:.*?{_PEM_END}|(?:(?:{_GO_SPACE}|\\[nr])*{_PEM_LINE})+))",
            ("-----begin",),
            filler_check=False,
        )
    ),
)

_RULES = (
    *_BEFORE_REFERENCE,
    *VENDOR_RULES,
    _guarded(_Rule("openai_api_key", _SK_KEY, ("sk-",), _sk_key_family)),
    *_PIPELINE_AFTER_SK,
    *_AFTER_REFERENCE,
    *VENDOR_RULES_AFTER_REFERENCE,
    *STRUCTURE_RULES,
    *PROSE_RULES,
)


def _merged_gates(rules: Iterable[Rule]) -> dict[str, str]:
    """Every rule's keyword gates; a keyword two rules narrow differently accepts either tail."""
    gates = {"sk-": "[a-z0-9_-]{20}"}
    open_keywords: set[str] = set()  # some rule opens on the bare keyword: no tail narrows it
    for rule in rules:
        open_keywords.update(k for k in rule.keywords if k not in rule.gates)
        for keyword, tail in rule.gates.items():
            old = gates.get(keyword)
            gates[keyword] = tail if old is None or old == tail else f"(?:{old}|{tail})"
    return {k: v for k, v in gates.items() if k not in open_keywords or k == "sk-"}


def _gate_confirm(rule: Rule) -> Rule:
    """Gives a rule with narrowed keywords a ``confirm`` search built from them, so a keyword
    as common as ``.`` or ``:`` only runs the rule's regex when its tail follows."""
    if not rule.gates or rule.confirm is not None:
        return rule
    parts = [re.escape(k) + rule.gates.get(k, "") for k in rule.keywords]
    return dataclasses.replace(rule, confirm=re.compile("|".join(parts)))


_RULES = tuple(_gate_confirm(rule) for rule in _RULES)
_KEYWORD_GATES = _merged_gates(_RULES)
"""Keywords whose early-exit test can be narrower than the bare keyword, on casefolded text:
the regex that must follow the keyword.

`sk-` occurs in ordinary words and IDs (`task-…`, `risk-…`); a key needs 20 key characters
after it. Sound because casefolding maps every character the key pattern allows ([A-Za-zſK0-9_-])
to one character of [a-z0-9_-], so a matching key always leaves `sk-` and 20 of those behind.
"""


def _keyword_tree_pattern(words: Iterable[str], tails: dict[str, str]) -> str:
    """A regex matching exactly where one of `words` (followed by its tail, if it has one)
    starts, written as a prefix tree.

    Why: Python's regex engine tries each branch of a flat alternation at every position; in a tree,
    one failed first character rules out every word that starts with it, which makes the search much
    faster on identifiers (bench/redaction_bench.py). A word that extends a shorter untailed one is
    left out: wherever it matches, the shorter one does too.
    """
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        if word in tails:
            node = node.setdefault(tails[word], {})  # a key longer than one character: a regex
        node[""] = {}
    return _branches(tree)


def _branches(node: dict[str, Any]) -> str:
    if "" in node:
        return ""
    parts = [
        (re.escape(key) if len(key) == 1 else key) + _branches(child)
        for key, child in sorted(node.items())
    ]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _longest_first_tree(words: Iterable[str]) -> str:
    """A regex matching the longest of ``words`` at a position, written as a prefix tree."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def branches(node: dict[str, Any]) -> str:
        parts = [re.escape(key) + branches(child) for key, child in sorted(node.items()) if key]
        if not parts:
            return ""
        body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
        return f"(?:{body})?" if "" in node else body

    return branches(tree)


_ALL_KEYWORDS = frozenset(k for rule in _RULES for k in rule.keywords)
_COMMON_KEYWORDS = tuple(k for k in _ALL_KEYWORDS if len(k) <= 2 and not k[0].isalnum())
"""Punctuation keywords (``:``, ``-``, ``||``) occur everywhere; one substring test each is
cheaper than collecting their every position from the scan."""
_SCANNED_KEYWORDS = _ALL_KEYWORDS - frozenset(_COMMON_KEYWORDS)
_KEYWORD_SCAN = re.compile(f"(?=({_longest_first_tree(_SCANNED_KEYWORDS)}))")
_PREFIX_KEYWORDS = {
    word: tuple(k for k in _SCANNED_KEYWORDS if word.startswith(k)) for word in _SCANNED_KEYWORDS
}


_ANY_KEYWORD = re.compile(
    _keyword_tree_pattern({k for r in _RULES for k in r.keywords}, _KEYWORD_GATES)
)
"""Every rule's gate keywords at once: one C search instead of a test per keyword and rule."""
