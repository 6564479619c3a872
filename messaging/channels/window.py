"""The 24-hour customer service window of official channels (free text outside it is not attempted).

The window is measured from the customer's last message in the conversation, by the channel's own
timestamp (ChannelConversation, kept by the inbound webhooks). Outside it, text matching an approved
template is sent as that template; any other text is not sent: the engine raises EngineOutsideWindow
(`unsent`), which the services answer with 409 OUTSIDE_CUSTOMER_WINDOW and record as a failed message.
Unknown last-message time: the send proceeds (the channel itself refuses it with 131047 if it must).
GraphChannelEngine.send_text applies this rule, so the services send text the same way on every engine.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from messaging.channels.models import ChannelConversation
from messaging.channels.templates import TemplateMatch, template_match
from messaging.engines.base import EngineOutsideWindow

WINDOW = timedelta(hours=24)


def last_customer_message_at(session_id: str, chat: str) -> datetime | None:
    conversation = ChannelConversation.objects.filter(session_id=session_id, chat=chat).first()
    return conversation.last_customer_at if conversation else None


def window_template(
    session_id: str, chat: str, text: str, now: datetime | None = None
) -> TemplateMatch | None:
    """None while the window is open (the text is sent as it is); outside it, the approved template the
    text is an instance of. Raises EngineOutsideWindow (`unsent`) when there is none."""
    last = last_customer_message_at(session_id, chat)
    if last is None or (now or timezone.now()) - last <= WINDOW:
        return None
    match = template_match(session_id, text)
    if match is None:
        raise EngineOutsideWindow(
            "More than 24 hours have passed since the customer's last message and the text matches no "
            "approved template: nothing was sent (POST /api/sessions/{id}/templates/sync after approving "
            "one).",
            unsent=True,
            last_customer_at=last,
        )
    return match
