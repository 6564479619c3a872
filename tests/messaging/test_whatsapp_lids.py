"""Linked ids on the WhatsApp driver, against the stand-in client fed with neonize's own protobuf types:
a message's sender and its alternative (`SenderAlt`) become `senderLid` and `senderPn`, a `…@lid`
sender without one is looked up in whatsmeow's LID store, and `lid_lookup` asks the store both ways."""

from __future__ import annotations

import pytest
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa

from messaging.engines.outgoing import OutgoingMedia, OutgoingPoll, OutgoingText
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
    driver.send(sid, OutgoingText(to=LID, text="olá"))
    (to, _message), _ = client.last("send_message")
    assert (to.User, to.Server) == ("190000111222333", "lid")


def mentioning(message: wa.Message, sender: str = PN) -> lib.Message:
    event = message_ev(sender)
    event.Message.CopyFrom(message)
    return event


def test_mentions_come_from_the_context_info_of_a_text_or_a_caption(connected, events):
    _driver, _sid, client = connected
    context = wa.ContextInfo(mentionedJID=[LID, "5511977770001@s.whatsapp.net", LID])
    text = wa.Message(extendedTextMessage=wa.ExtendedTextMessage(text="@ana @bia", contextInfo=context))
    client.fire("Message", mentioning(text))
    assert events[-1].mentions == (LID, "5511977770001@s.whatsapp.net")
    assert events[-1].to_data()["mentions"] == [LID, "5511977770001@s.whatsapp.net"]
    caption = wa.Message(
        imageMessage=wa.ImageMessage(caption="@ana", mimetype="image/jpeg", contextInfo=context)
    )
    client.fire("Message", mentioning(caption))
    assert events[-1].type == "image" and events[-1].mentions[0] == LID
    client.fire("Message", mentioning(wa.Message(conversation="no one")))
    assert events[-1].mentions is None and "mentions" not in events[-1].to_data()


def test_a_text_that_mentions_goes_as_an_extended_text_with_the_mentioned_jids(connected):
    driver, sid, client = connected
    driver.send(sid, OutgoingText(to="120363000000000001@g.us", text="@ana @bia", mentions=(LID, PN)))
    (_to, message), _ = client.last("send_message")
    assert message.extendedTextMessage.text == "@ana @bia"
    assert list(message.extendedTextMessage.contextInfo.mentionedJID) == [LID, PN]
    driver.send(sid, OutgoingText(to=PN, text="plain"))
    (_to, message), _ = client.last("send_message")
    assert message.conversation == "plain"


def test_a_caption_and_a_poll_carry_their_mentions_in_their_context_info(connected):
    from messaging.engines.base import MediaPayload, Quoted
    from tests.messaging.whatsapp_standin import PollingStandInClient

    driver, sid, client = connected
    media = MediaPayload(type="image", data=b"\xff\xd8", mime_type="image/jpeg", caption="@ana")
    quoted = Quoted(message_id="3EB0Q", participant=PN, text="?")
    driver.send(sid, OutgoingMedia(to=PN, media=media, quoted=quoted, mentions=(PN,)))
    (_to, message), _ = client.last("send_message")
    context = message.imageMessage.contextInfo
    assert (list(context.mentionedJID), context.stanzaID) == ([PN], "3EB0Q")
    client.build_poll_vote_creation = PollingStandInClient.build_poll_vote_creation.__get__(client)
    driver.send(sid, OutgoingPoll(to=PN, name="Almoço?", options=("Sim", "Não"), mentions=(LID,)))
    (_to, message), _ = client.last("send_message")
    polls = [f for f in ("pollCreationMessage", "pollCreationMessageV3") if message.HasField(f)]
    assert list(getattr(message, polls[0]).contextInfo.mentionedJID) == [LID]
