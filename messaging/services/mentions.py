"""Mentions: the people a text, a media caption or a poll names with `@` (issue 41 item 2).

`mentions` are numbers or JIDs (validated by the API); `mentionAll` mentions every participant of the
group the message goes to, as Ponte last recorded the group (its `Group` row, kept from the engine's
group events), the session itself left out. Outside a group `mentionAll` is 400. A channel whose
messages cannot mention anyone (the official channels: `Engine.mentions` false) answers 400
OPERATION_NOT_SUPPORTED naming its engine, before anything is sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import ValidationFailed
from messaging.addressing import is_group
from messaging.errors import OperationNotSupported
from messaging.models import Group, Session
from messaging.services.engine import engine_for


def mentions_resolve(
    *, session: Session, to: str, mentions: Sequence[str] = (), mention_all: bool = False
) -> tuple[str, ...]:
    """The JIDs the message mentions, in order, each once (the group's participants first with
    `mention_all`, then those named)."""
    if mention_all and not is_group(to):
        raise ValidationFailed("mentionAll: only for a message to a group (<digits>@g.us).")
    if not mentions and not mention_all:
        return ()
    engine = engine_for(session)
    if not engine.mentions:
        raise OperationNotSupported(f"The {engine.label} engine cannot mention people in its messages.")
    everyone: list[str] = []
    if mention_all:
        group = Group.objects.filter(session=session, jid=to).values_list("participants", flat=True).first()
        everyone = [p["jid"] for p in group or () if p.get("jid") and p["jid"] != session.jid]
    return tuple(dict.fromkeys([*everyone, *mentions]))


def mentions_content(mentions: Sequence[str]) -> dict[str, list[str]]:
    """What the history keeps of a message's mentions (nothing when it mentions no one)."""
    return {"mentions": list(mentions)} if mentions else {}
