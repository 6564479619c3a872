"""The WhatsApp driver's group administration, pictures and session settings, against the stand-in
client fed with neonize's own types: commands → library calls, library events → Ponte events."""

from __future__ import annotations

import pytest
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import ParticipantChange, Presence, ReceiptType

from messaging.engines.base import EngineNotFound, SessionBehaviour
from messaging.engines.whatsapp.driver import WhatsAppDriver, library_client
from messaging.engines.whatsapp.outbound import to_jid
from messaging.engines.whatsapp.store import store_dsn
from messaging.models import Session, SessionSettings
from tests.messaging.whatsapp_standin_groups import GroupAdminStandIn

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880003@s.whatsapp.net"
MEMBER = "5511988880002@s.whatsapp.net"
NOBODY = "5511988880000@s.whatsapp.net"
GROUP = "120363000000000001@g.us"


def jid(value: str) -> lib.JID:
    user, _, server = value.partition("@")
    return lib.JID(User=user, Server=server)


@pytest.fixture
def events():
    return []


@pytest.fixture
def session(account) -> Session:
    return Session.objects.create(account=account, name="wa")


@pytest.fixture
def connected(settings, session, events):
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    clients: dict = {}

    def factory(*args):
        clients[args[1]] = GroupAdminStandIn(*args)
        return clients[args[1]]

    driver = WhatsAppDriver(on_event=lambda sid, ev: events.append(ev), client_factory=factory)
    sid = str(session.pk)
    assert driver.connect(sid).status == "qr"
    clients[sid].fire("Connected", lib.Connected(status=True))
    yield driver, sid, clients[sid]
    driver.stop(sid)


def behave(session, **settings):
    SessionSettings.objects.update_or_create(session=session, defaults=settings)


def test_participants_are_added_and_removed_with_each_ones_status(connected):
    driver, sid, client = connected
    added = driver.group_participants_add(sid, GROUP, [CUSTOMER, MEMBER, NOBODY])
    assert [(r.jid, r.status) for r in added] == [
        (CUSTOMER, "added"),
        (MEMBER, "already_a_participant"),
        (NOBODY, "not_on_whatsapp"),
    ]
    (group, participants, action), _ = client.last("update_group_participants")
    assert (group, [p.User for p in participants], action) == (
        to_jid(GROUP),
        ["5511988880003", "5511988880002", "5511988880000"],
        ParticipantChange.ADD,
    )
    removed = driver.group_participants_remove(sid, GROUP, [CUSTOMER, NOBODY])
    assert [(r.jid, r.status) for r in removed] == [(CUSTOMER, "removed"), (NOBODY, "not_a_participant")]
    assert client.last("update_group_participants")[0][2] == ParticipantChange.REMOVE


def test_subject_description_and_settings_use_the_librarys_calls_and_answer_the_group(connected):
    driver, sid, client = connected
    info = driver.group_set_subject(sid, GROUP, "Vendas")
    assert client.last("set_group_name")[0] == (to_jid(GROUP), "Vendas")
    assert (info.jid, info.description, info.announce, info.locked) == (GROUP, "Sobre", True, False)
    driver.group_set_description(sid, GROUP, "Só vendas")
    assert client.last("set_group_topic")[0] == (to_jid(GROUP), "TOPIC1", "", "Só vendas")
    driver.group_set_settings(sid, GROUP, True, None)
    assert client.last("set_group_announce")[0] == (to_jid(GROUP), True)
    assert not any(name == "set_group_locked" for name, _, _ in client.calls)
    driver.group_set_settings(sid, GROUP, None, True)
    assert client.last("set_group_locked")[0] == (to_jid(GROUP), True)


def test_invite_links_and_joining(connected):
    driver, sid, client = connected
    invite = driver.group_invite(sid, GROUP)
    assert (invite.code, invite.url) == ("Code123abc", "https://chat.whatsapp.com/Code123abc")
    assert client.last("get_group_invite_link")[0] == (to_jid(GROUP), False)
    assert driver.group_invite(sid, GROUP, revoke=True).code == "NewCode456"
    assert client.last("get_group_invite_link")[0] == (to_jid(GROUP), True)
    assert driver.group_join(sid, "Code123abc").jid == GROUP
    with pytest.raises(EngineNotFound) as refused:
        driver.group_join(sid, "REVOKED")
    assert refused.value.kind == "invite"


