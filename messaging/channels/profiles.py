"""Names of Messenger and Instagram customers (a PSID/IGSID says nothing about who writes).

Asked once per contact and day (`GET /{user-id}?fields=name,profile_pic`), cached. A refusal (the user's
privacy settings, a missing permission) is logged and the message goes on without a name: a refused
profile never holds up an event. Looked up before the items are recorded (`items_named`, by the inbound
queue's worker outside any transaction), so no row is locked while the Graph API answers.
"""

from __future__ import annotations

import dataclasses
import logging

from django.core.cache import cache

from messaging.channels import PAGE_PROVIDERS, graph
from messaging.channels.inbound import Inbound
from messaging.channels.models import ChannelAccount
from messaging.engines.events import MessageEvent
from messaging.models import Session

logger = logging.getLogger(__name__)

CACHE_SECONDS = 24 * 60 * 60


def contact_name(account: ChannelAccount, user_id: str) -> str:
    key = f"ponte:channels:profile:{account.session_id}:{user_id}"
    cached = cache.get(key)
    if cached is not None:
        return str(cached)
    try:
        profile = graph.call(
            "GET", user_id, account.credential("pageAccessToken"), params={"fields": "name,profile_pic"}
        )
    except graph.GraphError as exc:
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


def items_named(session: Session, items: list[Inbound]) -> list[Inbound]:
    """Messenger/Instagram customers' messages with the customer's name (when the profile is given);
    other items as they are. Makes the Graph API calls: call it outside any transaction."""
    if session.provider not in PAGE_PROVIDERS:
        return items
    account = ChannelAccount.objects.filter(session=session).first()
    if account is None:
        return items
    return [_named(account, item) for item in items]


def _named(account: ChannelAccount, item: Inbound) -> Inbound:
    event = item.event
    if not isinstance(event, MessageEvent) or event.from_me or event.push_name:
        return item
    name = contact_name(account, event.sender.split("@", 1)[0])
    return dataclasses.replace(item, event=dataclasses.replace(event, push_name=name)) if name else item
