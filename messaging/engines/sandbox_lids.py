"""The sandbox's linked ids (a mixin of SandboxEngine): its "WhatsApp servers" keep a LID store as
whatsmeow's does, by one deterministic rule, so the engine's side of `GET /api/contacts/lid` is real
in tests and demos. Every number on WhatsApp (not ending in ``0000``) has the linked id
``<10^14 + number>@lid``; a linked id not of that form is one the servers do not know.
"""

from __future__ import annotations

from django.db import transaction

from messaging.addressing import LID_SERVER, is_lid, user_suffix

_LID_BASE = 10**14


def sandbox_lid_of(number: str) -> str:
    """The linked id the sandbox's servers give a phone number (digits with country code)."""
    return f"{_LID_BASE + int(number)}@{LID_SERVER}"


class SandboxLids:
    @transaction.atomic  # the device is read locked, as every sandbox operation reads it
    def lid_lookup(self, session_id: str, jid: str) -> dict[str, str] | None:
        self._paired(session_id)  # type: ignore[attr-defined]  (SandboxEngine's)
        local = jid.partition("@")[0]
        number = local
        if is_lid(jid):
            number = str(int(local) - _LID_BASE) if int(local) > _LID_BASE else ""
        if not 8 <= len(number) <= 15 or number.endswith("0000"):
            return None
        return {"lid": sandbox_lid_of(number), "pn": f"{number}@{user_suffix()}"}
