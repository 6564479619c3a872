"""vCards as WhatsApp and the cloud API exchange them: version 3.0 with the `waid` phone parameter.

The text follows the vCard format's rules (RFC 6350, the same in 3.0 for these): lines end in CRLF, a
line longer than 75 octets is folded (CRLF and one space, never inside a UTF-8 character), and the
characters `\\`, `,`, `;` and newlines in a value are escaped. `FN` is always present.
"""

from __future__ import annotations

import re

FOLD_OCTETS = 75
_CRLF = "\r\n"


def vcard_escape(value: str) -> str:
    """A text value with `\\`, `,`, `;` and newlines escaped."""
    value = value.replace("\\", "\\\\").replace(",", "\\,").replace(";", "\\;")
    return value.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def _fold(line: str) -> str:
    """The line cut into pieces of at most 75 octets, each after the first starting with a space."""
    pieces: list[str] = []
    current, size, limit = "", 0, FOLD_OCTETS
    for char in line:
        octets = len(char.encode())
        if size + octets > limit:
            pieces.append(current)
            # A continuation line's leading space counts towards its 75 octets.
            current, size, limit = char, octets, FOLD_OCTETS - 1
        else:
            current += char
            size += octets
    pieces.append(current)
    return (_CRLF + " ").join(pieces)


def vcard(display_name: str, phone_number: str = "", organization: str = "") -> str:
    """One contact's vCard; `phone_number` is read for its digits (the number with country code)."""
    number = "".join(ch for ch in phone_number if ch.isdigit())
    lines = ["BEGIN:VCARD", "VERSION:3.0", f"FN:{vcard_escape(display_name)}"]
    if organization:
        lines.append(f"ORG:{vcard_escape(organization)};")
    if number:
        lines.append(f"TEL;type=CELL;type=VOICE;waid={number}:+{number}")
    lines.append("END:VCARD")
    return "".join(_fold(line) + _CRLF for line in lines)


_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)


def vcard_name(text: str) -> str:
    """The formatted name (`FN`) of a vCard, unfolded and unescaped; "" when it has none."""
    unfolded = re.sub(r"\r?\n[ \t]", "", text)
    for line in unfolded.splitlines():
        if line.upper().startswith(("FN:", "FN;")):
            value = line.split(":", 1)[1].strip()
            return _UNESCAPE.sub(lambda m: "\n" if m.group(1) in "nN" else m.group(1), value)
    return ""
