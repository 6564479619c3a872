"""Media bytes at rest: stored through Django's storage API, served by signed, expiring Ponte links.

Engines (the sandbox playing WhatsApp, the WhatsApp driver after downloading and decrypting) call
`media_save` with the exact bytes of a message's media; the event they report carries what it returns:
`mediaUrl` (a link to `GET /api/media/<token>`), `mimeType`, `sha256`, `fileName`, `size`. The link is
the only key: its token is signed with SECRET_KEY (django.core.signing) and names the stored file, its
type, its name and when it stops working (`MESSAGING_MEDIA_URL_TTL_SECONDS` after it was made), so a
webhook consumer fetches the bytes without an API key and nobody can forge or extend a link.

The storage is the `messaging_media` alias of STORAGES: files under the var dir by default, an
S3-compatible bucket when `MESSAGING_MEDIA_STORAGE_BACKEND` names django-storages' S3 backend.
Files are content-addressed per session (`<session>/<sha256>`), so the same bytes
received twice are stored once, and deleting a session removes its folder.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages

_SALT = "ponte.messaging.media"


@dataclass(frozen=True)
class StoredMedia:
    url: str
    sha256: str
    size: int
    mime_type: str
    file_name: str


@dataclass(frozen=True)
class MediaLink:
    """What a valid token names."""

    path: str
    mime_type: str
    file_name: str


class MediaLinkInvalid(Exception):
    """The token was tampered with or is not a media token."""


class MediaLinkExpired(Exception):
    """The token is genuine but its lifetime is over."""


def media_storage() -> Storage:
    return storages["messaging_media"]


def media_link(path: str, mime_type: str, file_name: str = "", *, ttl: int | None = None) -> str:
    """An absolute, signed link to the stored file `path`, valid for `ttl` seconds (default: setting)."""
    lifetime = settings.MESSAGING_MEDIA_URL_TTL_SECONDS if ttl is None else ttl
    token = signing.dumps(
        {"p": path, "m": mime_type, "f": file_name, "e": int(time.time()) + lifetime},
        salt=_SALT,
        compress=True,
    )
    return f"{settings.PONTE_BASE_URL}/api/media/{token}"


def media_link_read(token: str) -> MediaLink:
    """The file a token names; raises MediaLinkInvalid or MediaLinkExpired."""
    try:
        data = signing.loads(token, salt=_SALT)
    except signing.BadSignature:
        raise MediaLinkInvalid() from None
    if not isinstance(data, dict) or not isinstance(data.get("p"), str) or not isinstance(data.get("e"), int):
        raise MediaLinkInvalid()
    if data["e"] <= time.time():
        raise MediaLinkExpired()
    return MediaLink(path=data["p"], mime_type=str(data.get("m") or ""), file_name=str(data.get("f") or ""))


def media_save(session_id: str, content: bytes, mime_type: str, file_name: str = "") -> StoredMedia:
    """Store the exact bytes of one media item of a session and return its signed link and facts."""
    digest = hashlib.sha256(content).hexdigest()
    path = f"{session_id}/{digest}"
    storage = media_storage()
    if not storage.exists(path):
        # The name is the digest: a file already there holds the same bytes.
        storage.save(path, ContentFile(content))
    mime = mime_type or "application/octet-stream"
    return StoredMedia(
        url=media_link(path, mime, file_name),
        sha256=digest,
        size=len(content),
        mime_type=mime,
        file_name=file_name,
    )


def media_forget(session_id: str) -> None:
    """Delete every stored media file of a session (the session is deleted)."""
    storage = media_storage()
    try:
        _dirs, files = storage.listdir(str(session_id))
    except (FileNotFoundError, NotImplementedError):
        return
    for name in files:
        storage.delete(f"{session_id}/{name}")
