"""Frames and strict JSON: a frame is its length and its body, refused by its header when too
large, and JSON is read with no guesses."""

from __future__ import annotations

import pytest

from core.errors import ErrorCode, FrameTooLarge, ProtocolError
from core.ipc.framing import HEADER_SIZE, MAX_DEPTH, FrameDecoder, decode_json, encode_frame


def test_a_frame_is_its_length_then_its_body_and_splits_anywhere() -> None:
    frame = encode_frame({"a": [1, "é"]})
    body = frame[HEADER_SIZE:]
    assert int.from_bytes(frame[:HEADER_SIZE], "big") == len(body)
    decoder = FrameDecoder()
    got = [part for byte in (frame + frame) for part in decoder.feed(bytes([byte]))]
    assert got == [body, body] and decoder.buffered == 0


def test_an_oversized_header_fails_the_stream_for_good() -> None:
    decoder = FrameDecoder(max_frame=8)
    with pytest.raises(FrameTooLarge, match="the limit is 8 bytes"):
        list(decoder.feed((9).to_bytes(4, "big")))
    with pytest.raises(FrameTooLarge):
        list(decoder.feed(b""))


@pytest.mark.parametrize(
    ("body", "found"),
    [
        (b'{"a": 1, "a": 2}', "duplicate key"),
        (b"[NaN]", "NaN is not valid JSON"),
        (b"1e999", "out of range"),
        (b"{} {}", "trailing data"),
        (b"\xff", "not valid UTF-8"),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "nests deeper"),
    ],
)
def test_strict_json_refuses_what_a_lenient_reader_would_guess(body: bytes, found: str) -> None:
    with pytest.raises(ProtocolError, match=found) as caught:
        decode_json(body)
    assert caught.value.code == ErrorCode.PARSE_ERROR


@pytest.mark.parametrize(
    ("body", "message", "limit"),
    [
        (b"[" + b"9" * 5000 + b"]", "integer has 5000 digits; the limit is 4300", 4300),
        (b"-" + b"9" * 4301, "integer has 4301 digits; the limit is 4300", 4300),
        (b"\xef\xbb\xbf{}", "JSON starts with a byte order mark (U+FEFF)", None),
        (b"[" * 1000 + b"]" * 1000, f"JSON nests deeper than {MAX_DEPTH} levels", MAX_DEPTH),
    ],
)
def test_a_refusal_names_the_limit_in_our_words_not_the_interpreters(
    body: bytes, message: str, limit: int | None
) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_json(body)
    assert caught.value.message == message
    assert caught.value.data.get("limit") == limit
    assert "sys." not in message and "utf-8-sig" not in message


def test_an_integer_of_the_limits_length_is_read() -> None:
    assert decode_json(b"9" * 4300) == int("9" * 4300)
    assert decode_json(b"-12") == -12
