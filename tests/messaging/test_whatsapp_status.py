"""The WhatsApp driver's status (stories) against the stand-in of neonize's client, with the library's
own protobuf types: posts are messages of `status@broadcast` (colours as ARGB, fonts as whatsmeow's
FontType), deletes are revokes, and contacts' statuses arrive as `status` events, never as messages."""

from __future__ import annotations

import pytest
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waCommon import WACommon_pb2 as common
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import MediaType

from messaging.engines.base import MediaPayload
from messaging.engines.events import MessageEvent
from messaging.engines.status_events import StatusEvent
from messaging.engines.whatsapp.driver import WhatsAppDriver
from messaging.models import Session
from tests.messaging.whatsapp_standin import StandInClient

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002@s.whatsapp.net"


@pytest.fixture(autouse=True)
def media_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path)},
        },
    }


@pytest.fixture
def wired(account, settings):
    """A connected driver session: (session id, its stand-in client, the events reported)."""
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    events, clients = [], {}

    def factory(*args):
        clients[args[1]] = StandInClient(*args)
        return clients[args[1]]

    driver = WhatsAppDriver(on_event=lambda sid, ev: events.append(ev), client_factory=factory)
    sid = str(Session.objects.create(account=account, name="wa").pk)
    assert driver.connect(sid).status == "qr"
    clients[sid].fire("Connected", lib.Connected(status=True))
    yield driver, sid, clients[sid], events
    driver.stop(sid)


def status_message(message: wa.Message, *, sender: str = CUSTOMER, from_me: bool = False) -> lib.Message:
    user, _, server = sender.partition("@")
    source = lib.MessageSource(
        Chat=lib.JID(User="status", Server="broadcast"),
        Sender=lib.JID(User=user, Server=server),
        IsFromMe=from_me,
        IsGroup=False,
    )
    info = lib.MessageInfo(MessageSource=source, ID="3EB0STATUS1", Pushname="Maria", Timestamp=1763800000)
    return lib.Message(Info=info, Message=message)


def test_a_text_status_is_an_extended_text_to_status_broadcast_with_colour_and_font(wired):
    driver, sid, client, _events = wired
    posted = driver.status_text(sid, "Promoção", "#25D366", 3)
    assert posted.status_id == "3EB0STANDIN0001" and posted.timestamp.year == 2025
    to, message = client.last("send_message")[0]
    assert (to.User, to.Server) == ("status", "broadcast")
    text = message.extendedTextMessage
    assert (text.text, text.backgroundArgb, text.textArgb) == ("Promoção", 0xFF25D366, 0xFFFFFFFF)
    assert text.font == wa.ExtendedTextMessage.FontType.SYSTEM_BOLD


def test_a_media_status_is_uploaded_then_sent_with_its_caption_and_stored(wired):
    driver, sid, client, _events = wired
    payload = MediaPayload(type="video", data=b"mp4-bytes", mime_type="video/mp4", caption="Novidade")
    posted = driver.status_media(sid, payload)
    assert client.last("upload")[0] == (b"mp4-bytes", MediaType.MediaVideo)
    video = client.last("send_message")[0][1].videoMessage
    assert (video.caption, video.mimetype, video.fileLength) == ("Novidade", "video/mp4", 9)
    assert "/api/media/" in posted.media_url


def test_deleting_a_status_revokes_it_in_status_broadcast(wired):
    driver, sid, client, _events = wired
    driver.status_delete(sid, "3EB0OLD")
    chat, sender, message_id = client.last("revoke_message")[0]
    assert (chat.User, chat.Server, sender.IsEmpty, message_id) == ("status", "broadcast", True, "3EB0OLD")


def test_contacts_statuses_arrive_as_status_events_not_messages(wired):
    _driver, _sid, client, events = wired
    text = wa.ExtendedTextMessage(
        text="Bom dia", backgroundArgb=0xFF112233, font=wa.ExtendedTextMessage.FontType.FB_SCRIPT
    )
    client.fire("Message", status_message(wa.Message(extendedTextMessage=text)))
    assert events[-1] == StatusEvent(
        id="3EB0STATUS1",
        sender=CUSTOMER,
        push_name="Maria",
        type="text",
        text="Bom dia",
        timestamp=1763800000,
        background_color="#112233",
        font=2,
    )
    image = wa.ImageMessage(mimetype="image/jpeg", caption="foto", URL="https://mmg.example/x")
    client.fire("Message", status_message(wa.Message(imageMessage=image)))
    assert (events[-1].type, events[-1].caption, events[-1].mime_type) == ("image", "foto", "image/jpeg")
    assert events[-1].media_url and events[-1].size
    revoke = wa.ProtocolMessage(type=wa.ProtocolMessage.Type.REVOKE, key=common.MessageKey(ID="3EB0STATUS1"))
    client.fire("Message", status_message(wa.Message(protocolMessage=revoke)))
    assert (events[-1].type, events[-1].id) == ("revoked", "3EB0STATUS1")
    assert not any(isinstance(e, MessageEvent) for e in events)
