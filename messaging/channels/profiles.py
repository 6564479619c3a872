"""Names of Messenger and Instagram customers (a PSID/IGSID says nothing about who writes).

Asked once per contact and day (`GET /{user-id}?fields=name,profile_pic`), cached. A refusal (the user's
privacy settings, a missing permission) is logged and the message goes on without a name: a refused
profile never holds up an event. The recording turn puts a cached name on the message (`items_named`,
no call); a customer not known yet gets a `profile` call (messaging.channels.calls), a job made after the
turn commits and retried while the Graph API is away: its name then fills the customer's messages, contact
and chat, and is on every later message's event. So a slow Graph API delays no item of the session
(issue 40 item 4); the first message of a new customer is reported without a name.
"""

from __future__ import annotations

import dataclasses
import logging

from django.core.cache import cache

from messaging.channels import PAGE_PROVIDERS, graph
from messaging.channels.inbound import Inbound
from messaging.channels.models import ChannelAccount
from messaging.channels.outbound import translate
from messaging.engines.events import MessageEvent
from messaging.models import Contact, Session
from messaging.services.directory import directory_named

logger = logging.getLogger(__name__)

CACHE_SECONDS = 24 * 60 * 60


def _key(session_id: object, user_id: str) -> str:
    return f"ponte:channels:profile:{session_id}:{user_id}"


def contact_name(account: ChannelAccount, user_id: str) -> str:
    """The customer's name, asked of the Graph API unless cached (a refusal caches "" as well; the Graph
    API away or throttling raises the engine contract's error, for the caller to retry)."""
    key = _key(account.session_id, user_id)
    cached = cache.get(key)
    if cached is not None:
        return str(cached)
    try:
        profile = graph.call(
            "GET", user_id, account.credential("pageAccessToken"), params={"fields": "name,profile_pic"}
        )
    except graph.GraphError as exc:
        if exc.unreachable or exc.status == 429 or exc.code in graph.RATE_LIMIT_CODES:
            raise translate(exc, account) from None  # away or throttling: the `profile` call retries
        logger.warning(
            "Profile (name, picture) of contact %s refused for session %s: %s",
            user_id,
            account.session_id,
            exc,
        )
        cache.set(key, "", CACHE_SECONDS)
        return ""
    name = str(profile.get("name") or "")[:100]
    cache.set(key, name, CACHE_SECONDS)
    return name


def _unnamed(event: object) -> bool:
    return (
        isinstance(event, MessageEvent) and not event.from_me and not event.push_name and bool(event.sender)
    )


def items_named(session: Session, items: list[Inbound]) -> list[Inbound]:
    """Messenger/Instagram customers' messages with the customer's name when it is known (cached, or
    stored on the contact by an earlier lookup); other items as they are. No Graph API call (the others
    are asked for after the turn: messaging.channels.behaviour.profile_ask)."""
    if session.provider not in PAGE_PROVIDERS:
        return items
    senders = {item.event.sender for item in items if _unnamed(item.event)}
    if not senders:
        return items
    cached = cache.get_many([_key(session.pk, sender.split("@", 1)[0]) for sender in senders])
    known = {key.rsplit(":", 1)[1]: str(name) for key, name in cached.items() if name}
    missing = [sender for sender in senders if sender.split("@", 1)[0] not in known]
    if missing:  # the cache lost them (evicted, flushed): the names a `profile` call stored last
        stored = Contact.objects.filter(session=session, jid__in=missing).exclude(push_name="")
        known.update((jid.split("@", 1)[0], name) for jid, name in stored.values_list("jid", "push_name"))
    return [_named(item, known) for item in items]


def _user(event: MessageEvent) -> str:
    return event.sender.split("@", 1)[0]


def _named(item: Inbound, known: dict[str, str]) -> Inbound:
    event = item.event
    if not _unnamed(event):
        return item
    name = known.get(_user(event), "")
    return dataclasses.replace(item, event=dataclasses.replace(event, push_name=name)) if name else item


def profile_unknown(session: Session, event: object) -> bool:
    """Whether `event` is a customer's message whose name is not cached yet (its `profile` call is due)."""
    if session.provider not in PAGE_PROVIDERS or not _unnamed(event):
        return False
    return cache.get(_key(session.pk, _user(event))) is None  # type: ignore[arg-type]


def profile_fetch(session_id: object, chat: str) -> None:
    """The `profile` call of a customer's chat (a Messenger or Instagram chat is the customer's own: its
    JID is theirs): the name from the Graph API (cached), onto their messages, contact and chat that have
    none yet. In no transaction while the Graph API answers; the writes after it, in one of their own."""
    account = ChannelAccount.objects.select_related("session").filter(session_id=session_id).first()
    if account is None or not account.credentials:
        return
    name = contact_name(account, chat.split("@", 1)[0])
    if name:
        directory_named(account.session, jid=chat, name=name)
