"""The WhatsApp driver's mapping both ways, against a stand-in for neonize's client class fed with the
library's own protobuf and event types: commands → library calls, library events → Ponte events,
library failures → engine exceptions."""

from __future__ import annotations

import pytest
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waCommon import WACommon_pb2 as common
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.proto.waHistorySync import WAWebProtobufsHistorySync_pb2 as history
from neonize.proto.waWeb import WAWebProtobufsWeb_pb2 as web
from neonize.utils.enum import ChatPresence, ChatPresenceMedia, ParticipantChange, Presence, ReceiptType

from messaging.engines.base import (
    Button,
    ContactCard,
    EngineNotAllowed,
    EngineNotConnected,
    EngineNotFound,
    EngineRateLimited,
    EngineUnavailableError,
    MediaPayload,
    OutgoingButtons,
    OutgoingContact,
    OutgoingContacts,
    OutgoingDelete,
    OutgoingLocation,
    OutgoingMedia,
    OutgoingReaction,
    OutgoingText,
    Quoted,
)
from messaging.engines.events import ConnectedEvent, DisconnectedEvent, HealthEvent, MessageEvent, QrEvent
from messaging.engines.whatsapp.driver import WhatsAppDriver
from messaging.engines.whatsapp.errors import classify
from messaging.models import Session, WhatsAppDevice
from tests.messaging.whatsapp_standin import StandInClient

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002@s.whatsapp.net"
GROUP = "120363000000000001@g.us"


def jid(value: str) -> lib.JID:
    user, _, server = value.partition("@")
    return lib.JID(User=user, Server=server)


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
def events():
    return []


@pytest.fixture
def clients():
    """The stand-in clients the driver built, by session id (the last one of each)."""
    return {}


def recording(clients: dict, **options):
    def factory(*args):
        client = StandInClient(*args, **options)
        clients[args[1]] = client
        return client

    return factory


@pytest.fixture
def driver(events, settings, clients):
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    built = WhatsAppDriver(on_event=lambda sid, ev: events.append(ev), client_factory=recording(clients))
    yield built
    for session_id in list(clients):
        built.stop(session_id)


@pytest.fixture
def session(account) -> Session:
    return Session.objects.create(account=account, name="wa")


@pytest.fixture
def connected(driver, session, events, clients):
    """A session whose stand-in client showed a QR code and then reported Connected."""
    sid = str(session.pk)
    assert driver.connect(sid).status == "qr"
    client = clients[sid]
    client.fire("Connected", lib.Connected(status=True))
    return sid, client


# --- connection ---------------------------------------------------------------------------------------


def test_connect_returns_the_qr_code_the_library_pushed_and_dials_through_whatsapp_proxy(
    driver, session, events, settings, clients
):
    settings.WHATSAPP_PROXY = "socks5://127.0.0.1:9"
    result = driver.connect(str(session.pk))
    assert result.status == "qr" and result.qr.code == "2@standin-ref,noise,identity,adv"
    assert isinstance(events[0], QrEvent) and events[0].serial == 1
    client = clients[str(session.pk)]
    assert client.proxy.proxy_address == "socks5://127.0.0.1:9"
    assert client.device_jid == "" and client.store  # a new device on Ponte's store
    assert driver.current_qr(str(session.pk)).code == result.qr.code


def test_a_sessions_own_proxy_overrides_whatsapp_proxy(driver, session, settings, clients):
    settings.WHATSAPP_PROXY = "socks5://127.0.0.1:9"
    Session.objects.filter(pk=session.pk).update(proxy="http://user:secret@127.0.0.1:3128")
    driver.connect(str(session.pk))
    assert clients[str(session.pk)].proxy.proxy_address == "http://user:secret@127.0.0.1:3128"


def test_connected_records_the_device_and_a_restart_resumes_it(driver, session, connected, events, clients):
    sid, _client = connected
    assert events[-1] == ConnectedEvent(
        jid="5511999990001@s.whatsapp.net", phone="5511999990001", push_name="Loja", platform="whatsapp"
    )
    assert WhatsAppDevice.objects.get(session_id=sid).jid == "5511999990001:7@s.whatsapp.net"
    assert driver.connect(sid).status == "connected"
    assert driver.stored_sessions() == [sid]
    driver.restart(sid)
    assert clients[sid].device_jid == "5511999990001:7@s.whatsapp.net"