def test_pictures_are_urls_or_none_when_hidden_or_absent(connected):
    driver, sid, client = connected
    assert driver.contact_picture(sid, CUSTOMER) == "https://pps.whatsapp.net/v/5511988880003.jpg"
    assert client.last("get_profile_picture")[0][1].Preview is False
    assert driver.contact_picture(sid, "5511988880009@s.whatsapp.net") is None
    assert driver.contact_picture(sid, NOBODY) is None


def test_group_info_changes_become_a_group_update_naming_what_changed(connected, events):
    _driver, _sid, client = connected
    change = lib.GroupInfoEvent(
        JID=jid(GROUP),
        Sender=jid(MEMBER),
        Topic=lib.GroupTopic(Topic="Sobre"),
        Announce=lib.GroupAnnounce(IsAnnounce=True),
        Timestamp=1763800000,
    )
    client.fire("GroupInfo", change)
    update = events[-1]
    assert (update.name, update.changed, update.description, update.announce, update.locked) == (
        "group_update",
        ("description", "announce"),
        "Sobre",
        True,
        None,
    )
    assert update.to_data()["changed"] == ["description", "announce"]


def test_a_call_is_rejected_through_the_library_and_the_caller_gets_the_message(connected, events, session):
    _driver, _sid, client = connected
    behave(session, reject_calls=True, reject_call_message="Só texto")
    offer = lib.CallOffer(basicCallMeta=lib.BasicCallMeta(**{"from": jid(CUSTOMER)}, callID="C1"))
    client.fire("CallOffer", offer)
    (caller, call_id), _ = client.last("reject_call")
    assert (caller, call_id) == (jid(CUSTOMER), "C1")
    to, message = client.last("send_message")[0]
    assert (to.User, message.conversation) == ("5511988880003", "Só texto")
    call, told = events[-2:]
    assert (call.name, call.status, call.caller, call.reject_message) == (
        "call",
        "reject",
        CUSTOMER,
        "Só texto",
    )
    assert (told.name, told.from_me, told.chat, told.text) == ("message", True, CUSTOMER, "Só texto")


def test_ignored_group_messages_are_dropped_and_others_read_at_once(connected, events, session):
    _driver, _sid, client = connected
    behave(session, ignore_groups=True, read_messages=True)

    def message(chat: str) -> lib.Message:
        source = lib.MessageSource(Chat=jid(chat), Sender=jid(MEMBER), IsGroup=chat.endswith("g.us"))
        info = lib.MessageInfo(MessageSource=source, ID="3EB0IN", Pushname="Maria", Timestamp=1763800000)
        return lib.Message(Message=wa.Message(conversation="oi"), Info=info)

    seen = len(events)
    client.fire("Message", message(GROUP))
    assert len(events) == seen
    client.fire("Message", message(MEMBER))
    assert events[-1].chat == MEMBER
    ids, marks = client.last("mark_read")
    assert ids == ("3EB0IN",) and marks["receipt"] == ReceiptType.READ


def test_always_online_keeps_the_presence_available(connected, session):
    driver, sid, client = connected
    behave(session, always_online=True)
    driver.settings_apply(sid, SessionBehaviour(always_online=True))
    assert client.last("send_presence")[0] == (Presence.AVAILABLE,)
    calls = len(client.calls)
    driver.send_presence(sid, "", "unavailable")
    assert len(client.calls) == calls  # not sent while always online
    client.fire("Connected", lib.Connected(status=True))
    assert client.last("send_presence")[0] == (Presence.AVAILABLE,)


def test_a_new_pairing_asks_for_the_full_history_when_set(session):
    behave(session, sync_full_history=True)
    client = library_client(store_dsn(), str(session.pk), "")
    assert client.device_props.requireFullSync is True
    other = Session.objects.create(account=session.account, name="other")
    assert library_client(store_dsn(), str(other.pk), "").device_props.requireFullSync is False
