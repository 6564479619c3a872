"""WhatsApp's linked ids (`…@lid`): the phone number behind one, or the linked id of a number."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from ponte_client._http import Op


@dataclass(frozen=True)
class LidPair:
    lid: str  # `<digits>@lid`
    pn: str  # `<digits>@s.whatsapp.net`


def _pair(response: httpx.Response) -> LidPair:
    body = response.json()
    return LidPair(body["lid"], body["pn"])


def contacts_lid(session_id: str, id_: str) -> Op[LidPair]:
    """`id_`: a linked id, a phone JID or a number. NotFoundError (`LID_NOT_FOUND`) when unknown."""
    return Op("GET", "/api/contacts/lid", _pair, params={"sessionId": session_id, "id": id_})
