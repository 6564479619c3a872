"""The stand-in client with neonize's LID store calls (`get_pn_from_lid`, `get_lid_from_pn`): JID
protobufs in and out, neonize's own GetJIDFromStoreError for an id the store does not know, as the
library raises it from whatsmeow's answer."""

from __future__ import annotations

from typing import Any

from neonize.exc import GetJIDFromStoreError
from neonize.proto import Neonize_pb2 as lib

from tests.messaging.whatsapp_standin import StandInClient


def jid(value: str) -> lib.JID:
    user, _, server = value.partition("@")
    return lib.JID(User=user, Server=server, RawAgent=0, Device=0, Integrator=0, IsEmpty=False)


class LidStandInClient(StandInClient):
    #: whatsmeow's LID store: linked id → phone JID.
    lid_store: dict[str, str] = {}

    def _answer(self, asked: Any, table: dict[str, str]) -> Any:
        found = table.get(f"{asked.User}@{asked.Server}")
        if found is None:
            raise GetJIDFromStoreError("no LID mapping found")
        return jid(found)

    def get_pn_from_lid(self, lid: Any) -> Any:
        self._record("get_pn_from_lid", lid)
        return self._answer(lid, self.lid_store)

    def get_lid_from_pn(self, pn: Any) -> Any:
        self._record("get_lid_from_pn", pn)
        return self._answer(pn, {v: k for k, v in self.lid_store.items()})
