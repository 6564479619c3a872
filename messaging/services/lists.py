"""List messages: a text with a button that opens sections of rows; the customer's choice arrives as a
`list_response` message naming the row (`listResponse: {rowId, title}`).

`message_send_list` is the public service: the API's `POST /api/messages/list` calls it, and so may
anything else of Ponte that replies with a list (bots). It checks the list's shape itself, so every
caller gets the same rules: 1 to 10 sections, 1 to 10 rows each, at most 10 rows in all, row ids unique
(WhatsApp's and the Cloud API's limits)."""

from __future__ import annotations

from core.errors import validation_failed
from messaging.engines.base import OutgoingList
from messaging.models import Message, Session
from messaging.services.messages import message_send
from messaging.values import ListMessage

MAX_SECTIONS = 10
MAX_ROWS = 10  # in all, over every section


def list_problem(message: ListMessage) -> tuple[str, str] | None:
    """(field, what is wrong) for a list WhatsApp would refuse; None when it is fine."""
    if not message.sections:
        return "sections", "at least one section."
    if len(message.sections) > MAX_SECTIONS:
        return "sections", f"at most {MAX_SECTIONS} sections."
    seen: set[str] = set()
    total = 0
    for index, section in enumerate(message.sections):
        if not section.rows:
            return f"sections[{index}].rows", "at least one row."
        total += len(section.rows)
        for row in section.rows:
            if row.row_id in seen:
                return "sections", f"row ids must be unique; {row.row_id!r} appears twice."
            seen.add(row.row_id)
    if total > MAX_ROWS:
        return "sections", f"at most {MAX_ROWS} rows in all sections together ({total} given)."
    return None


def message_send_list(*, session: Session, to: str, message: ListMessage, savepoint: bool = True) -> Message:
    """Send a list message to `to` (a validated JID) through the one send path (quota, engine, record).
    Raises ValidationFailed (400) for a list of the wrong shape, before anything is sent."""
    problem = list_problem(message)
    if problem is not None:
        field, text = problem
        raise validation_failed({field: [text]})
    return message_send(session=session, outgoing=OutgoingList(to=to, message=message), savepoint=savepoint)
