"""`GET /api/contacts/lid`: a contact's two ids, from Ponte's map (messaging.services.lids) or, when it
does not know them, from the engine's own store (whatsmeow's LID store on the WhatsApp driver)."""

from __future__ import annotations

from django.db import transaction

from messaging.addressing import is_lid, normalize_jid
from messaging.errors import LidNotFound
from messaging.models import Session
from messaging.services.engine import engine_errors, engine_for
from messaging.services.lids import is_pn, lid_learn, lid_pair


def lid_lookup(*, session: Session, id_: str) -> dict[str, str]:
    """`GET /api/contacts/lid`: the pair of `id_` (a LID JID, a phone JID or a number) from Ponte's map,
    else from the engine's own store when the session is connected (and remembered); LidNotFound (404)
    when neither knows it. A channel without linked ids answers 400 OPERATION_NOT_SUPPORTED."""
    jid = normalize_jid(id_, allow_group=False, field="id")
    pair = lid_pair(session, jid)
    if pair is not None:
        return {"lid": pair.lid, "pn": pair.pn}
    found = None
    if session.status == Session.Status.CONNECTED:
        with engine_errors():
            found = engine_for(session).lid_lookup(str(session.pk), jid)
    if not found or not (is_lid(found.get("lid", "")) and is_pn(found.get("pn", ""))):
        raise LidNotFound(f"No linked id is known for {jid} on this session.")
    with transaction.atomic():  # the engine was asked outside any transaction
        lid_learn(session, lid=found["lid"], pn=found["pn"])
    return {"lid": found["lid"], "pn": found["pn"]}
