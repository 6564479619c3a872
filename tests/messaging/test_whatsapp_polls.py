"""The WhatsApp driver's polls and edits, against the stand-in client fed with neonize's own protobuf
and event types: a poll and an edit become the library's calls; a vote and an edit from WhatsApp become
`poll_vote` and `message_edited`."""

from __future__ import annotations

import pytest
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waCommon import WACommon_pb2 as common
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import VoteType

from messaging.engines.base import OutgoingEdit, OutgoingPoll, Quoted
from messaging.engines.events import MessageEditedEvent, MessageEvent, PollRef, PollVoteEvent
from messaging.engines.whatsapp.driver import WhatsAppDriver
from messaging.models import Poll, Session
from tests.messaging.whatsapp_standin import PollingStandInClient

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002@s.whatsapp.net"


def jid(value: str) -> lib.JID:
    user, _, server = value.partition("@")
    return lib.JID(User=user, Server=server)


@pytest.fixture
def events():
    return []


@pytest.fixture
def connected(account, events, settings):
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    clients = {}

    def factory(*args):
        clients[args[1]] = PollingStandInClient(*args)
        return clients[args[1]]

    driver = WhatsAppDriver(on_event=lambda sid, ev: events.append(ev), client_factory=factory)
    session = Session.objects.create(account=account, name="wa")
    sid = str(session.pk)
    assert driver.connect(sid).status == "qr"
    clients[sid].fire("Connected", lib.Connected(status=True))
    yield driver, sid, clients[sid]
    driver.stop(sid)


def message_ev(message: wa.Message, *, sender: str = CUSTOMER, from_me: bool = False) -> lib.Message:
    source = lib.MessageSource(Chat=jid(CUSTOMER), Sender=jid(sender), IsFromMe=from_me)
    info = lib.MessageInfo(MessageSource=source, ID="3EB0INCOMING", Timestamp=1763800100, Pushname="Maria")
    return lib.Message(Info=info, Message=message)


def test_a_poll_is_built_by_the_library_with_the_exact_limit_and_the_quote(connected):
    driver, sid, client = connected
    quote = Quoted(message_id="3EB0PREV", participant=CUSTOMER, text="which?")
    poll = OutgoingPoll(
        to=CUSTOMER, name="Lunch?", options=("Pizza", "Sushi", "Salad"), selectable_count=2, quoted=quote
    )
    sent = driver.send(sid, poll)
    assert sent.message_id == "3EB0STANDIN0001" and sent.chat == CUSTOMER
    (name, options, vote_type), _ = client.last("build_poll_vote_creation")
    assert (name, options, vote_type) == ("Lunch?", ["Pizza", "Sushi", "Salad"], VoteType.MULTIPLE)
    (to, message), _ = client.last("send_message")
    assert to.User == "5511988880002"
    poll = message.pollCreationMessage
    assert poll.selectableOptionsCount == 2
    assert poll.contextInfo.stanzaID == "3EB0PREV"
    assert message.messageContextInfo.messageSecret  # the library's secret, votes are encrypted with it


def test_a_single_choice_poll_asks_the_library_for_a_single_vote(connected):
    driver, sid, client = connected
    driver.send(sid, OutgoingPoll(to=CUSTOMER, name="Yes?", options=("Yes", "No")))
    assert client.last("build_poll_vote_creation")[0][2] == VoteType.SINGLE
    assert client.last("send_message")[0][1].pollCreationMessage.selectableOptionsCount == 1


def test_an_edit_goes_through_the_librarys_edit_message(connected):
    driver, sid, client = connected
    driver.send(sid, OutgoingEdit(to=CUSTOMER, message_id="3EB0MINE", text="Hello"))
    (chat, message_id, new_message), _ = client.last("edit_message")
    assert (chat.User, message_id, new_message.conversation) == ("5511988880002", "3EB0MINE", "Hello")


def test_a_vote_is_decrypted_and_reported_with_the_option_names(connected, events):
    _driver, sid, client = connected
    Poll.objects.create(
        session_id=sid, chat=CUSTOMER, message_id="3EB0POLL", name="Lunch?", options=["Pizza", "Sushi"]
    )
    client.votes = [["Sushi"]]
    update = wa.PollUpdateMessage(
        pollCreationMessageKey=common.MessageKey(remoteJID=CUSTOMER, fromMe=True, ID="3EB0POLL"),
        vote=wa.PollEncValue(encPayload=b"x" * 16, encIV=b"i" * 12),
        senderTimestampMS=1763800200000,
    )
    client.fire("Message", message_ev(wa.Message(pollUpdateMessage=update)))
    assert events[-1] == PollVoteEvent(
        poll_message_id="3EB0POLL",
        voter=CUSTOMER,
        selected_options=("Sushi",),
        chat_jid=CUSTOMER,
        timestamp=1763800200,
    )
    assert client.last("decrypt_poll_vote")[0][0].Message.pollUpdateMessage.vote.encPayload == b"x" * 16


def test_an_emptied_vote_is_reported_with_no_options(connected, events):
    _driver, _sid, client = connected
    client.votes = [[]]
    update = wa.PollUpdateMessage(pollCreationMessageKey=common.MessageKey(ID="3EB0POLL"))
    client.fire("Message", message_ev(wa.Message(pollUpdateMessage=update)))
    assert isinstance(events[-1], PollVoteEvent) and events[-1].selected_options == ()


@pytest.mark.parametrize("wrapped", [False, True])
def test_an_edit_from_whatsapp_is_reported_as_message_edited(connected, events, wrapped):
    _driver, _sid, client = connected
    protocol = wa.ProtocolMessage(
        key=common.MessageKey(remoteJID=CUSTOMER, fromMe=False, ID="3EB0THEIRS"),
        type=wa.ProtocolMessage.MESSAGE_EDIT,
        editedMessage=wa.Message(conversation="the"),
        timestampMS=1763800300000,
    )
    message = wa.Message(protocolMessage=protocol)
    if wrapped:
        message = wa.Message(editedMessage=wa.FutureProofMessage(message=message))
    client.fire("Message", message_ev(message))
    event = events[-1]
    assert isinstance(event, MessageEditedEvent)
    assert (event.message_id, event.chat, event.text, event.from_me) == ("3EB0THEIRS", CUSTOMER, "the", False)
    assert event.edited_at.startswith("2025-11-22") and event.sender == CUSTOMER


def test_a_poll_created_on_the_other_side_is_a_poll_message(connected, events):
    _driver, _sid, client = connected
    poll = wa.PollCreationMessage(
        name="Meet?", options=[wa.PollCreationMessage.Option(optionName=n) for n in ("Mon", "Tue")]
    )
    client.fire("Message", message_ev(wa.Message(pollCreationMessageV3=poll)))
    event = events[-1]
    assert isinstance(event, MessageEvent) and event.type == "poll"
    assert event.poll == PollRef(name="Meet?", options=("Mon", "Tue"), selectable_count=2)
