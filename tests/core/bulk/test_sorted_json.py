"""The C encoder of manifest bytes (`core.bulk.sorted_json`) against `json.dumps`.

The property: on every value a manifest can hold (strings of any characters, integers of any
size, booleans, None, lists, dicts with string keys), both give the same bytes, and a lone
surrogate is refused by both alike.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bulk.sorted_json import sorted_json
from core.sync.manifests import plain_canonical

_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)))
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(_VALUES)
def test_the_same_bytes_as_json_dumps(value: object) -> None:
    assert sorted_json(value) == plain_canonical(value)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["files", "format", "machine", "machines", "name", "seen", "seq"]),
        st.lists(st.tuples(_TEXT, _TEXT, st.integers(-1, 2**40)).map(list), max_size=5),
    )
)
def test_a_manifest_shaped_body_encodes_alike(body: dict[str, object]) -> None:
    assert sorted_json(body) == plain_canonical(body)


@pytest.mark.parametrize("text", ["\udc80", "a\ud800b"])
def test_a_lone_surrogate_is_refused_by_both(text: str) -> None:
    with pytest.raises(UnicodeEncodeError):
        sorted_json({"path": text})
    with pytest.raises(UnicodeEncodeError):
        plain_canonical({"path": text})
