"""Properties of framing and parsing that no list of examples covers: any split, any bytes."""

from __future__ import annotations

import contextlib
import itertools
import json
import struct
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import FrameTooLarge, ProtocolError
from core.ipc.framing import FrameDecoder, encode_frame
from core.ipc.protocol import JSON_SAFE_INT, Request, parse_request

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(cut, len(data)) for cut in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


@given(
    bodies=st.lists(st.binary(max_size=300), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=20),
)
def test_any_split_of_a_stream_decodes_to_the_same_bodies(
    bodies: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(struct.pack(">I", len(body)) + body for body in bodies)
    decoder = FrameDecoder()
    decoded = [body for chunk in split(stream, cuts) for body in decoder.feed(chunk)]
    assert decoded == bodies
    assert decoder.buffered == 0


@given(
    bodies=st.lists(st.binary(max_size=300), max_size=4),
    junk=st.binary(max_size=400),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=10),
)
def test_arbitrary_bytes_raise_nothing_but_protocol_errors(
    bodies: list[bytes], junk: bytes, cuts: list[int]
) -> None:
    """Well-framed garbage reaches the parser; trailing junk reaches the framing checks."""
    stream = b"".join(struct.pack(">I", len(body)) + body for body in bodies) + junk
    decoder = FrameDecoder()
    with contextlib.suppress(FrameTooLarge):
        for chunk in split(stream, cuts):
            for body in decoder.feed(chunk):
                with contextlib.suppress(ProtocolError):
                    parse_request(body)


@given(body=st.binary(max_size=2000))
def test_arbitrary_bodies_parse_or_raise_protocol_errors(body: bytes) -> None:
    try:
        parse_request(body)
    except ProtocolError as exc:
        assert exc.code in (-32700, -32600)


@given(
    envelope=st.dictionaries(
        st.sampled_from(["jsonrpc", "id", "method", "params", "x"]), json_values, max_size=5
    )
)
def test_arbitrary_envelopes_parse_or_raise_protocol_errors(envelope: dict[str, Any]) -> None:
    try:
        request = parse_request(json.dumps(envelope).encode())
    except ProtocolError as exc:
        assert exc.code in (-32700, -32600)
        assert exc.message
    else:
        assert set(envelope) <= {"jsonrpc", "id", "method", "params"}
        assert request.jsonrpc == "2.0"


@settings(max_examples=200)
@given(
    request_id=st.integers(min_value=-JSON_SAFE_INT, max_value=JSON_SAFE_INT)
    | st.text(min_size=1, max_size=128),
    method=st.text(min_size=1, max_size=128),
    params=st.dictionaries(st.text(max_size=8), json_values, max_size=5),
)
def test_valid_requests_survive_a_round_trip(
    request_id: int | str, method: str, params: dict[str, Any]
) -> None:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    frame = encode_frame(message)
    (body,) = list(FrameDecoder().feed(frame))
    assert parse_request(body) == Request.model_validate(message)