def test_pairing_code_asks_the_library(driver, session, clients):
    driver.connect(str(session.pk))
    code = driver.pairing_code(str(session.pk), "5511999990003")
    assert code.code == "ABCD-EFGH"
    assert clients[str(session.pk)].last("PairPhone")[0] == ("5511999990003", True)


def test_logout_unlinks_deletes_the_device_and_reports_disconnected(driver, connected, events):
    sid, client = connected
    driver.logout(sid)
    assert client.last("logout") and not WhatsAppDevice.objects.filter(session_id=sid).exists()
    assert events[-1] == DisconnectedEvent(reason="logout") and driver.stop(sid) is False


def test_operations_of_a_session_without_a_connection_are_not_connected(driver, session):
    with pytest.raises(EngineNotConnected):
        driver.send(str(session.pk), OutgoingText(to=CUSTOMER, text="oi"))
    with pytest.raises(EngineNotConnected):
        driver.restart(str(session.pk))


# --- commands → library calls -------------------------------------------------------------------------


def test_text_and_quoted_text(driver, connected):
    sid, client = connected
    sent = driver.send(sid, OutgoingText(to=CUSTOMER, text="Olá"))
    to, message = client.last("send_message")[0]
    assert (to.User, to.Server, message.conversation) == ("5511988880002", "s.whatsapp.net", "Olá")
    assert sent.message_id == "3EB0STANDIN0001" and sent.chat == CUSTOMER
    driver.send(sid, OutgoingText(to=CUSTOMER, text="sim", quoted=Quoted("3EB0AAA", CUSTOMER, "pergunta")))
    ext = client.last("send_message")[0][1].extendedTextMessage
    assert (ext.text, ext.contextInfo.stanzaID, ext.contextInfo.quotedMessage.conversation) == (
        "sim",
        "3EB0AAA",
        "pergunta",
    )


def test_reaction_and_its_removal_name_the_message(driver, connected):
    sid, client = connected
    driver.send(
        sid, OutgoingReaction(to=GROUP, message_id="3EB0AAA", from_me=False, sender=CUSTOMER, emoji="👍")
    )
    reaction = client.last("send_message")[0][1].reactionMessage
    assert (reaction.text, reaction.key.ID, reaction.key.participant, reaction.key.fromMe) == (
        "👍",
        "3EB0AAA",
        CUSTOMER,
        False,
    )
    driver.send(
        sid, OutgoingReaction(to=GROUP, message_id="3EB0AAA", from_me=False, sender=CUSTOMER, emoji="")
    )
    assert client.last("send_message")[0][1].reactionMessage.text == ""


def test_vcard_vcards_and_location(driver, connected):
    sid, client = connected
    driver.send(sid, OutgoingContact(to=CUSTOMER, card=ContactCard("Ana", "5511911110001", "Loja")))
    card = client.last("send_message")[0][1].contactMessage
    assert card.displayName == "Ana" and "waid=5511911110001" in card.vcard and "ORG:Loja;" in card.vcard
    cards = (ContactCard("Ana", "5511911110001"), ContactCard("Bia", "5511922220002"))
    driver.send(sid, OutgoingContacts(to=CUSTOMER, display_name="Equipe", cards=cards))
    cards = client.last("send_message")[0][1].contactsArrayMessage
    assert cards.displayName == "Equipe" and [c.displayName for c in cards.contacts] == ["Ana", "Bia"]
    driver.send(
        sid,
        OutgoingLocation(to=CUSTOMER, latitude=-23.55, longitude=-46.63, name="Sé", address="Praça da Sé"),
    )
    loc = client.last("send_message")[0][1].locationMessage
    assert (loc.degreesLatitude, loc.degreesLongitude, loc.name, loc.address) == (
        -23.55,
        -46.63,
        "Sé",
        "Praça da Sé",
    )


def test_buttons_are_sent_as_reply_buttons_or_as_numbered_text(driver, connected, settings):
    sid, client = connected
    buttons = (Button("yes", "Sim"), Button("no", "Não"))
    driver.send(sid, OutgoingButtons(to=CUSTOMER, text="Confirma?", buttons=buttons, footer="Loja"))
    sent = client.last("send_message")[0][1].buttonsMessage
    assert (sent.contentText, sent.footerText) == ("Confirma?", "Loja")
    assert [(b.buttonID, b.buttonText.displayText) for b in sent.buttons] == [("yes", "Sim"), ("no", "Não")]
    settings.WHATSAPP_BUTTONS_AS_TEXT = True
    driver.send(sid, OutgoingButtons(to=CUSTOMER, text="Confirma?", buttons=buttons, footer="Loja"))
    assert client.last("send_message")[0][1].conversation == "Confirma?\n\n1. Sim\n2. Não\n\nLoja"


