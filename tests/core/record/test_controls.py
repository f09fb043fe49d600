"""Control characters: refused by the rule that names them, shown as escapes wherever shown."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.record.controls import control_problem, visible_controls

OSC_52 = "\x1b]52;c;cm0gLXJmIH4K\x07"
"""A terminal escape that writes the clipboard ("rm -rf ~") in kitty, WezTerm, iTerm2, foot."""
RLO = "\u202e"
CONTROLS = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]]
BIDI = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]]


@pytest.mark.parametrize("char", CONTROLS + BIDI)
def test_every_control_and_bidi_character_is_refused_and_named(char: str) -> None:
    text = f"ok {char} ok"
    for multiline in (True, False):
        assert control_problem(text, multiline=multiline) == (
            "must not contain control characters"
            + (" (line breaks and tabs are allowed)" if multiline else "")
            + f": U+{ord(char):04X} at character 4"
        )
    assert char not in visible_controls(text)


def test_line_breaks_and_tabs_are_text_where_a_field_holds_lines() -> None:
    assert control_problem("one\n\ttwo", multiline=True) is None
    assert control_problem("one\ntwo", multiline=False) is not None
    assert control_problem("one\ttwo", multiline=False) is not None
    assert visible_controls("one\n\ttwo") == "one\n\ttwo"
    assert control_problem("a\r\nb", multiline=True) is not None  # \r overprints a line


def test_an_escape_shows_as_its_code_and_the_text_around_it_is_kept() -> None:
    shown = visible_controls(f"{OSC_52} {RLO}evil\u202c \x1b[31mred é 決")
    assert shown == "\\u001b]52;c;cm0gLXJmIH4K\\u0007 \\u202eevil\\u202c \\u001b[31mred é 決"


@given(st.text())
def test_what_is_shown_obeys_nothing_and_json_reads_it_back(text: str) -> None:
    shown = visible_controls(text)
    assert control_problem(shown, multiline=True) is None
    assert (shown == text) is (control_problem(text, multiline=True) is None)
    inside = json.dumps(text, ensure_ascii=False)
    assert json.loads(visible_controls(inside)) == text  # a JSON string stays the same string
