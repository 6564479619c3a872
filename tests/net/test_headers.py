"""net.headers: a header name or value is checked to the very end of the string."""

from __future__ import annotations

import pytest

from net.headers import is_name, is_value, unsendable


@pytest.mark.parametrize("name", ["X-A\n", "X-A\r", "X A", "", "X-A\x00", "Ñame", 42, None])
def test_a_name_with_anything_but_token_characters_to_its_end_is_refused(name):
    assert not is_name(name)


@pytest.mark.parametrize(
    "text", ["abc\n", "abc\r", "a\r\nInjected: yes", "a\tb", "a\x00", "a\x7f", "café", 1]
)
def test_a_value_with_a_control_character_anywhere_is_refused(text):
    assert not is_value(text)


def test_printable_names_and_values_pass_and_unsendable_names_the_header_not_its_value():
    assert is_name("Authorization") and is_value("Bearer t0ken ~!") and is_value("")
    assert unsendable({"Authorization": "Bearer x", "X-Tenant": "acme"}) is None
    reason = unsendable({"X-Ok": "1", "X-Secret": "hunter2\n"})
    assert "X-Secret" in reason and "hunter2" not in reason
    assert "'X-A\\n'" in unsendable({"X-A\n": "v"})
