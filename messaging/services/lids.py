"""WhatsApp's linked ids (`…@lid`): the LID ↔ phone map of each session, and one chat per person.

WhatsApp shows many users by a linked id instead of their phone JID. Ponte keeps, per session, the pairs
it learns (messaging.models.LidMapping): from every `message` event that carries both ids (the sender as
WhatsApp gave it and its alternative, `senderPn` / `senderLid`), and from the engine's own store when
asked (`GET /api/contacts/lid`; on the WhatsApp driver, whatsmeow's LID store). With it:

* every `message` event leaves with `senderPn` and `senderLid` filled where Ponte knows them (null when
  unknown), whatever the engine gave;
* a person's chat is one row of `GET /api/chats` whichever id the messages came under: a message for the
  other id of a chat already listed goes to that chat's row (in the chat's one upsert statement,
  messaging.services.directory), and when a pair is learned the two rows already there become one;
* the history filtered by either id returns the messages of both (messaging.filters).

Messages keep the chat id WhatsApp used (a reply goes where the chat is), so nothing is rewritten.
"""

from __future__ import annotations

import dataclasses

from django.db.models import F, Q

from messaging.addressing import is_lid, user_suffix
from messaging.engines.events import MessageEvent
from messaging.models import Chat, LidMapping, Session


def is_pn(jid: str) -> bool:
    return jid.endswith("@" + user_suffix())


def lid_pair(session: Session, jid: str) -> LidMapping | None:
    """The session's pair that has `jid` as either id (one indexed read), None when none has."""
    if not (is_lid(jid) or is_pn(jid)):
        return None
    field = "lid" if is_lid(jid) else "pn"
    return LidMapping.objects.filter(session=session, **{field: jid}).first()


def chat_ids(session: Session, jid: str) -> list[str]:
    """`jid` and, when the session knows it, the other id of the same person."""
    pair = lid_pair(session, jid)
    if pair is None:
        return [jid]
    return [jid, pair.pn if jid == pair.lid else pair.lid]


def lid_learn(session: Session, *, lid: str, pn: str) -> bool:
    """Remember that `lid` and `pn` are one person's (a newer pair replaces what either id was paired
    with), and make their two chats one. Returns whether the pair is new."""
    if not (is_lid(lid) and is_pn(pn)):
        return False
    mappings = LidMapping.objects.filter(session=session)
    known = list(mappings.filter(Q(lid=lid) | Q(pn=pn)).values_list("lid", "pn"))
    if known == [(lid, pn)]:  # the common case, one read: the pair is known already
        return False
    if known:
        mappings.filter(Q(lid=lid) | Q(pn=pn)).delete()
    LidMapping.objects.create(session=session, lid=lid, pn=pn)
    _chats_merge(session, lid, pn)
    return True


def _chats_merge(session: Session, lid: str, pn: str) -> None:
    """Both ids have a chat row: the older row takes the other's unread messages and newest time and
    stays (clients keep the id they know); the other goes."""
    rows = list(Chat.objects.filter(session=session, jid__in=[lid, pn]).order_by("id"))
    if len(rows) < 2:
        return
    kept, gone = rows
    newest = max(filter(None, (kept.last_message_at, gone.last_message_at)), default=None)
    Chat.objects.filter(pk=kept.pk).update(
        unread_count=F("unread_count") + gone.unread_count,
        last_message_at=newest,
        name=kept.name or gone.name,
    )
    gone.delete()


def lid_enrich(session: Session, event: MessageEvent) -> MessageEvent:
    """The event with `senderPn` and `senderLid` as Ponte knows them, the pair learned on the way. It
    costs a read only where a linked id is involved: a pair given (learned, one read when known), or a
    `…@lid` sender alone (its number looked up); a phone sender alone is its own `senderPn`, and its
    `senderLid` stays what the engine said (null when it said nothing), so the common message costs
    nothing more."""
    sender = event.sender
    lid = event.sender_lid or (sender if is_lid(sender) else None)
    pn = event.sender_pn or (sender if is_pn(sender) else None)
    if event.from_me or not (lid or pn):
        return event
    if lid and pn:
        lid_learn(session, lid=lid, pn=pn)
    elif lid:
        pair = lid_pair(session, lid)
        pn = pair.pn if pair is not None else None
    if (lid, pn) == (event.sender_lid, event.sender_pn):
        return event
    return dataclasses.replace(event, sender_lid=lid, sender_pn=pn)