def test_delete_for_everyone_revokes(driver, connected):
    sid, client = connected
    driver.send(sid, OutgoingDelete(to=GROUP, message_id="3EB0AAA", from_me=False, sender=CUSTOMER))
    chat, sender, message_id = client.last("revoke_message")[0]
    assert (chat.User, sender.User, message_id) == ("120363000000000001", "5511988880002", "3EB0AAA")


@pytest.mark.parametrize(
    "kind,field",
    [
        ("image", "imageMessage"),
        ("video", "videoMessage"),
        ("voice", "audioMessage"),
        ("document", "documentMessage"),
        ("sticker", "stickerMessage"),
    ],
)
def test_media_is_uploaded_then_sent(driver, connected, kind, field):
    sid, client = connected
    payload = MediaPayload(
        type=kind,
        data=b"bytes",
        mime_type="image/webp" if kind == "sticker" else "x/y",
        file_name="a.pdf",
        caption="c",
        **({"seconds": 7, "waveform": tuple(range(0, 128, 2))} if kind == "voice" else {}),
    )
    driver.send(sid, OutgoingMedia(to=CUSTOMER, media=payload))
    assert client.last("upload")[0][0] == b"bytes"
    media = getattr(client.last("send_message")[0][1], field)
    assert media.directPath == "/v/t62/enc" and media.fileLength == 5 and media.mediaKey == b"k" * 32
    if kind == "voice":
        assert media.PTT is True and (media.seconds, media.waveform) == (7, bytes(range(0, 128, 2)))
    if kind == "document":
        assert media.fileName == "a.pdf"


def test_read_receipts_and_presence(driver, connected):
    sid, client = connected
    driver.mark_read(sid, GROUP, ["A", "B"], CUSTOMER)
    args, kwargs = client.last("mark_read")
    assert (
        args == ("A", "B")
        and kwargs["sender"].User == "5511988880002"
        and kwargs["receipt"] == ReceiptType.READ
    )
    driver.send_presence(sid, CUSTOMER, "recording")
    assert client.last("send_chat_presence")[0][1:] == (
        ChatPresence.CHAT_PRESENCE_COMPOSING,
        ChatPresenceMedia.CHAT_PRESENCE_MEDIA_AUDIO,
    )
    driver.send_presence(sid, CUSTOMER, "paused")
    assert client.last("send_chat_presence")[0][1] == ChatPresence.CHAT_PRESENCE_PAUSED
    driver.send_presence(sid, CUSTOMER, "unavailable")
    assert client.last("send_presence")[0] == (Presence.UNAVAILABLE,)


def test_contact_check_profile_and_groups(driver, connected):
    sid, client = connected
    checked = driver.check_contacts(sid, ["5511988880002", "5511900000000"])
    assert [(c.number, c.exists) for c in checked] == [("5511988880002", True), ("5511900000000", False)]
    driver.set_profile_picture(sid, b"jpeg", "image/jpeg")
    driver.set_profile_picture(sid, b"jpeg", "image/jpeg", GROUP)
    driver.set_profile_status(sid, "Atendimento")
    driver.set_profile_name(sid, "Loja")
    assert [n for n, _a, _k in client.calls][-4:] == [
        "set_profile_photo",
        "set_group_photo",
        "set_status_message",
        "set_profile_name",
    ]
    group = driver.group_create(sid, "Equipe", [CUSTOMER])
    assert (group.jid, group.subject, group.owner) == (GROUP, "Equipe", "5511999990001@s.whatsapp.net")
    assert [(p.jid, p.admin) for p in group.participants] == [
        ("5511999990001@s.whatsapp.net", True),
        (CUSTOMER, False),
    ]
    assert [g.subject for g in driver.group_list(sid)] == ["Equipe"]
    driver.group_leave(sid, GROUP)
    assert client.last("leave_group")[0][0].User == "120363000000000001"
    results = driver.group_promote(sid, GROUP, [CUSTOMER, "5511900000000@s.whatsapp.net"])
    assert [r.status for r in results] == ["promoted", "not_a_participant"]
    assert client.last("update_group_participants")[0][2] == ParticipantChange.PROMOTE
    assert driver.group_demote(sid, GROUP, [CUSTOMER])[0].status == "demoted"


