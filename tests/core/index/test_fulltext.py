"""The index's words: the fast paths must give exactly what the word definition gives.

`fts_document` works over UTF-8 bytes and folds token by token for speed. The oracle below is
the definition written the plain way (the implementation before that rewrite), so the two are
compared on any text, above all on characters that NFKC or case folding change.
"""

from __future__ import annotations

import re
import string
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.index.fulltext import fts_document, fts_token, record_words, searched_parts, words
from core.record.models import DecisionRecord, Option, RejectedReason

_WORD = re.compile(r"[^\W_]+")


def reference_words(text: str) -> list[str]:
    found: list[str] = []
    for token in unicodedata.normalize("NFKC", text).casefold().split():
        if token.isalnum():
            found.append(token)
        else:
            found.extend(_WORD.findall(token))
    return found


def reference_encoding(word: str) -> str:
    return "".join(ch if ch.isascii() else f"_{ord(ch):06x}" for ch in word)


def reference_document(record: DecisionRecord) -> str:
    found = sorted(set(reference_words("\n".join(searched_parts(record)))))
    return " ".join(reference_encoding(word) for word in found)


TRICKY = (
    "ﬁﬀﬃⅫⅻＡｚ０９①½²⁴₅ßẞİıΣσςǅŉÅÉéöΩΩKK㎏ｶｰﾞﾟ٣۴߀"  # NFKC or case folding change these
    "\u00a8\u0301\u0308\u0334\u0338<=>"  # combining marks, and what U+0338 composes with
    "\u1100\u1161\u11a8가각한국어中文字，。😀𝐀"  # jamo that compose, CJK, astral letters
    "\ud800\udc00\udfff"  # lone surrogates
    "\u00a0\u3000\u2028\u0085\x1c\x1f\x00\t\n _-.,'\"\\"  # whitespace and separators
)
characters = st.one_of(
    st.sampled_from(TRICKY),
    st.sampled_from(string.ascii_letters + string.digits + " _-.\n"),
    st.characters(),
)
texts = st.text(characters, max_size=40)


@st.composite
def records(draw: st.DrawFn) -> DecisionRecord:
    """Searched fields only, built without validation: the words must hold for any text."""
    options = [
        Option.model_construct(
            label=draw(texts),
            description=draw(texts),
            pros=draw(st.lists(texts, max_size=2)),
            cons=draw(st.lists(texts, max_size=2)),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    return DecisionRecord.model_construct(
        problem=draw(texts),
        custom_selection=draw(texts),
        selection_reason_raw=draw(texts),
        summary_sentence=draw(texts),
        tags=draw(st.lists(texts, max_size=2)),
        domains=draw(st.lists(texts, max_size=2)),
        options=options,
        rejected_reasons=[
            RejectedReason.model_construct(reason=reason)
            for reason in draw(st.lists(texts, max_size=2))
        ],
    )


def record_of(problem: str) -> DecisionRecord:
    return DecisionRecord.model_construct(problem=problem)


@settings(max_examples=500)
@given(text=texts)
@example(text="Ｆｉｌｅ_name ﬁle Ⅻ x<\u0338y \u00a8a STRASSE straße İstanbul ΣΑΣ")
def test_words_are_the_definition(text: str) -> None:
    assert words(text) == reference_words(text)


@settings(max_examples=500)
@given(record=records())
def test_the_fts_document_is_the_definition(record: DecisionRecord) -> None:
    assert fts_document(record) == reference_document(record)
    assert record_words(record) == set(reference_words("\n".join(searched_parts(record))))


@given(problem=texts)
@example(problem="café Café CAFÉ cafe")
@example(problem="가 나 가나 ga")
@example(problem="a\ud800b 😀x")
def test_the_fts_document_of_one_field(problem: str) -> None:
    record = record_of(problem)
    assert fts_document(record) == reference_document(record)


@given(word=texts)
def test_a_query_token_is_encoded_as_the_document_encodes_it(word: str) -> None:
    assert fts_token(word) == reference_encoding(word)


def test_words_are_sorted_by_code_point_and_encoded() -> None:
    record = record_of("Zebra ÉCOLE école ﬁsh 10 9 _under_score_ 한국 𐐀 😀")
    assert fts_document(record) == "10 9 fish score under zebra _0000e9cole _00d55c_00ad6d _010428"


def test_a_record_without_words_has_an_empty_document() -> None:
    assert fts_document(record_of(" -_- ")) == ""
