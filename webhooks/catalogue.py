"""The event catalogue of registered webhooks and the aliases accepted for each name."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext_noop

from core.errors import ValidationFailed

# The descriptions are marked for translation (the account area shows them translated); the API and
# the docs keep them as written.
EVENTS: dict[str, str] = {
    "message": gettext_noop("New message received (text, media, location, contact)."),
    "message_ack": gettext_noop("Read or delivery confirmation of a sent message."),
    "connected": gettext_noop("Session connected."),
    "disconnected": gettext_noop("Session disconnected (logout, ban, conflict)."),
    "qr": gettext_noop("New QR code generated for pairing."),
    "group_join": gettext_noop("Participant joined a group."),
    "group_leave": gettext_noop("Participant left a group."),
    "call": gettext_noop("Incoming voice or video call (status reject when the session rejects calls)."),
    "presence": gettext_noop("Contact online/offline update."),
    "chat_archive": gettext_noop("Chat archived or unarchived."),
    # Ponte's additions (new names only, so existing receivers are unaffected): what the `meta`
    # format's `groups` and `health` carry.
    "group_update": gettext_noop("Group subject, description, settings or invite link changed."),
    "health": gettext_noop("Whether the account can send (AVAILABLE, LIMITED, BLOCKED)."),
    "poll_vote": gettext_noop("A vote in a poll (the voter's whole choice; empty when cleared)."),
    "message_edited": gettext_noop("A text message was edited (by the session or the other side)."),
    # Chat and contact actions, labels (issue 41): through the API or on the phone.
    "chat_pin": gettext_noop("Chat pinned or unpinned."),
    "chat_mute": gettext_noop("Chat muted until a time, or unmuted."),
    "chat_unread": gettext_noop("Chat marked unread, or read again."),
    "contact_block": gettext_noop("Contact blocked or unblocked."),
    "label_edit": gettext_noop("Label created, changed or deleted (WhatsApp Business)."),
    "label_association": gettext_noop("Label put on a chat or taken off it."),
    "status": gettext_noop("A contact posted a status (story) the session saw, or deleted one."),
}

# Operational events (webhooks.outbox.operational): about the account's webhooks rather than a session's
# traffic. Subscribed to like EVENTS; sent to the account's other webhooks, never on the live socket.
OPERATIONAL: dict[str, str] = {
    "webhook.disabled": gettext_noop("Another webhook of the account was disabled (with the reason)."),
    "webhook.dead_letter": gettext_noop(
        "A delivery to another webhook of the account became a dead letter (with the delivery's id)."
    ),
}
# Every name a webhook may list in `events`.
SUBSCRIBABLE: dict[str, str] = {**EVENTS, **OPERATIONAL}

# Sent only on request, to the one webhook asked for (webhooks.registered.test_event): not in EVENTS,
# so it cannot be subscribed to, and the live socket leaves it out.
TEST_EVENT = "webhook.test"
ON_REQUEST: dict[str, str] = {
    TEST_EVENT: gettext_noop(
        "A test event sent on request to one webhook (POST /gateway/webhooks/{id}/test)."
    ),
}

# Plural names some integrations expect, and the dotted names of the messaging API.
ALIASES: dict[str, str] = {
    "messages": "message",
    "message.received": "message",
    "message.ack": "message_ack",
    "connection": "connected",
    "session.connected": "connected",
    "session.disconnected": "disconnected",
    "session.qr": "qr",
    "poll.vote": "poll_vote",
    "message.edited": "message_edited",
    "chat.archive": "chat_archive",
    "chat.pin": "chat_pin",
    "chat.mute": "chat_mute",
    "chat.unread": "chat_unread",
    "contact.block": "contact_block",
    "label.upsert": "label_edit",
    "label.chat": "label_association",
}


def canonical_event(name: str) -> str | None:
    """The canonical name of `name` (case-insensitive), or None when it is not in the catalogue."""
    key = name.strip().lower()
    if key in SUBSCRIBABLE:
        return key
    return ALIASES.get(key)


def canonical_events(names: Iterable[object]) -> list[str]:
    """Validate a list of event names; aliases become canonical, duplicates collapse, order kept."""
    result: list[str] = []
    unknown: list[str] = []
    for name in names:
        canonical = canonical_event(name) if isinstance(name, str) else None
        if canonical is None:
            unknown.append(repr(name))
        elif canonical not in result:
            result.append(canonical)
    if unknown:
        raise ValidationFailed(
            f"events: unknown event {', '.join(unknown)}; use one of {', '.join(SUBSCRIBABLE)} "
            f"(aliases: {', '.join(f'{a}={c}' for a, c in ALIASES.items())})"
        )
    if not result:
        raise ValidationFailed("events: give at least one event name")
    return result
