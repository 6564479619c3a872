"""Names of Messenger and Instagram customers (a PSID/IGSID says nothing about who writes).

Asked once per contact and day (`GET /{user-id}?fields=name,profile_pic`), cached. A refusal (the user's
privacy settings, a missing permission) is logged and the message goes on without a name: a refused
profile never holds up an event.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

from messaging.channels import graph
from messaging.channels.models import ChannelAccount

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
