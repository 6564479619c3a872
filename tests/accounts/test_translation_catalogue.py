"""The committed pt-BR catalogue: the compiled .mo (committed, so a fresh clone needs no gettext) says
what the .po says, every message is translated, and the fixed refusals the account area translates
are written as the services write them."""

from __future__ import annotations

import ast
import gettext
import re
import shutil
import struct
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from django.utils import translation

from net.transport import CONNECT_REFUSED_MESSAGE, REFUSED_MESSAGE
from portal.refusals import FIXED_MESSAGES

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "pt_BR" / "LC_MESSAGES"


def read_po(path: Path) -> list[dict]:
    """The .po's entries (msgid, msgid_plural, msgstr or msgstr[n], flags), obsolete ones left out."""
    entries: list[dict] = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        entry: dict = {"flags": ""}
        field = None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] += line
            elif line.startswith("#"):
                continue
            elif match := re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (\".*\")$", line):
                field = match.group(1)
                entry[field] = ast.literal_eval(match.group(2))
            elif line.startswith('"') and field:
                entry[field] += ast.literal_eval(line)
        if "msgid" in entry:
            entries.append(entry)
    return entries


ENTRIES = [entry for entry in read_po(CATALOGUE / "django.po") if entry["msgid"]]


def test_the_catalogue_has_the_account_areas_messages() -> None:
    assert len(ENTRIES) > 150
    assert {
        "Sign in",
        "Reset your Ponte password",
        "Active until %(day)s: keys of this account list every bond.",
    } <= {entry["msgid"] for entry in ENTRIES}


def test_every_message_is_translated_and_none_is_fuzzy() -> None:
    for entry in ENTRIES:
        assert "fuzzy" not in entry["flags"], entry["msgid"]
        strings = [value for key, value in entry.items() if key.startswith("msgstr")]
        assert strings and all(strings), f"untranslated: {entry['msgid']!r}"


def test_the_committed_mo_gives_every_translation_of_the_po() -> None:
    """A .po edited without compilemessages (`make messages`) fails here."""
    data = (CATALOGUE / "django.mo").read_bytes()
    with (CATALOGUE / "django.mo").open("rb") as compiled:
        mo = gettext.GNUTranslations(compiled)
    for entry in ENTRIES:
        if "msgid_plural" in entry:
            assert mo.ngettext(entry["msgid"], entry["msgid_plural"], 1) == entry["msgstr[0]"]
            assert mo.ngettext(entry["msgid"], entry["msgid_plural"], 2) == entry["msgstr[1]"]
        else:
            assert mo.gettext(entry["msgid"]) == entry["msgstr"], entry["msgid"]
    # Nothing in the .mo that the .po no longer has: its string count (a 32-bit word after the magic
    # number and revision, in the magic number's byte order) is the .po's entries plus the header.
    order = "<" if data[:4] == b"\xde\x12\x04\x95" else ">"
    (count,) = struct.unpack(order + "I", data[8:12])
    assert count == 1 + len(ENTRIES)


@pytest.mark.parametrize("language", ["pt-br", "pt-BR"])
def test_django_serves_the_catalogue_for_pt_br(language) -> None:
    singular = {entry["msgid"]: entry["msgstr"] for entry in ENTRIES if "msgstr" in entry}
    with translation.override(language):
        for msgid, msgstr in singular.items():
            assert translation.gettext(msgid) == msgstr


def test_the_url_refusals_are_catalogued_as_net_transport_writes_them() -> None:
    assert {REFUSED_MESSAGE, CONNECT_REFUSED_MESSAGE} <= set(FIXED_MESSAGES)
    with translation.override("pt-br"):
        assert all(translation.gettext(message) != message for message in FIXED_MESSAGES)


# What makemessages reads: the project's own code and templates (as the Makefile's `messages` target).
SOURCES = (
    "accounts",
    "bonds",
    "config",
    "core",
    "integrations",
    "messaging",
    "net",
    "portal",
    "templates",
    "webhooks",
)


@pytest.mark.skipif(
    not shutil.which("xgettext"), reason="GNU gettext is not installed (apt-get install gettext)"
)
def test_the_po_has_every_text_the_sources_mark_for_translation(tmp_path, monkeypatch) -> None:
    """makemessages over a copy of the sources adds nothing the committed .po lacks: a text marked for
    translation and not yet in the catalogue fails here until `make messages` and a translation. (A
    copy: makemessages writes into the catalogue beside the files it reads.)"""
    for name in SOURCES:
        shutil.copytree(
            Path(settings.BASE_DIR) / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    copy = tmp_path / "locale" / "pt_BR" / "LC_MESSAGES"
    copy.mkdir(parents=True)
    shutil.copy(CATALOGUE / "django.po", copy / "django.po")
    monkeypatch.chdir(tmp_path)
    with override_settings(LOCALE_PATHS=[tmp_path / "locale"]):
        call_command("makemessages", locale=["pt_BR"], no_location=True, verbosity=0)
    found = {entry["msgid"] for entry in read_po(copy / "django.po") if entry["msgid"]}
    assert found - {entry["msgid"] for entry in ENTRIES} == set(), "run `make messages` and translate"
