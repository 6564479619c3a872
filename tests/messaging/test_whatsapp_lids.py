"""Linked ids on the WhatsApp driver, against the stand-in client fed with neonize's own protobuf types:
a message's sender and its alternative (`SenderAlt`) become `senderLid` and `senderPn`, a `…@lid`
sender without one is looked up in whatsmeow's LID store, and `lid_lookup` asks the store both ways."""

from __future__ import annotations

import pytest
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa

from messaging.engines.whatsapp.driver import WhatsAppDriver
from messaging.models import Session
from tests.messaging.whatsapp_standin_lids import LidStandInClient, jid

pytestmark = pytest.mark.django_db

PN = "5511988880002@s.whatsapp.net"
LID = "190000111222333@lid"


@pytest.fixture
def events():
    return []


@pytest.fixture
def connected(account, events, settings):
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    clients = {}

    def factory(*args):
        clients[args[1]] = LidStandInClient(*args)
        return clients[args[1]]

    LidStandInClient.lid_store = {LID: PN}
    driver = WhatsAppDriver(on_event=lambda sid, ev: events.append(ev), client_factory=factory)
    session = Session.objects.create(account=account, name="wa")
    sid = str(session.pk)
    assert driver.connect(sid).status == "qr"
    clients[sid].fire("Connected", lib.Connected(status=True))
    yield driver, sid, clients[sid]
    driver.stop(sid)


def message_ev(sender: str, alt: str = "") -> lib.Message:
    source = lib.MessageSource(
        Chat=jid(sender), Sender=jid(sender), SenderAlt=jid(alt) if alt else lib.JID(), IsFromMe=False
    )
    info = lib.MessageInfo(MessageSource=source, ID="3EB0LID", Pushname="Maria", Timestamp=1763800000)
    return lib.Message(Info=info, Message=wa.Message(conversation="oi"))


def test_a_linked_id_sender_with_its_phone_alternative_carries_both(connected, events):
    _driver, _sid, client = connected
    client.fire("Message", message_ev(LID, alt=PN))
    message = events[-1]
    assert (message.sender, message.sender_lid, message.sender_pn) == (LID, LID, PN)
    assert not any(name == "get_pn_from_lid" for name, _, _ in client.calls), "the event said it all"


def test_a_phone_sender_with_its_linked_alternative_carries_both(connected, events):
    _driver, _sid, client = connected
    client.fire("Message", message_ev(PN, alt=LID))
    assert (events[-1].sender, events[-1].sender_lid, events[-1].sender_pn) == (PN, LID, PN)


def test_a_linked_id_sender_alone_takes_its_number_from_whatsmeows_store(connected, events):
    _driver, _sid, client = connected
    client.fire("Message", message_ev(LID))
    assert (events[-1].sender, events[-1].sender_lid, events[-1].sender_pn) == (LID, LID, PN)
    (asked,), _ = client.last("get_pn_from_lid")
    assert (asked.User, asked.Server) == ("190000111222333", "lid")


def test_a_linked_id_the_store_does_not_know_keeps_its_number_null(connected, events):
    _driver, _sid, client = connected
    client.fire("Message", message_ev("190000999999999@lid"))
    assert (events[-1].sender_lid, events[-1].sender_pn) == ("190000999999999@lid", None)


def test_the_lookup_asks_the_store_both_ways_and_answers_none_when_it_does_not_know(connected):
    driver, sid, client = connected
    assert driver.lid_lookup(sid, LID) == {"lid": LID, "pn": PN}
    assert driver.lid_lookup(sid, PN) == {"lid": LID, "pn": PN}
    (asked,), _ = client.last("get_lid_from_pn")
    assert (asked.User, asked.Server) == ("5511988880002", "s.whatsapp.net")
    assert driver.lid_lookup(sid, "5511977770000@s.whatsapp.net") is None


def test_a_text_to_a_linked_id_goes_to_that_jid(connected):
    driver, sid, client = connected
    driver.send_text(sid, LID, "olá")
    (to, _message), _ = client.last("send_message")
    assert (to.User, to.Server) == ("190000111222333", "lid")
