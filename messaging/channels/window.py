"""The 24-hour customer service window of official channels (free text outside it is not attempted).

The window is measured from the customer's last message in the conversation, by the channel's own
timestamp (ChannelConversation, kept by the inbound webhooks). Outside it, text matching an approved
template is sent as that template; any other text is not sent: the reply is 409
OUTSIDE_CUSTOMER_WINDOW and the message is recorded as failed. Unknown last-message time: the send
proceeds (the channel itself refuses it with 131047 if it must).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.utils import timezone

from config.errors import OutsideCustomerWindow
from messaging.channels.models import ChannelConversation
from messaging.channels.templates import template_match
from messaging.models import Message, Session
from messaging.services.engine import engine_errors, engine_for
from messaging.services.messages import QuotedInput, _prepare, _quoted, _record

WINDOW = timedelta(hours=24)


def last_customer_message_at(session: Session, chat: str) -> datetime | None:
    conversation = ChannelConversation.objects.filter(session=session, chat=chat).first()
    return conversation.last_customer_at if conversation else None


def window_open(session: Session, chat: str, now: datetime | None = None) -> bool:
    last = last_customer_message_at(session, chat)
    return last is None or (now or timezone.now()) - last <= WINDOW


def _record_failed(session_id: str, chat: str, text: str, message_id: str) -> None:
    Message.objects.create(
        session_id=session_id,
        chat=chat,
        message_id=message_id,
        from_me=True,
        direction=Message.Direction.OUTBOUND,
        type="text",
        content={"text": text, "error": OutsideCustomerWindow.code},
        status=Message.Status.FAILED,
    )


def _outside(session: Session, to: str, text: str, last: datetime | None) -> OutsideCustomerWindow:
    message_id = f"failed-{uuid.uuid4().hex[:20]}"
    error = OutsideCustomerWindow(
        "More than 24 hours have passed since the customer's last message and the text matches no "
        "approved template: nothing was sent (POST /api/sessions/{id}/templates/sync after approving one).",
        extra={"messageId": message_id, "lastCustomerMessageAt": last.isoformat() if last else None},
    )
    session_id = str(session.pk)
    error.record = lambda: _record_failed(session_id, to, text, message_id)
    return error


def channel_send_text(*, session: Session, to: str, text: str, quoted: QuotedInput | None = None) -> Message:
    """Text on an official channel, honouring the window (called by message_send_text)."""
    if window_open(session, to):
        _prepare(session)
        quote = _quoted(session, to, quoted)
        with engine_errors():
            sent = engine_for(session).send_text(str(session.pk), to, text, quote)
        content = {"text": text, **({"quoted": {"messageId": quote.message_id}} if quote else {})}
        return _record(session, sent, "text", content)
    match = template_match(session, text)
    if match is None:
        raise _outside(session, to, text, last_customer_message_at(session, to))
    _prepare(session)
    template = match.template
    with engine_errors():
        sent = engine_for(session).send_template(
            str(session.pk), to, template.name, template.language, match.parameters
        )
    content = {
        "text": text,
        "template": {"name": template.name, "language": template.language, "parameters": match.parameters},
    }
    return _record(session, sent, "template", content)
