"""Linked ids on the WhatsApp driver: whatsmeow's LID store, as neonize exposes it
(`get_pn_from_lid`, `get_lid_from_pn`, each taking and returning the library's JID protobuf; an empty
JID, or neonize's GetJIDFromStoreError, when the store does not know the id)."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from messaging.addressing import is_lid
from messaging.engines.events import MessageEvent
from messaging.engines.whatsapp.inbound import jid_str
from messaging.engines.whatsapp.outbound import to_jid

logger = logging.getLogger(__name__)


def store_pair(client: Any, jid: str) -> dict[str, str] | None:
    """`{"lid", "pn"}` for `jid` (a `…@lid` or a phone JID) from whatsmeow's LID store; None when the
    store does not know it."""
    ask = client.get_pn_from_lid if is_lid(jid) else client.get_lid_from_pn
    try:
        other = ask(to_jid(jid))
    except Exception as exc:
        if type(exc).__name__ != "GetJIDFromStoreError":  # neonize's own (not imported outside the engine)
            raise
        logger.info("whatsmeow's LID store does not know %s: %s", jid, exc)
        return None
    if not other.User:
        return None
    found = jid_str(other)
    lid, pn = (jid, found) if is_lid(jid) else (found, jid)
    if not is_lid(lid) or is_lid(pn):
        return None
    return {"lid": lid, "pn": pn}


def with_store_pn(client: Any, event: MessageEvent) -> MessageEvent:
    """A message from a `…@lid` sender that came without its phone JID (`SenderAlt`): the store's, when
    it knows it, so the event carries both and Ponte learns the pair."""
    if event.from_me or not is_lid(event.sender) or event.sender_pn:
        return event
    try:
        pair = store_pair(client, event.sender)
    except Exception:  # the message still arrives, with its number unknown
        logger.warning("Asking whatsmeow's LID store about %s failed", event.sender, exc_info=True)
        return event
    return dataclasses.replace(event, sender_lid=event.sender, sender_pn=pair["pn"]) if pair else event
