"""The one vCard builder (messaging.vcard) writes what the vCard format requires (RFC 6350's rules for
lines, folding and escaping; version 3.0, as WhatsApp exchanges cards)."""

from __future__ import annotations

import re

from messaging.values import ContactCard
from messaging.vcard import vcard, vcard_name

# RFC 6350 §3.3: contentline = [group "."] name *(";" param) ":" value CRLF
_CONTENT_LINE = re.compile(r"^[A-Za-z0-9-]+(;[A-Za-z0-9-]+=[^;:]*)*:.*$")


def _unfold(text: str) -> list[str]:
    assert text.endswith("\r\n")
    return re.sub(r"\r\n[ \t]", "", text).split("\r\n")[:-1]


def test_a_card_has_begin_version_fn_and_end_with_crlf_line_ends_only():
    text = vcard("Ana Souza", "5511977770000", "Loja")
    assert text.replace("\r\n", "").count("\n") == 0 and text.count("\r") == text.count("\r\n")
    lines = _unfold(text)
    assert lines[0] == "BEGIN:VCARD" and lines[1] == "VERSION:3.0" and lines[-1] == "END:VCARD"
    assert "FN:Ana Souza" in lines
    assert "ORG:Loja;" in lines
    assert "TEL;type=CELL;type=VOICE;waid=5511977770000:+5511977770000" in lines
    assert all(_CONTENT_LINE.match(line) for line in lines)


def test_commas_semicolons_backslashes_and_newlines_in_values_are_escaped():
    text = vcard("Silva, Ana; \\ filial\nCentro", "5511977770000", "A;B,C")
    lines = _unfold(text)
    assert "FN:Silva\\, Ana\\; \\\\ filial\\nCentro" in lines
    assert "ORG:A\\;B\\,C;" in lines
    assert vcard_name(text) == "Silva, Ana; \\ filial\nCentro"


def test_lines_longer_than_75_octets_are_folded_without_splitting_a_character():
    name = "José da Conceição " * 12
    text = vcard(name, "5511977770000")
    physical = text.split("\r\n")[:-1]
    assert all(len(line.encode()) <= 75 for line in physical)
    assert any(line.startswith(" ") for line in physical)  # continuation lines start with one space
    for line in physical:
        line.encode().decode()  # each physical line is whole UTF-8: no character cut in two
    assert vcard_name(text) == name.strip()
    assert f"FN:{name}".rstrip() in [line.rstrip() for line in _unfold(text)]


def test_a_card_without_a_number_has_no_tel_line_and_the_number_is_read_for_its_digits():
    assert "TEL" not in vcard("Ana")
    assert "waid=5511977770000:+5511977770000" in vcard("Ana", "+55 11 97777-0000")


def test_the_engines_contact_card_uses_the_same_builder():
    card = ContactCard(display_name="Ana", phone_number="5511977770000", organization="Loja")
    assert card.vcard() == vcard("Ana", "5511977770000", "Loja")