@pytest.mark.parametrize(
    "text,error",
    [
        ("websocket not connected", EngineNotConnected),
        ("server returned error 429: rate-overlimit", EngineRateLimited),
        ("info query returned status 404: item-not-found", EngineNotFound),
        ("info query returned status 403: forbidden", EngineNotAllowed),
        ("context deadline exceeded", EngineUnavailableError),
    ],
)
def test_library_failures_map_onto_engine_exceptions(driver, session, events, text, error, clients):
    from neonize.exc import SendMessageError

    assert isinstance(classify(SendMessageError(text)), error)
    failing = WhatsAppDriver(
        on_event=lambda sid, ev: events.append(ev),
        client_factory=recording(clients, fail=SendMessageError(text)),
    )
    sid = str(session.pk)
    failing.connect(sid)
    clients[sid].fire("Connected", lib.Connected(status=True))
    try:
        with pytest.raises(error):
            failing.send(sid, OutgoingText(to=CUSTOMER, text="oi"))
    finally:
        failing.stop(sid)


# --- library events → Ponte events --------------------------------------------------------------------


def message_ev(
    message: wa.Message, *, chat: str = CUSTOMER, sender: str = CUSTOMER, from_me: bool = False
) -> lib.Message:
    source = lib.MessageSource(
        Chat=jid(chat), Sender=jid(sender), IsFromMe=from_me, IsGroup=chat.endswith("g.us")
    )
    info = lib.MessageInfo(MessageSource=source, ID="3EB0IN", Pushname="Maria", Timestamp=1763800000)
    return lib.Message(Info=info, Message=message)


def test_inbound_text_quoted_location_contacts_reaction_and_revoke(connected, events):
    _sid, client = connected
    client.fire("Message", message_ev(wa.Message(conversation="Olá")))
    assert events[-1] == MessageEvent(
        id="3EB0IN",
        chat_jid=CUSTOMER,
        sender=CUSTOMER,
        sender_pn=CUSTOMER,
        push_name="Maria",
        text="Olá",
        timestamp=1763800000,
    )
    quoted = wa.ExtendedTextMessage(
        text="sim", contextInfo=wa.ContextInfo(stanzaID="3EB0Q", participant=CUSTOMER)
    )
    client.fire("Message", message_ev(wa.Message(extendedTextMessage=quoted), chat=GROUP))
    assert events[-1].quoted.message_id == "3EB0Q" and events[-1].chat == GROUP
    client.fire(
        "Message",
        message_ev(
            wa.Message(
                locationMessage=wa.LocationMessage(degreesLatitude=1.5, degreesLongitude=2.5, name="Aqui")
            )
        ),
    )
    assert (events[-1].type, events[-1].location.latitude, events[-1].location.name) == (
        "location",
        1.5,
        "Aqui",
    )
    cards = wa.ContactsArrayMessage(
        displayName="2", contacts=[wa.ContactMessage(displayName="Ana", vcard="BEGIN:VCARD")]
    )
    client.fire("Message", message_ev(wa.Message(contactsArrayMessage=cards)))
    assert events[-1].type == "contacts" and events[-1].contacts[0].vcard == "BEGIN:VCARD"
    reaction = wa.ReactionMessage(key=common.MessageKey(ID="3EB0T", remoteJID=CUSTOMER), text="❤️")
    client.fire("Message", message_ev(wa.Message(reactionMessage=reaction)))
    assert events[-1].reaction.message_id == "3EB0T" and events[-1].reaction.emoji == "❤️"
    revoke = wa.ProtocolMessage(
        type=wa.ProtocolMessage.Type.REVOKE, key=common.MessageKey(ID="3EB0T", fromMe=True)
    )
    client.fire("Message", message_ev(wa.Message(protocolMessage=revoke), from_me=True))
    assert (events[-1].type, events[-1].revoked_message_id, events[-1].from_me) == ("revoked", "3EB0T", True)


def test_inbound_media_is_downloaded_stored_and_linked(connected, events, client):
    _sid, standin = connected
    image = wa.ImageMessage(mimetype="image/jpeg", caption="foto", URL="https://mmg.example/x")
    standin.fire("Message", message_ev(wa.Message(imageMessage=image)))
    event = events[-1]
    assert (event.type, event.caption, event.mime_type) == ("image", "foto", "image/jpeg")
    served = client.get(event.media_url.split("://", 1)[1].split("/", 1)[1].join(["/", ""]))
    body = b"".join(served.streaming_content)
    assert body.startswith(b"downloaded-bytes:") and event.size == len(body)
    voice = wa.AudioMessage(
        mimetype="audio/ogg; codecs=opus", PTT=True, seconds=4, waveform=bytes([0, 50, 100])
    )
    standin.fire("Message", message_ev(wa.Message(audioMessage=voice)))
    assert events[-1].type == "audio" and events[-1].voice is True
    assert (events[-1].seconds, events[-1].waveform) == (4, (0, 50, 100))


