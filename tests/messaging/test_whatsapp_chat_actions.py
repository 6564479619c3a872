"""The WhatsApp driver's chat actions, blocks and labels against the stand-in client fed with neonize's
own types: each action → the app-state patch whatsmeow builds (PatchInfo, MutationInfo, SyncActionValue)
or `update_blocklist`, returning its events; the library's Blocklist event → `contact_block`."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from neonize.exc import SendAppStateError
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waHistorySync import WAWebProtobufsHistorySync_pb2 as h
from neonize.utils.enum import BlocklistAction

from messaging.engines.base import EngineError, EngineNotConnected
from messaging.engines.chat_events import (
    ChatMuteEvent,
    ChatPinEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelAssociationEvent,
    LabelEditEvent,
)
from messaging.engines.events import ChatArchiveEvent
from messaging.engines.whatsapp.driver import WhatsAppDriver
from messaging.models import Chat, Session
from tests.messaging.whatsapp_standin import StandInClient

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880003@s.whatsapp.net"
GROUP = "120363000000000001@g.us"


class AppStateStandIn(StandInClient):
    refuse = False

    def send_app_state(self, patch: lib.PatchInfo) -> None:
        assert isinstance(patch, lib.PatchInfo)
        lib.PatchInfo.FromString(patch.SerializeToString())  # what the library hands to Go
        self._record("send_app_state", patch)
        if self.refuse:
            raise SendAppStateError("server returned error 409")

    def update_blocklist(self, jid: lib.JID, action: BlocklistAction) -> lib.Blocklist:
        self._record("update_blocklist", jid, action)
        return lib.Blocklist(DHash="1", JIDs=[jid] if action is BlocklistAction.BLOCK else [])


@pytest.fixture
def session(account) -> Session:
    return Session.objects.create(account=account, name="wa")


@pytest.fixture
def connected(settings, session):
    settings.WHATSAPP_QR_WAIT_SECONDS = 5
    clients: dict = {}
    reported: list = []

    def factory(*args):
        clients[args[1]] = AppStateStandIn(*args)
        return clients[args[1]]

    driver = WhatsAppDriver(on_event=lambda sid, ev: reported.append(ev), client_factory=factory)
    sid = str(session.pk)
    assert driver.connect(sid).status == "qr"
    clients[sid].fire("Connected", lib.Connected(status=True))
    yield driver, sid, clients[sid], reported
    driver.stop(sid)


def patch_of(client) -> lib.PatchInfo:
    return client.last("send_app_state")[0][0]


def strip(events):
    return [type(e)(**{**e.__dict__, "timestamp": None}) for e in events]


def test_archiving_sends_whatsmeows_archive_patch_and_unpins(connected, session):
    driver, sid, client, _ = connected
    last = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
    Chat.objects.create(session=session, jid=CUSTOMER, last_message_at=last)
    events = driver.chat_archive(sid, CUSTOMER, True)
    assert strip(events) == [
        ChatArchiveEvent(chat_jid=CUSTOMER),
        ChatPinEvent(chat_jid=CUSTOMER, pinned=False),
    ]
    patch = patch_of(client)
    assert patch.Type == lib.PatchInfo.REGULAR_LOW
    archive, unpin = patch.Mutations
    assert list(archive.Index) == ["archive", CUSTOMER] and archive.Version == 3
    assert archive.Value.archiveChatAction.archived is True
    assert archive.Value.archiveChatAction.messageRange.lastMessageTimestamp == int(last.timestamp())
    assert list(unpin.Index) == ["pin_v1", CUSTOMER] and unpin.Value.pinAction.pinned is False
    assert len(driver.chat_archive(sid, CUSTOMER, False)) == 1  # unarchiving leaves the pin alone


def test_pin_mute_and_unread_send_their_patches(connected):
    driver, sid, client, _ = connected
    assert strip(driver.chat_pin(sid, GROUP, True)) == [ChatPinEvent(chat_jid=GROUP, pinned=True)]
    pin = patch_of(client).Mutations[0]
    assert (list(pin.Index), pin.Version, pin.Value.pinAction.pinned) == (["pin_v1", GROUP], 5, True)

    until = "2026-12-01T10:00:00+00:00"
    assert strip(driver.chat_mute(sid, CUSTOMER, until)) == [
        ChatMuteEvent(chat_jid=CUSTOMER, muted_until=until)
    ]
    patch = patch_of(client)
    mute = patch.Mutations[0]
    assert patch.Type == lib.PatchInfo.REGULAR_HIGH and list(mute.Index) == ["mute", CUSTOMER]
    assert mute.Version == 2 and mute.Value.muteAction.muted is True
    assert mute.Value.muteAction.muteEndTimestamp == int(datetime.fromisoformat(until).timestamp() * 1000)
    driver.chat_mute(sid, CUSTOMER, None)
    assert patch_of(client).Mutations[0].Value.muteAction.muted is False

    assert strip(driver.chat_unread(sid, CUSTOMER, True)) == [ChatUnreadEvent(chat_jid=CUSTOMER, unread=True)]
    mark = patch_of(client).Mutations[0]
    assert list(mark.Index) == ["markChatAsRead", CUSTOMER] and mark.Version == 3
    assert mark.Value.markChatAsReadAction.read is False


def test_labels_are_app_state_patches_too(connected):
    driver, sid, client, _ = connected
    events = driver.label_edit(sid, "4", "VIP", 7)
    assert strip(events) == [LabelEditEvent(label_id="4", label_name="VIP", color=7)]
    patch = patch_of(client)
    edit = patch.Mutations[0]
    assert patch.Type == lib.PatchInfo.REGULAR and list(edit.Index) == ["label_edit", "4"]
    assert (edit.Value.labelEditAction.name, edit.Value.labelEditAction.color) == ("VIP", 7)
    driver.label_edit(sid, "4", "VIP", 7, deleted=True)
    assert patch_of(client).Mutations[0].Value.labelEditAction.deleted is True
    events = driver.chat_label(sid, CUSTOMER, "4", True)
    assert strip(events) == [LabelAssociationEvent(label_id="4", chat_jid=CUSTOMER, labeled=True)]
    association = patch_of(client).Mutations[0]
    assert list(association.Index) == ["label_jid", "4", CUSTOMER]
    assert association.Value.labelAssociationAction.labeled is True


def test_blocking_calls_update_blocklist(connected):
    driver, sid, client, _ = connected
    assert strip(driver.contact_block(sid, CUSTOMER, True)) == [ContactBlockEvent(jid=CUSTOMER, blocked=True)]
    (jid, action), _ = client.last("update_blocklist")
    assert (jid.User, jid.Server, action) == ("5511988880003", "s.whatsapp.net", BlocklistAction.BLOCK)
    driver.contact_block(sid, CUSTOMER, False)
    assert client.last("update_blocklist")[0][1] is BlocklistAction.UNBLOCK


def test_the_phones_blocks_arrive_as_contact_block_events(connected):
    _, _, client, reported = connected
    changes = [
        lib.BlocklistChange(JID=lib.JID(User="5511988880003", Server="s.whatsapp.net"), BlockAction=1),
        lib.BlocklistChange(JID=lib.JID(User="5511988880004", Server="s.whatsapp.net"), BlockAction=2),
    ]
    client.fire("Blocklist", lib.BlocklistEvent(Action=lib.BlocklistEvent.MODIFY, Changes=changes))
    assert [e for e in reported if isinstance(e, ContactBlockEvent)] == [
        ContactBlockEvent(jid="5511988880003@s.whatsapp.net", blocked=True),
        ContactBlockEvent(jid="5511988880004@s.whatsapp.net", blocked=False),
    ]


def test_a_refused_patch_and_a_session_not_connected_raise_engine_errors(connected, settings, session):
    driver, sid, client, _ = connected
    client.refuse = True
    with pytest.raises(Exception) as refused:
        driver.chat_pin(sid, CUSTOMER, True)
    assert isinstance(refused.value, EngineError)  # the contract's error, not the library's
    with pytest.raises(EngineNotConnected):
        WhatsAppDriver(client_factory=lambda *a: AppStateStandIn(*a)).chat_pin(sid, CUSTOMER, True)


def test_a_history_sync_brings_the_phones_chat_state(connected):
    _, _, client, reported = connected
    later = int(datetime.now(tz=UTC).timestamp()) + 3600
    conversations = [
        h.Conversation(ID=CUSTOMER, archived=True, markedAsUnread=True, muteEndTime=later),
        h.Conversation(ID=GROUP, pinned=1763800000, muteEndTime=1000),  # a mute long over: not muted
    ]
    sync = h.HistorySync(syncType=h.HistorySync.INITIAL_BOOTSTRAP, conversations=conversations)
    client.fire("HistorySync", lib.HistorySync(Data=sync))
    until = datetime.fromtimestamp(later, tz=UTC).isoformat()
    assert [e for e in reported if e.name.startswith("chat_")] == [
        ChatArchiveEvent(chat_jid=CUSTOMER, archived=True),
        ChatMuteEvent(chat_jid=CUSTOMER, muted_until=until),
        ChatUnreadEvent(chat_jid=CUSTOMER, unread=True),
        ChatPinEvent(chat_jid=GROUP, pinned=True),
    ]
