"""The session page's chat list (issue 41): the chats with the flags the phone shows (pinned,
archived, muted until, marked unread, labels), filtered by one of them. Read from Ponte's own store
(messaging.services.directory_reads), as `GET /api/chats` is; the actions themselves are the API's."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from messaging.models import ChatLabel, Session
from messaging.services.directory_reads import chat_list

#: How many chats the page shows (the newest first, pinned ones on top).
SHOWN = 50
#: The filters a person picks (the `chats` query parameter), with their names.
FILTERS = {
    "": _("All"),
    "pinned": _("Pinned"),
    "archived": _("Archived"),
    "muted": _("Muted"),
    "unread": _("Marked unread"),
}


@dataclass(frozen=True)
class ChatRow:
    jid: str
    name: str
    unread_count: int
    last_message_at: datetime | None
    pinned: bool
    archived: bool
    muted_until: datetime | None  # None: not muted now
    marked_unread: bool
    labels: list[str] = field(default_factory=list)


def chat_rows(session: Session, wanted: str = "") -> list[ChatRow]:
    """The page's chats; `wanted` one of FILTERS (anything else: all)."""
    now = timezone.now()
    chats = chat_list(session=session)
    chats = {
        "pinned": chats.filter(pinned=True),
        "archived": chats.filter(archived=True),
        "muted": chats.filter(muted_until__gt=now),
        "unread": chats.filter(Q(marked_unread=True) | Q(unread_count__gt=0)),
    }.get(wanted, chats)
    page = list(chats.order_by("-pinned", *chats.query.order_by)[:SHOWN])
    names: dict[str, list[str]] = {}
    tags = ChatLabel.objects.filter(label__session=session, chat__in=[c.jid for c in page])
    for chat, name, label_id in tags.order_by("label__label_id").values_list(
        "chat", "label__name", "label__label_id"
    ):
        names.setdefault(chat, []).append(name or label_id)
    return [
        ChatRow(
            jid=c.jid,
            name=c.display_name,
            unread_count=c.unread_count,
            last_message_at=c.last_message_at,
            pinned=c.pinned,
            archived=c.archived,
            muted_until=c.muted_until if c.muted_until and c.muted_until > now else None,
            marked_unread=c.marked_unread,
            labels=names.get(c.jid, []),
        )
        for c in page
    ]
