"""The records of the chat, contact and label events (issue 41), from the API or from the phone: called
by messaging.services.events for each reported event, in its transaction, under the Session row lock.
A chat or label Ponte has not seen yet gets its row."""

from __future__ import annotations

from datetime import datetime

from messaging.addressing import is_group
from messaging.engines.chat_events import (
    ChatMuteEvent,
    ChatPinEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelAssociationEvent,
    LabelEditEvent,
)
from messaging.models import Chat, ChatLabel, Contact, Label, Session


def _chat_update(session: Session, chat: str, **fields: object) -> None:
    if not Chat.objects.filter(session=session, jid=chat).update(**fields):
        Chat.objects.create(session=session, jid=chat, is_group=is_group(chat), **fields)


def chat_pin_record(session: Session, event: ChatPinEvent) -> None:
    _chat_update(session, event.chat, pinned=event.pinned)


def chat_mute_record(session: Session, event: ChatMuteEvent) -> None:
    until = datetime.fromisoformat(event.muted_until) if event.muted_until else None
    _chat_update(session, event.chat, muted_until=until)


def chat_unread_record(session: Session, event: ChatUnreadEvent) -> None:
    _chat_update(session, event.chat, marked_unread=event.unread)


def contact_block_record(session: Session, event: ContactBlockEvent) -> None:
    Contact.objects.bulk_create(
        [Contact(session=session, jid=event.jid, blocked=event.blocked)],
        update_conflicts=True,
        unique_fields=["session", "jid"],
        update_fields=["blocked", "updated_at"],
    )
    count = Contact.objects.filter(session=session, blocked=True).count()
    Session.objects.filter(pk=session.pk).update(blocked_contacts=count)
    session.blocked_contacts = count


def label_edit_record(session: Session, event: LabelEditEvent) -> None:
    if event.deleted:
        Label.objects.filter(session=session, label_id=event.label_id).delete()
        return
    Label.objects.update_or_create(
        session=session,
        label_id=event.label_id,
        defaults={"name": event.label_name[:100], "color": event.color},
    )


def label_association_record(session: Session, event: LabelAssociationEvent) -> None:
    label = Label.objects.filter(session=session, label_id=event.label_id).first()
    if label is None:
        if not event.labeled:
            return
        # The phone may sync an association before the label itself: its row, named once it arrives.
        label = Label.objects.create(session=session, label_id=event.label_id, name="")
    if event.labeled:
        ChatLabel.objects.get_or_create(label=label, chat=event.chat)
        Chat.objects.get_or_create(
            session=session, jid=event.chat, defaults={"is_group": is_group(event.chat)}
        )
    else:
        ChatLabel.objects.filter(label=label, chat=event.chat).delete()
