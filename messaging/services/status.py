"""Status (stories): the session's own, posted and deleted through its engine, and its contacts' ones,
recorded from `status` events (issue 41, item 9).

A post counts against the plan's daily quota like every send, and takes the send's steps: the quota is
taken and committed (given back if the engine fails), the engine is asked outside any transaction, then
one short transaction records the status. Media is loaded (and bounded) exactly as for
`POST /api/messages/media` (messaging.services.media). The lists show the last 24 hours.

Official channels have no status operation in the Graph API: 400 OPERATION_NOT_SUPPORTED naming the
channel, before anything is counted.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.errors import NotFound
from messaging.engines.base import Engine, MediaPayload, StatusPosted
from messaging.errors import OperationNotSupported
from messaging.models import Session
from messaging.services.engine import engine_errors, engine_for, require_connected
from messaging.services.media import media_bytes_load, media_mime
from messaging.services.quota import quota_held
from messaging.status_models import STATUS_LIFETIME_HOURS, StatusPost


class StatusNotFound(NotFound):
    code = "STATUS_NOT_FOUND"
    default_message = "No such status of the session."


def _engine(session: Session) -> Engine:
    require_connected(session)
    engine = engine_for(session)
    if session.official:
        name = engine.channel_name(session.provider)
        raise OperationNotSupported(
            f"{name} sessions cannot post or delete statuses: the Graph API has no stories."
        )
    return engine


def _posted(session: Session, post: StatusPost, call: Callable[[Engine, str], StatusPosted]) -> StatusPost:
    """Take the quota, ask the engine (`call(engine, session id)` → StatusPosted), record `post`."""
    engine = _engine(session)
    with quota_held(account=session.account), engine_errors():
        answer = call(engine, str(session.pk))
    post.session = session
    post.status_id = answer.status_id
    post.sender = session.jid
    post.push_name = session.profile_name
    post.from_me = True
    post.posted_at = answer.timestamp
    if answer.media_url:
        post.media = {**post.media, "mediaUrl": answer.media_url}
    with transaction.atomic():
        post.save()
    return post


def status_post_text(*, session: Session, text: str, background_color: str, font: int) -> StatusPost:
    post = StatusPost(
        type=StatusPost.Type.TEXT, text=text, background_color=background_color.upper(), font=font
    )
    return _posted(
        session, post, lambda engine, sid: engine.status_text(sid, text, background_color.upper(), font)
    )


def status_post_media(
    *, session: Session, type_: str, url: str = "", data: str = "", caption: str = ""
) -> StatusPost:
    """An image or video status, from `url` (fetched through the SSRF-safe transport) or base64."""
    _engine(session)  # an official session is refused before its media is fetched
    content, declared = media_bytes_load(url=url, data=data)
    mime = media_mime(type_, "", declared, "")
    payload = MediaPayload(type=type_, data=content, mime_type=mime, caption=caption)
    post = StatusPost(type=type_, text=caption, media={"mimeType": mime, "size": len(content)})
    return _posted(session, post, lambda engine, sid: engine.status_media(sid, payload))


def status_delete(*, session: Session, status_id: str) -> StatusPost:
    """Delete one of the session's own statuses (404 STATUS_NOT_FOUND for any other id)."""
    post = own_statuses(session).filter(status_id=status_id).first()
    if post is None:
        raise StatusNotFound(
            f"The session has no status {status_id!r} of the last {STATUS_LIFETIME_HOURS} hours."
        )
    engine = _engine(session)
    with engine_errors():
        engine.status_delete(str(session.pk), status_id)
    post.deleted_at = timezone.now()
    with transaction.atomic():
        post.save(update_fields=["deleted_at"])
    return post


def _recent(session: Session) -> QuerySet[StatusPost]:
    since = timezone.now() - timedelta(hours=STATUS_LIFETIME_HOURS)
    return StatusPost.objects.filter(session=session, posted_at__gte=since, deleted_at__isnull=True)


def own_statuses(session: Session) -> QuerySet[StatusPost]:
    """The session's statuses of the last 24 hours, newest first."""
    return _recent(session).filter(from_me=True).order_by("-posted_at", "-id")


def contact_statuses(session: Session) -> QuerySet[StatusPost]:
    """Contacts' statuses the session saw in the last 24 hours, newest first."""
    return _recent(session).filter(from_me=False).order_by("-posted_at", "-id")
