"""Reads of the session's chats and contacts (kept by messaging.services.directory), and a contact's
profile picture asked of the engine."""

from __future__ import annotations

import logging

from django.db.models import F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, NullIf

from messaging.addressing import is_lid
from messaging.engines.base import EngineNotAllowed, EngineNotFound
from messaging.models import Chat, Contact, Group, LidMapping, Session
from messaging.services.engine import engine_errors, engine_for, require_connected

logger = logging.getLogger(__name__)


def chat_list(*, session: Session, chat: str = "") -> QuerySet[Chat]:
    """Newest conversation first (messages of the same second: the chat touched last first); chats
    without messages yet (a group just joined) last. Each person's chat shows both its ids where the
    session knows them (`lid`, `pn`: messaging.services.lids); `chat` keeps the one chat found by either
    id."""
    subject = Group.objects.filter(session=OuterRef("session"), jid=OuterRef("jid")).values("subject")[:1]
    # A group's chat may be recorded before its subject is known (a message first): the group's row names it.
    display = Coalesce(NullIf(F("name"), Value("")), Subquery(subject), Value(""))
    mapping = LidMapping.objects.filter(session=OuterRef("session"))
    chats = session.chats.annotate(
        display_name=display,
        lid_of_pn=Subquery(mapping.filter(pn=OuterRef("jid")).values("lid")[:1]),
        pn_of_lid=Subquery(mapping.filter(lid=OuterRef("jid")).values("pn")[:1]),
    )
    if chat:
        known, other = ("lid", "pn") if is_lid(chat) else ("pn", "lid")
        aliases = LidMapping.objects.filter(session=session, **{known: chat}).values(other)
        chats = chats.filter(Q(jid=chat) | Q(jid__in=aliases))
    return chats.order_by(F("last_message_at").desc(nulls_last=True), "-updated_at", "-id")


def contact_list(*, session: Session) -> QuerySet[Contact]:
    return session.contacts.order_by("jid")


def contact_picture(*, session: Session, jid: str) -> str | None:
    """The URL of `jid`'s picture, None when hidden or absent. The engine's own refusals keep their
    answers (not connected 409, not supported 400); a platform that answers "no picture" in any other
    way (not found, not authorised) gives None, never an error."""
    require_connected(session)
    with engine_errors():
        try:
            return engine_for(session).contact_picture(str(session.pk), jid)
        except (EngineNotFound, EngineNotAllowed) as exc:
            logger.info("No picture of %s for session %s: %s", jid, session.pk, exc)
            return None
