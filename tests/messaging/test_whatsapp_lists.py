"""The WhatsApp driver's list messages, forwards and link previews, against the stand-in client fed with
neonize's own protobuf types: each send becomes the library's message; a list choice, an own list, a
text with a preview and a forwarded message from WhatsApp become Ponte's `message` events."""

from __future__ import annotations

import pytest
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa

from messaging.engines.base import (
    ForwardCard,
    ForwardContent,
    LinkPreview,
    ListMessage,
    ListRow,
    ListSection,
    MediaPayload,
    OutgoingForward,
    OutgoingList,
    OutgoingTextPreview,
    Quoted,
)
from messaging.engines.events import LinkPreviewRef, ListResponseRef, MessageEvent, QuotedRef
from messaging.engines.whatsapp.driver import WhatsAppDriver
from messaging.models import Session
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
def connected(account, events, settings, tmp_path):
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }
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


def message_ev(message: wa.Message, *, from_me: bool = False) -> lib.Message:
    source = lib.MessageSource(Chat=jid(CUSTOMER), Sender=jid(CUSTOMER), IsFromMe=from_me)
    info = lib.MessageInfo(MessageSource=source, ID="3EB0INCOMING", Timestamp=1763800100, Pushname="Maria")
    return lib.Message(Info=info, Message=message)


def test_a_list_is_sent_as_a_single_select_list_message(connected):
    driver, sid, client = connected
    rows = (ListRow("p1", "Margherita", "Tomate"), ListRow("p2", "Calabresa"))
    message = ListMessage(
        text="Escolha",
        button_text="Ver menu",
        title="Menu",
        footer="Loja",
        sections=(ListSection("Pizzas", rows),),
    )
    sent = driver.send(sid, OutgoingList(to=CUSTOMER, message=message))
    assert sent.message_id == "3EB0STANDIN0001"
    (to, built), _ = client.last("send_message")
    listed = built.listMessage
    assert to.User == "5511988880002"
    assert (listed.title, listed.description, listed.buttonText, listed.footerText) == (
        "Menu",
        "Escolha",
        "Ver menu",
        "Loja",
    )
    assert listed.listType == wa.ListMessage.ListType.SINGLE_SELECT
    assert [(r.rowID, r.title, r.description) for r in listed.sections[0].rows] == [
        ("p1", "Margherita", "Tomate"),
        ("p2", "Calabresa", ""),
    ]


def test_a_text_with_a_preview_is_an_extended_text_with_the_matched_link(connected):
    driver, sid, client = connected
    preview = LinkPreview(
        url="https://loja.example/menu", title="Menu", description="Hoje", thumbnail=b"\xff\xd8j"
    )
    quote = Quoted(message_id="3EB0PREV", participant=CUSTOMER, text="?")
    text = "Veja https://loja.example/menu"
    driver.send(sid, OutgoingTextPreview(to=CUSTOMER, text=text, preview=preview, quoted=quote))
    ext = client.last("send_message")[0][1].extendedTextMessage
    assert (ext.text, ext.matchedText, ext.title, ext.description) == (
        "Veja https://loja.example/menu",
        "https://loja.example/menu",
        "Menu",
        "Hoje",
    )
    assert ext.JPEGThumbnail == b"\xff\xd8j" and ext.contextInfo.stanzaID == "3EB0PREV"


@pytest.mark.parametrize(
    ("content", "field"),
    [
        (ForwardContent(type="text", text="Oi"), "extendedTextMessage"),
        (ForwardContent(type="location", latitude=-23.5, longitude=-46.6, name="Loja"), "locationMessage"),
        (
            ForwardContent(type="contacts", cards=(ForwardCard("Ana", "BEGIN:VCARD\nEND:VCARD"),)),
            "contactMessage",
        ),
        (
            ForwardContent(
                type="contacts", display_name="2", cards=(ForwardCard("A", "v1"), ForwardCard("B", "v2"))
            ),
            "contactsArrayMessage",
        ),
        (ForwardContent(type="poll", name="Sabor?", options=("Uva", "Maçã")), "pollCreationMessage"),
        (
            ForwardContent(
                type="media", media=MediaPayload(type="voice", data=b"OggS", mime_type="audio/ogg")
            ),
            "audioMessage",
        ),
    ],
)
def test_a_forward_is_its_kind_of_message_marked_forwarded(connected, content, field):
    driver, sid, client = connected
    driver.send(sid, OutgoingForward(to=CUSTOMER, content=content, original_type="text", original={}))
    built = client.last("send_message")[0][1]
    assert built.HasField(field)
    context = getattr(built, field).contextInfo
    assert context.isForwarded and context.forwardingScore == 1
    if field == "audioMessage":
        assert built.audioMessage.PTT and client.last("upload")[0][0] == b"OggS"
    if field == "extendedTextMessage":
        assert built.extendedTextMessage.text == "Oi"


def test_a_list_choice_from_whatsapp_is_a_list_response(connected, events):
    _driver, _sid, client = connected
    reply = wa.ListResponseMessage(
        title="Suco",
        description="Laranja",
        listType=wa.ListResponseMessage.ListType.SINGLE_SELECT,
        singleSelectReply=wa.ListResponseMessage.SingleSelectReply(selectedRowID="b1"),
        contextInfo=wa.ContextInfo(stanzaID="3EB0LIST", participant=CUSTOMER),
    )
    client.fire("Message", message_ev(wa.Message(listResponseMessage=reply)))
    event = events[-1]
    assert isinstance(event, MessageEvent) and event.type == "list_response"
    assert event.list_response == ListResponseRef(row_id="b1", title="Suco", description="Laranja")
    assert event.text == "Suco" and event.quoted == QuotedRef("3EB0LIST", CUSTOMER)
    assert event.to_data()["listResponse"] == {"rowId": "b1", "title": "Suco", "description": "Laranja"}


def test_a_list_sent_from_the_phone_is_an_own_list_message(connected, events):
    _driver, _sid, client = connected
    listed = wa.ListMessage(
        description="Escolha",
        buttonText="Ver",
        sections=[wa.ListMessage.Section(title="S", rows=[wa.ListMessage.Row(rowID="r", title="R")])],
    )
    client.fire("Message", message_ev(wa.Message(listMessage=listed), from_me=True))
    data = events[-1].to_data()
    assert data["type"] == "list" and data["text"] == "Escolha" and data["fromMe"] is True
    assert data["list"]["sections"][0]["rows"][0] == {"rowId": "r", "title": "R", "description": ""}


def test_a_text_with_a_preview_and_a_forwarded_message_from_whatsapp(connected, events):
    _driver, _sid, client = connected
    ext = wa.ExtendedTextMessage(
        text="olha https://x.example", matchedText="https://x.example", title="X", description="D"
    )
    client.fire("Message", message_ev(wa.Message(extendedTextMessage=ext)))
    assert events[-1].link_preview == LinkPreviewRef(url="https://x.example", title="X", description="D")
    assert events[-1].forwarded is None and "forwarded" not in events[-1].to_data()
    place = wa.LocationMessage(
        degreesLatitude=1, degreesLongitude=2, contextInfo=wa.ContextInfo(isForwarded=True)
    )
    client.fire("Message", message_ev(wa.Message(locationMessage=place)))
    assert events[-1].type == "location" and events[-1].forwarded is True
    plain = wa.ExtendedTextMessage(
        text="sem", contextInfo=wa.ContextInfo(isForwarded=True, forwardingScore=3)
    )
    client.fire("Message", message_ev(wa.Message(extendedTextMessage=plain)))
    assert events[-1].forwarded is True and events[-1].link_preview is None
