"""Contact existence checks and the own profile (picture, status, name)."""

from __future__ import annotations

import base64
import binascii
import re

from django.conf import settings

from core.errors import ValidationFailed
from messaging.addressing import is_group
from messaging.engines.base import ContactStatus
from messaging.models import Session
from messaging.services.engine import engine_errors, engine_for, engine_unit, require_connected
from net.transport import TransportError, safe_get

_DATA_URI = re.compile(r"^data:(?P<type>[\w/+.-]+);base64,", re.IGNORECASE)
# Profile pictures are JPEG on WhatsApp; PNG is accepted and converted by the engines that need it.
_SIGNATURES = {b"\xff\xd8\xff": "image/jpeg", b"\x89PNG\r\n\x1a\n": "image/png"}


def _sniff(content: bytes) -> str | None:
    for signature, content_type in _SIGNATURES.items():
        if content.startswith(signature):
            return content_type
    return None


def picture_load(image: str) -> tuple[bytes, str]:
    """`image` is base64 (optionally a data URI) or an http(s) URL fetched through the SSRF-safe
    transport. Returns (bytes, content type); raises ValidationFailed for anything unusable."""
    max_bytes = settings.MESSAGING_PROFILE_PICTURE_MAX_BYTES
    value = image.strip()
    if value.lower().startswith(("http://", "https://")):
        try:
            content, declared = safe_get(
                value, max_bytes=max_bytes, timeout=settings.MESSAGING_PROFILE_PICTURE_FETCH_TIMEOUT
            )
        except TransportError as exc:  # a message fit for the caller; net.transport logs the details
            raise ValidationFailed(f"image: the URL could not be used: {exc}.") from None
        if declared and not declared.startswith("image/"):
            raise ValidationFailed(f"image: the URL answered {declared}, not an image.")
    else:
        value = _DATA_URI.sub("", value, count=1)
        try:
            content = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValidationFailed("image: not valid base64 (or an http(s) URL).") from None
        if len(content) > max_bytes:
            raise ValidationFailed(f"image: larger than {max_bytes} bytes.")
    content_type = _sniff(content)
    if content_type is None:
        raise ValidationFailed("image: must be a JPEG or PNG picture.")
    return content, content_type


def contacts_check(*, session: Session, numbers: list[str]) -> list[ContactStatus]:
    """Which numbers are on WhatsApp: a read, asked of an engine over a network in no transaction."""
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine), engine_errors():
        return engine.check_contacts(str(session.pk), numbers)


def profile_picture_set(*, session: Session, image: str, jid: str = "") -> None:
    """Set the own picture (`jid` empty or the own JID) or a group's (`jid` a group JID, admins).
    In no transaction: the picture's URL is fetched and the engine called first, then one row saved."""
    require_connected(session)
    if jid and jid != session.jid and not is_group(jid):
        raise ValidationFailed("jid: must be empty (own profile), the session's own JID or a group JID.")
    content, content_type = picture_load(image)
    target = "" if jid == session.jid else jid
    with engine_errors():
        engine_for(session).set_profile_picture(str(session.pk), content, content_type, target)
    if not target:
        session.profile_picture = content
        session.profile_picture_type = content_type
        session.save(update_fields=["profile_picture", "profile_picture_type", "updated_at"])


def profile_status_set(*, session: Session, status: str) -> None:
    """In no transaction: the engine first (an engine process answers over the bus), then one row."""
    require_connected(session)
    with engine_errors():
        engine_for(session).set_profile_status(str(session.pk), status)
    session.profile_status = status
    session.save(update_fields=["profile_status", "updated_at"])


def profile_name_set(*, session: Session, name: str) -> None:
    """In no transaction: the engine first (an engine process answers over the bus), then one row."""
    require_connected(session)
    with engine_errors():
        engine_for(session).set_profile_name(str(session.pk), name)
    session.profile_name = name
    session.save(update_fields=["profile_name", "updated_at"])
