"""Word-wise free-text search: the tokenizer, the reference matcher and the FTS5 encoding.

The store's own `list --query` keeps the reference's lowercase substring semantics. The journal
window needs search-as-you-type over a large journal, so the index defines word semantics
instead, in this module only, and the SQLite FTS5 table reproduces them exactly:

* Text is NFKC-normalized and case-folded; a word is a maximal run of characters for which
  `str.isalnum()` holds (punctuation, `_` and spaces separate words).
* A query word matches a record's word of the same English stem (`stem`: "caching" finds
  "cache", "caches" and "cached"), through the few forms `forms` spells from that stem; a
  record matches when every query word matches one of its words. The last query word may also
  be a prefix of one of its words (the user is still typing it), unless the query ends in
  whitespace.
* A query without any word (blank, or only punctuation) matches every record.
* Searched fields: problem, option labels, descriptions, pros and cons, the custom selection, the
  selection reason, rejection reasons, the summary sentence, tags, domains and the kind (whose
  words `caching-strategy` are "caching" and "strategy"). IDs and the project are not searched:
  they have their own filters.

Why the stems are spelled out at query time and not stored: the index then holds each word as
written, its build costs what it did, and one query word becomes an OR of a few exact words,
which FTS5 looks up as fast as one.

Why words are encoded before FTS5 sees them: FTS5's tokenizers fold case and split text by their
own Unicode tables, which differ from Python's at the edges. Tokenizing here and handing FTS5
ASCII-only tokens (`[0-9a-z]`, each non-ASCII character written as `_` plus six hex digits, a
prefix-free code) makes the index agree with `query_matches` for every input, prefixes included.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from core.record.shape import RecordShape

_WORD = re.compile(r"[^\W_]+")
_FOLD_ASCII = bytes(
    (ord(chr(byte).lower()) if chr(byte).isalnum() else ord(" ")) if byte < 0x80 else byte
    for byte in range(256)
)
"""For `bytes.translate` over UTF-8: casefolds ASCII letters, turns every other ASCII character
that is not alphanumeric into a space, and leaves the bytes of non-ASCII characters alone."""


def words(text: str) -> list[str]:
    """The words of text in order, normalized the way both sides of a comparison see them."""
    return _split_folded(unicodedata.normalize("NFKC", text).casefold())


def _split_folded(folded: str) -> list[str]:
    """The words of already normalized and case-folded text.

    A whitespace-separated token made only of alphanumerics is one word as it stands (the
    regex would find exactly it: whitespace is never alphanumeric); only the others go through
    the regex. Most tokens are plain words, and this halves the cost of splitting text.
    """
    found: list[str] = []
    for token in folded.split():
        if token.isalnum():
            found.append(token)
        else:
            found.extend(_WORD.findall(token))
    return found


def searched_parts(record: RecordShape) -> list[str]:
    parts = [
        record.problem,
        record.custom_selection,
        record.selection_reason_raw,
        record.summary_sentence,
        *record.tags,
        *record.domains,
        record.decision_kind,
    ]
    for option in record.options:
        parts.extend([option.label, option.description, *option.pros, *option.cons])
    parts.extend(rejection.reason for rejection in record.rejected_reasons)
    return parts


def record_words(record: RecordShape) -> set[str]:
    """Words of every searched field; one pass over the joined text (a newline never merges)."""
    return set(words("\n".join(searched_parts(record))))


def query_terms(query: str) -> tuple[list[str], str | None]:
    """(words that must match exactly, the word matched as a prefix or None)."""
    terms = words(query)
    if not terms:
        return [], None
    if query[-1:].isspace():
        return list(dict.fromkeys(terms)), None
    return list(dict.fromkeys(terms[:-1])), terms[-1]


_SUFFIXES = (
    ("ies", "y"),
    ("ied", "y"),
    ("ings", ""),
    ("ing", ""),
    ("ers", ""),
    ("er", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
)
"""English inflections `stem` removes, longest first; at most one, then a final "e"."""
_MIN_STEM = 3
_KEPT_DOUBLE = "lszaeiou"
"""Doubled final letters an inflection keeps ("pull", "pass", "free"); others it added ("stopp")."""


def stem(word: str) -> str:
    """The word without its English inflection: "caching", "cache", "caches" and "cached" are
    all "cach". Deliberately light (one suffix, a final "e", a doubled consonant): it never
    merges words whose stems differ, and words that are not lowercase ASCII letters, or are
    shorter than four letters, stay as they are."""
    if len(word) < _MIN_STEM + 1 or not (word.isascii() and word.isalpha() and word.islower()):
        return word
    base = word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and not (suffix == "s" and word.endswith("ss")):
            cut = word[: -len(suffix)] + replacement
            if len(cut) >= _MIN_STEM:
                base = cut
                break
    if base.endswith("e") and len(base) > _MIN_STEM:
        base = base[:-1]
    if base != word and base[-1] == base[-2] and base[-1] not in _KEPT_DOUBLE:
        base = base[:-1]
    return base


def forms(word: str) -> list[str]:
    """The word and the inflected forms of its stem that share that stem, the word first: what
    a query word matches ("caching": caching, cach, cache, caches, cached, …)."""
    base = stem(word)
    if base == word and not word.isalpha():
        return [word]
    spelled = [word, base, *(base + end for end in ("e", "s", "es", "ed", "ing", "er", "ers"))]
    if base.endswith("y"):
        spelled += [base[:-1] + "ies", base[:-1] + "ied"]
    if base[-1:].isalpha() and base[-1:] not in "aeiouwxy":
        spelled += [base + base[-1] + end for end in ("ed", "ing", "er")]
    return [f for f in dict.fromkeys(spelled) if f == word or stem(f) == base]


def query_matches(record: RecordShape, query: str) -> bool:
    """The reference semantics the FTS5 query reproduces (see the module docstring)."""
    exact, prefix = query_terms(query)
    if not exact and prefix is None:
        return True
    found = record_words(record)
    if not all(any(form in found for form in forms(term)) for term in exact):
        return False
    if prefix is None:
        return True
    return any(word.startswith(prefix) for word in found) or any(
        form in found for form in forms(prefix)
    )


def fts_token(word: str) -> str:
    if word.isascii():
        return word
    return "".join(ch if ch.isascii() else f"_{ord(ch):06x}" for ch in word)


def fts_document(record: RecordShape) -> str:
    """The text stored in the FTS5 table: each distinct word once, in order, encoded.

    Exactly `" ".join(fts_token(w) for w in sorted(record_words(record)))`, computed over the
    UTF-8 bytes of the normalized text because a cold build does this for every record: one
    table lookup per byte casefolds ASCII and turns its separators into spaces, one split and
    one set keep each token once, and only the few distinct tokens with non-ASCII characters
    are decoded again to be casefolded and split the Unicode way. Case folding maps character
    by character, and an ASCII separator stays one after it, so folding token by token folds
    the text. UTF-8 bytes sort as their code points do, so the order is that of the words.
    """
    text = unicodedata.normalize("NFKC", "\n".join(searched_parts(record)))
    data = text.encode("utf-8", "surrogatepass").translate(_FOLD_ASCII)
    found = set(data.split())
    if not data.isascii():
        _fold_non_ascii_tokens(found)
    document = b" ".join(sorted(found))
    return document.decode("ascii") if document.isascii() else _escaped(document)


def _fold_non_ascii_tokens(found: set[bytes]) -> None:
    """Replaces the tokens holding non-ASCII characters with their casefolded words."""
    tokens = list(itertools.filterfalse(bytes.isascii, found))
    found.difference_update(tokens)
    folded = b" ".join(tokens).decode("utf-8", "surrogatepass").casefold()
    if folded.replace(" ", "").isalnum():  # each token is one word: the usual case
        found.update(folded.encode("utf-8", "surrogatepass").split())
    else:
        found.update(word.encode("utf-8", "surrogatepass") for word in _split_folded(folded))


def _escaped(document: bytes) -> str:
    """`fts_token` of every word at once: Python's escapes, rewritten as `_` + six hex digits.

    A word never holds a backslash (it is no alphanumeric), so every escape is one of ours.
    """
    escaped = document.decode("utf-8", "surrogatepass").encode("ascii", "backslashreplace")
    escaped = escaped.replace(b"\\x", b"_0000").replace(b"\\u", b"_00")
    return escaped.replace(b"\\U00", b"_").decode("ascii")


def fts_expression(query: str) -> str | None:
    """An FTS5 MATCH expression for query, or None when the query has no words."""
    exact, prefix = query_terms(query)
    quoted = [_any_form(term) for term in exact]
    if prefix is not None:
        quoted.append(_any_form(prefix, f'"{fts_token(prefix)}"*'))
    return " AND ".join(quoted) or None


def _any_form(word: str, *also: str) -> str:
    """`("caching" OR "cach" OR …)`: a record holding any form of word (see `forms`)."""
    spelled = [*also, *(f'"{fts_token(form)}"' for form in forms(word))]
    return spelled[0] if len(spelled) == 1 else f"({' OR '.join(spelled)})"
