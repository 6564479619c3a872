"""Labels of WhatsApp Business (issue 41): created, changed and deleted through the engine, put on and
taken off chats; and the records of `label_edit` and `label_association`, from the API or the phone.

The engine returns the events of each call (messaging.engines.chat_contract); they are recorded and
emitted in a short transaction of their own (messaging.services.chat_state.engine_events_record). A new
label takes the session's next free numeric id, as WhatsApp's apps number them.
"""

from __future__ import annotations

from django.db.models import QuerySet

from messaging.errors import LabelNotFound
from messaging.models import ChatLabel, Label, Session
from messaging.services.chat_state import engine_events_record
from messaging.services.engine import engine_errors, engine_for, require_connected


def label_list(*, session: Session) -> QuerySet[Label]:
    return session.labels.order_by("label_id")


def label_get(*, session: Session, label_id: str) -> Label:
    label = Label.objects.filter(session=session, label_id=label_id).first()
    if label is None:
        raise LabelNotFound(f"No label {label_id!r} in session {session.pk}.")
    return label


def _next_id(session: Session) -> str:
    numbers = [int(i) for i in session.labels.values_list("label_id", flat=True) if i.isdigit()]
    return str(max(numbers, default=0) + 1)


def _edit(session: Session, label_id: str, name: str, color: int, deleted: bool) -> None:
    require_connected(session)
    with engine_errors():
        events = engine_for(session).label_edit(str(session.pk), label_id, name, color, deleted)
    engine_events_record(session, events)


def label_create(*, session: Session, name: str, color: int) -> Label:
    label_id = _next_id(session)
    _edit(session, label_id, name, color, False)
    return label_get(session=session, label_id=label_id)


def label_update(*, session: Session, label_id: str, name: str | None, color: int | None) -> Label:
    label = label_get(session=session, label_id=label_id)
    name = label.name if name is None else name
    _edit(session, label_id, name, label.color if color is None else color, False)
    return label_get(session=session, label_id=label_id)


def label_delete(*, session: Session, label_id: str) -> None:
    label = label_get(session=session, label_id=label_id)
    _edit(session, label_id, label.name, label.color, True)


def chat_label_set(*, session: Session, chat: str, label_id: str, labeled: bool) -> list[str]:
    """Put the label on the chat (`labeled`) or take it off; returns the chat's label ids after."""
    label_get(session=session, label_id=label_id)
    require_connected(session)
    with engine_errors():
        events = engine_for(session).chat_label(str(session.pk), chat, label_id, labeled)
    engine_events_record(session, events)
    return chat_label_ids(session=session, chat=chat)


def chat_label_ids(*, session: Session, chat: str) -> list[str]:
    return list(
        ChatLabel.objects.filter(label__session=session, chat=chat)
        .order_by("label__label_id")
        .values_list("label__label_id", flat=True)
    )
