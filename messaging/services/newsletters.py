"""Channels (newsletters), issue 41 item 10: the channels a session owns or follows, creating, following
and unfollowing them, and the rule for posting: only to a channel the session owns.

The engine is asked outside any transaction; the `Newsletter` rows record its answers (the list is
refreshed from the engine on every `GET /api/channels`). A channel's posts are messages of its JID in
the history: the session's own sends, and what followed channels post (`message` events of that chat).
Official channels have no newsletters in the Graph API: 400 OPERATION_NOT_SUPPORTED naming the channel.
The module is named after WhatsApp's own word, since `channels` in Ponte are the official channels.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet

from core.errors import Forbidden, NotFound
from messaging.addressing import is_newsletter
from messaging.engines.base import Engine, EngineNotFound, NewsletterInfo
from messaging.errors import OperationNotSupported
from messaging.models import Message, Session
from messaging.services.engine import engine_errors, engine_for, require_connected
from messaging.status_models import Newsletter


class ChannelNotFound(NotFound):
    code = "CHANNEL_NOT_FOUND"
    default_message = "The session neither owns nor follows this channel."


class ChannelNotOwned(Forbidden):
    code = "CHANNEL_NOT_OWNED"
    default_message = "Only a channel's owner posts to it; the session only follows this one."


def _engine(session: Session) -> Engine:
    require_connected(session)
    engine = engine_for(session)
    if session.official:
        name = engine.channel_name(session.provider)
        raise OperationNotSupported(
            f"{name} sessions have no WhatsApp channels (newsletters) in the Graph API."
        )
    return engine


def _kept(session: Session, info: NewsletterInfo) -> Newsletter:
    row, _ = Newsletter.objects.update_or_create(
        session=session,
        jid=info.jid,
        defaults={
            "name": info.name[:200],
            "description": info.description,
            "invite": info.invite[:100],
            "role": info.role,
        },
    )
    return row


def newsletter_list(*, session: Session) -> list[Newsletter]:
    """The channels the session owns or follows, as the engine lists them now (rows kept in step)."""
    engine = _engine(session)
    with engine_errors():
        listed = engine.newsletter_list(str(session.pk))
    with transaction.atomic():
        Newsletter.objects.filter(session=session).exclude(jid__in=[i.jid for i in listed]).delete()
        rows = [_kept(session, info) for info in listed]
    return sorted(rows, key=lambda row: (row.role != Newsletter.Role.OWNER, row.name.lower(), row.jid))


def newsletter_create(*, session: Session, name: str, description: str = "") -> Newsletter:
    engine = _engine(session)
    with engine_errors():
        info = engine.newsletter_create(str(session.pk), name, description)
    with transaction.atomic():
        return _kept(session, info)


def invite_code(invite: str) -> str:
    """An invite link (`https://whatsapp.com/channel/<code>`) or its code → the code."""
    return invite.strip().rstrip("/").rsplit("/", 1)[-1]


def newsletter_follow(*, session: Session, jid: str = "", invite: str = "") -> Newsletter:
    """Follow by JID or invite code (or link); 404 CHANNEL_NOT_FOUND when WhatsApp has no such channel."""
    engine = _engine(session)
    with engine_errors():
        try:
            info = engine.newsletter_follow(str(session.pk), jid=jid, invite=invite_code(invite))
        except EngineNotFound as exc:
            raise ChannelNotFound(str(exc)) from exc
    with transaction.atomic():
        return _kept(session, info)


def newsletter_unfollow(*, session: Session, jid: str) -> None:
    engine = _engine(session)
    with engine_errors():
        try:
            engine.newsletter_unfollow(str(session.pk), jid)
        except EngineNotFound as exc:
            raise ChannelNotFound(str(exc)) from exc
    Newsletter.objects.filter(session=session, jid=jid).delete()


def newsletter_of(session: Session, jid: str) -> Newsletter:
    row = Newsletter.objects.filter(session=session, jid=jid).first()
    if row is None:
        raise ChannelNotFound(f"The session neither owns nor follows channel {jid}.")
    return row


def newsletter_send_check(session: Session, to: str) -> None:
    """Before any send: a channel takes posts from its owner only (403 CHANNEL_NOT_OWNED for one the
    session follows, 404 CHANNEL_NOT_FOUND for one it does not know). Other chats pass."""
    if is_newsletter(to) and newsletter_of(session, to).role != Newsletter.Role.OWNER:
        raise ChannelNotOwned(f"The session follows channel {to} but does not own it: only owners post.")


def newsletter_messages(*, session: Session, jid: str) -> QuerySet[Message]:
    """A channel's posts in the history, newest first (404 for a channel the session does not know)."""
    newsletter_of(session, jid)
    return Message.objects.filter(session=session, chat=jid).order_by("-timestamp", "-id")
