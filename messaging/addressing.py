"""Recipient addressing: a plain number with country code, or a JID.

An individual JID is ``<digits>@<MESSAGING_USER_SUFFIX>`` (a phone number's) or ``<digits>@lid`` (the
linked id WhatsApp shows instead of the number of many users: replies go to it as to any JID), a group
JID ``<digits>[-<digits>]@<MESSAGING_GROUP_SUFFIX>`` (suffixes from settings).
Everything given to an engine goes through here first.
"""

from __future__ import annotations

import re

from django.conf import settings

from messaging.errors import InvalidPhoneNumber

# E.164 allows at most 15 digits; 8 is the shortest country code + subscriber number in use.
_NUMBER = re.compile(r"^[0-9]{8,15}$")
_GROUP_ID = re.compile(r"^[0-9]{6,30}(-[0-9]{6,20})?$")
# A channel (newsletter): `<digits>@newsletter`; a chat that takes messages where groups do.
_NEWSLETTER_ID = re.compile(r"^[0-9]{6,30}$")
NEWSLETTER_SUFFIX = "newsletter"


def is_newsletter(jid: str) -> bool:
    return jid.endswith("@" + NEWSLETTER_SUFFIX)


# A linked id is a number of its own, not a phone number: WhatsApp's are 13 to 15 digits today.
_LID = re.compile(r"^[0-9]{6,25}$")
#: The server of WhatsApp's linked ids.
LID_SERVER = "lid"


def user_suffix() -> str:
    return settings.MESSAGING_USER_SUFFIX


def group_suffix() -> str:
    return settings.MESSAGING_GROUP_SUFFIX


def is_group(jid: str) -> bool:
    return jid.endswith("@" + group_suffix())


def is_lid(jid: str) -> bool:
    return jid.endswith("@" + LID_SERVER)


def normalize_number(value: str, *, field: str = "phone number") -> str:
    """Digits with country code, no '+'. Raises InvalidPhoneNumber."""
    number = (value or "").strip()
    if not _NUMBER.match(number):
        raise InvalidPhoneNumber(
            f"Invalid {field} {value!r}: use 8 to 15 digits with the country code, without '+' or spaces."
        )
    return number


def normalize_jid(value: str, *, allow_group: bool = True, allow_user: bool = True, field: str = "to") -> str:
    """A number or JID → a full JID. Raises InvalidPhoneNumber (400) for anything else."""
    raw = (value or "").strip()
    if "@" not in raw:
        if not allow_user:
            raise InvalidPhoneNumber(f"{field} must be a group JID (<digits>@{group_suffix()}).")
        return f"{normalize_number(raw, field=field)}@{user_suffix()}"
    local, _, domain = raw.partition("@")
    if domain == user_suffix() and allow_user and _NUMBER.match(local):
        return raw
    if domain == LID_SERVER and allow_user and _LID.match(local):
        return raw
    if domain == group_suffix() and allow_group and _GROUP_ID.match(local):
        return raw
    if domain == NEWSLETTER_SUFFIX and allow_group and _NEWSLETTER_ID.match(local):
        return raw
    allowed = []
    if allow_user:
        allowed.append(f"a number with country code, <digits>@{user_suffix()}, <digits>@{LID_SERVER}")
    if allow_group:
        allowed.append(f"<digits>@{group_suffix()}")
    raise InvalidPhoneNumber(f"Invalid {field} {value!r}: expected {' or '.join(allowed)}.")


def normalize_group(value: str, *, field: str = "groupJid") -> str:
    return normalize_jid(value, allow_user=False, field=field)
