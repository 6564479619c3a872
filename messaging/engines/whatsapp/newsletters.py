"""The WhatsApp driver's channels (newsletters), through neonize:

| operation | library call |
|---|---|
| list | `get_subscribed_newletters()` (neonize's spelling) → `NewsletterMetadata` each |
| create | `create_newsletter(name, description, picture=b"")` |
| follow | `follow_newsletter(jid)`; by invite: `get_newsletter_info_with_invite(code)` first |
| unfollow | `unfollow_newsletter(jid)` |

The session's role comes from `ViewerMeta.Role` (whatsmeow's `OWNER`/`ADMIN` own it, others follow).
Text posts to an owned channel are ordinary sends to its JID (whatsmeow sends them unencrypted); media
posts need an upload handle that neonize 0.5.2's `send_message` cannot pass, so the driver refuses them
(messaging.engines.whatsapp.outbound).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neonize.proto import Neonize_pb2 as lib

from messaging.engines.base import NewsletterInfo
from messaging.engines.whatsapp import inbound
from messaging.engines.whatsapp.errors import library_errors

INVITE_PREFIX = "https://whatsapp.com/channel/"
_OWNING = {"OWNER", "ADMIN"}


def newsletter_jid(jid: str) -> lib.JID:
    user, _, server = jid.partition("@")
    return lib.JID(User=user, Server=server)


def info_of(meta: Any) -> NewsletterInfo:
    role = lib.NewsletterRole.Name(meta.ViewerMeta.Role) if meta.ViewerMeta.Role else "SUBSCRIBER"
    thread = meta.ThreadMeta
    return NewsletterInfo(
        jid=inbound.jid_str(meta.ID),
        name=thread.Name.Text,
        description=thread.Description.Text,
        invite=thread.InviteCode,
        role="owner" if role in _OWNING else "follower",
    )


def invite_code(invite: str) -> str:
    """An invite link or its code → the code."""
    return invite.strip().removeprefix(INVITE_PREFIX).rstrip("/").rsplit("/", 1)[-1]


class WhatsAppNewsletters:
    _client: Callable[[str], Any]

    def newsletter_list(self, session_id: str) -> list[NewsletterInfo]:
        client = self._client(session_id)
        with library_errors(kind="channel"):
            return [info_of(meta) for meta in client.get_subscribed_newletters()]

    def newsletter_create(self, session_id: str, name: str, description: str) -> NewsletterInfo:
        client = self._client(session_id)
        with library_errors(kind="channel"):
            return info_of(client.create_newsletter(name, description, b""))

    def newsletter_follow(self, session_id: str, jid: str = "", invite: str = "") -> NewsletterInfo:
        client = self._client(session_id)
        with library_errors(kind="channel"):
            if invite:
                target = client.get_newsletter_info_with_invite(invite_code(invite)).ID
            else:
                target = newsletter_jid(jid)
            client.follow_newsletter(target)
            return info_of(client.get_newsletter_info(target))

    def newsletter_unfollow(self, session_id: str, jid: str) -> None:
        client = self._client(session_id)
        with library_errors(kind="channel"):
            client.unfollow_newsletter(newsletter_jid(jid))