def test_receipts_presence_and_history(connected, events):
    _sid, client = connected
    receipt = lib.Receipt(
        MessageSource=lib.MessageSource(Chat=jid(CUSTOMER), Sender=jid(CUSTOMER)),
        MessageIDs=["A", "B"],
        Type=lib.Receipt.READ,
        Timestamp=1763800001,
    )
    client.fire("Receipt", receipt)
    assert [(e.message_id, e.status) for e in events[-2:]] == [("A", "read"), ("B", "read")]
    client.fire("Presence", lib.Presence(From=jid(CUSTOMER), Unavailable=True, LastSeen=1763800000))
    assert (events[-1].presence, events[-1].last_seen) == ("unavailable", 1763800000)
    typing = lib.ChatPresence(
        MessageSource=lib.MessageSource(Chat=jid(CUSTOMER), Sender=jid(CUSTOMER)),
        State=lib.ChatPresence.COMPOSING,
        Media=lib.ChatPresence.TEXT,
    )
    client.fire("ChatPresence", typing)
    assert events[-1].presence == "composing"
    old = web.WebMessageInfo(
        key=common.MessageKey(remoteJID=CUSTOMER, ID="OLD1", fromMe=True),
        message=wa.Message(conversation="antiga"),
        messageTimestamp=1700000000,
    )
    sync = lib.HistorySync(
        Data=history.HistorySync(
            syncType=history.HistorySync.RECENT,
            conversations=[history.Conversation(ID=CUSTOMER, messages=[history.HistorySyncMsg(message=old)])],
        )
    )
    client.fire("HistorySync", sync)
    assert (events[-1].id, events[-1].is_history, events[-1].text, events[-1].from_me) == (
        "OLD1",
        True,
        "antiga",
        True,
    )


@pytest.mark.parametrize(
    "event,expected",
    [
        (lib.LoggedOut(OnConnect=False), [DisconnectedEvent(reason="logged_out")]),
        (lib.StreamReplaced(), [DisconnectedEvent(reason="replaced")]),
        (
            lib.TemporaryBan(Code=lib.TemporaryBan.BLOCKED_BY_USERS, Expire=3600),
            [HealthEvent(status="BLOCKED", reason="banned"), DisconnectedEvent(reason="banned")],
        ),
        (lib.StreamError(Code="503"), [DisconnectedEvent(reason="stream_error")]),
        (lib.KeepAliveTimeout(), [HealthEvent(status="LIMITED", reason="keepalive_timeout")]),
    ],
)
def test_connection_events_carry_their_reason(connected, events, event, expected):
    _sid, client = connected
    client.fire(type(event).__name__, event)
    assert events[-len(expected) :] == expected


def test_group_and_call_events(connected, events):
    _sid, client = connected
    info = client.group_info("Equipe", [jid(CUSTOMER)])
    client.fire("JoinedGroup", lib.JoinedGroup(GroupInfo=info, Sender=jid(CUSTOMER)))
    joined = events[-1]
    assert (joined.name, joined.group, joined.subject, joined.by) == ("group_join", GROUP, "Equipe", CUSTOMER)
    assert [m.jid for m in joined.members] == ["5511999990001@s.whatsapp.net", CUSTOMER]
    client.get_group_info = lambda group_jid: info
    change = lib.GroupInfoEvent(
        JID=jid(GROUP), Sender=jid(CUSTOMER), Leave=[jid(CUSTOMER)], Timestamp=1763800000
    )
    client.fire("GroupInfo", change)
    assert (events[-1].name, events[-1].participants, events[-1].timestamp) == (
        "group_leave",
        (CUSTOMER,),
        1763800000,
    )
    offer = lib.CallOffer(basicCallMeta=lib.BasicCallMeta(**{"from": jid(CUSTOMER)}, callID="C1"))
    client.fire("CallOffer", offer)
    assert (events[-1].name, events[-1].caller, events[-1].call_id, events[-1].status) == (
        "call",
        CUSTOMER,
        "C1",
        "offer",
    )
