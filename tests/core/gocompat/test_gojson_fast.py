"""`dumps_indented_bytes` (msgspec in C) against the Python Go-compatible encoder.

The Python encoder is checked against vectors Go itself wrote; the C path must give its bytes
for every value, taking the Python path for whatever msgspec would write differently.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.gocompat.gojson import dumps_indented, dumps_indented_bytes

_ODD_TEXT = st.sampled_from(
    [
        "",
        "<a href='x'>&amp;</a>",
        "line\u2028sep\u2029",
        "\x00\x1f\x7f",
        "\ud800",
        "é\u00a0ß",
        '\\"',
    ]
)
_TEXT = st.text(max_size=12) | _ODD_TEXT
_SCALARS = st.one_of(
    _TEXT,
    st.booleans(),
    st.none(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 0.85, 1e-5, 1e-7, 1e21, 123456789012345678.0]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=600, deadline=None)
@given(value=_VALUES)
@example(value={"rules": [], "overrides": {}, "confidence": 0.85, "ids": ["a<b", "c&d"]})
def test_the_c_path_writes_what_the_go_encoder_writes(value: Any) -> None:
    assert dumps_indented_bytes(value) == dumps_indented(value).encode("utf-8")
