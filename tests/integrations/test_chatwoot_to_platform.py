"""Customer → platform: what the customer does on the channel appears in the Chatwoot inbox (the mirror's
jobs are run in this process by the task's own code; tests/integrations/test_chatwoot_worker.py runs
them on a real Celery worker)."""

from __future__ import annotations

import pytest

from integrations.chatwoot.models import ChatLink, MessageLink, MirrorJob
from messaging.engines.events import MessageEvent, QuotedRef
from messaging.services.events import engine_event_receive
from tests.integrations.chatwoot_standin import INBOX_ID
from tests.integrations.support import CUSTOMER, drain_all, inbound, media

pytestmark = pytest.mark.django_db
JID = f"{CUSTOMER}@s.whatsapp.net"


def _messages(chatwoot):
    return [m for m in chatwoot.messages.values() if not m["private"]]


def test_a_customer_text_creates_the_contact_and_conversation_and_arrives_as_incoming(
    admin_client, integration, chatwoot
):
    inbound(admin_client, integration.session, text="Olá, preciso de ajuda", pushName="Maria")
    drain_all(integration)
    (contact,) = chatwoot.contacts.values()
    assert contact["identifier"] == JID and contact["phone_number"] == f"+{CUSTOMER}"
    assert contact["name"] == "Maria"
    (conversation,) = chatwoot.conversations.values()
    assert conversation["inbox_id"] == INBOX_ID
    (message,) = _messages(chatwoot)
    assert message["content"] == "Olá, preciso de ajuda"
    assert message["message_type"] == 0
    assert message["source_id"].startswith("WAID:")
    assert message["content_attributes"]["external_created_at"] > 0  # the channel's own timestamp
    # A second message reuses the contact and the conversation.
    inbound(admin_client, integration.session, text="Alguém?")
    drain_all(integration)
    assert len(chatwoot.contacts) == 1 and len(chatwoot.conversations) == 1
    assert [m["content"] for m in _messages(chatwoot)] == ["Olá, preciso de ajuda", "Alguém?"]


def test_the_same_channel_message_reported_twice_is_mirrored_once(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, text="uma vez", messageId="3EB0AAAA0000000001")
    inbound(admin_client, integration.session, text="uma vez", messageId="3EB0AAAA0000000001")
    drain_all(integration)
    assert [m["content"] for m in _messages(chatwoot)] == ["uma vez"]


def test_an_anonymous_contact_keeps_its_id_and_gets_no_phone_number(integration, chatwoot):
    event = MessageEvent(
        id="LID0001",
        chat_jid="98765432101234@lid",
        sender="98765432101234@lid",
        text="oi",
        timestamp=1_763_900_000,
    )
    engine_event_receive(str(integration.session_id), event)
    drain_all(integration)
    (contact,) = chatwoot.contacts.values()
    assert contact["identifier"] == "98765432101234@lid"
    assert contact["phone_number"] is None
    (message,) = _messages(chatwoot)
    assert message["content_attributes"]["external_created_at"] == 1_763_900_000


def test_attachments_arrive_as_multipart_files_under_their_real_names(admin_client, integration, chatwoot):
    pdf = b"%PDF-1.4 contrato"
    inbound(
        admin_client,
        integration.session,
        type="document",
        media=media(pdf, "application/pdf", "contrato.pdf"),
        fileName="contrato.pdf",
        caption="segue o contrato",
    )
    inbound(admin_client, integration.session, type="voice", media=media(b"OggS-voice", "audio/ogg"))
    drain_all(integration)
    document, voice = _messages(chatwoot)
    assert document["content"] == "segue o contrato"
    (file,) = document["attachments"]
    assert (file["file_name"], file["content_type"], file["content"]) == (
        "contrato.pdf",
        "application/pdf",
        pdf,
    )
    (audio,) = voice["attachments"]
    assert audio["content_type"] == "audio/ogg" and audio["file_type"] == "audio"  # played as audio
    assert audio["file_name"].startswith("voice-") and audio["file_name"].endswith(".ogg")


def test_media_over_40_mb_arrives_as_a_notice(admin_client, integration, chatwoot):
    inbound(
        admin_client,
        integration.session,
        type="document",
        mediaUrl=f"{chatwoot.url}/files/big.bin",
        mimeType="application/octet-stream",
        fileName="backup.zip",
    )
    drain_all(integration)
    (message,) = _messages(chatwoot)
    assert message["attachments"] == []
    assert "backup.zip" in message["content"] and "40 MB" in message["content"]


def test_media_the_download_refuses_arrives_as_a_notice(admin_client, integration, chatwoot):
    inbound(
        admin_client,
        integration.session,
        type="image",
        mediaUrl=f"{chatwoot.url}/files/missing.jpg",
        mimeType="image/jpeg",
    )
    drain_all(integration)
    (message,) = _messages(chatwoot)
    assert message["attachments"] == [] and "was not mirrored" in message["content"]
    assert MirrorJob.objects.get().status == MirrorJob.Status.DONE


def test_a_reply_quotes_the_mirrored_message_natively(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, text="primeira", messageId="3EB0QUOTED0000001")
    drain_all(integration)
    first = MessageLink.objects.get(message_id="3EB0QUOTED0000001")
    event = MessageEvent(
        id="3EB0REPLY00000001",
        chat_jid=JID,
        sender=JID,
        text="respondendo",
        quoted=QuotedRef(message_id="3EB0QUOTED0000001"),
    )
    engine_event_receive(str(integration.session_id), event)
    drain_all(integration)
    reply = next(m for m in _messages(chatwoot) if m["source_id"] == "WAID:3EB0REPLY00000001")
    assert reply["content_attributes"]["in_reply_to"] == first.chatwoot_id


def test_a_resolved_conversation_is_reopened_when_the_option_says_so(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, text="um")
    drain_all(integration)
    (conversation,) = chatwoot.conversations.values()
    conversation["status"] = "resolved"
    inbound(admin_client, integration.session, text="dois")
    drain_all(integration)
    assert len(chatwoot.conversations) == 1 and conversation["status"] == "open"


def test_a_resolved_conversation_is_left_alone_without_the_option(admin_client, integration, chatwoot):
    integration.reopen_conversations = False
    integration.save()
    inbound(admin_client, integration.session, text="um")
    drain_all(integration)
    (conversation,) = chatwoot.conversations.values()
    conversation["status"] = "resolved"
    inbound(admin_client, integration.session, text="dois")
    drain_all(integration)
    assert len(chatwoot.conversations) == 2 and conversation["status"] == "resolved"
    assert ChatLink.objects.get().conversation_id != conversation["id"]


def test_the_customers_typing_shows_in_the_open_conversation_and_never_opens_one(
    admin_client, integration, chatwoot
):
    inbound(admin_client, integration.session, event="presence", **{"from": CUSTOMER}, presence="composing")
    drain_all(integration)
    assert chatwoot.conversations == {} and chatwoot.typing == []
    inbound(admin_client, integration.session, text="oi")
    drain_all(integration)
    inbound(admin_client, integration.session, event="presence", **{"from": CUSTOMER}, presence="composing")
    inbound(admin_client, integration.session, event="presence", **{"from": CUSTOMER}, presence="paused")
    drain_all(integration)
    (conversation_id,) = chatwoot.conversations
    assert chatwoot.typing == [(conversation_id, "on"), (conversation_id, "off")]


def test_a_paused_integration_mirrors_nothing(admin_client, integration, chatwoot):
    integration.enabled = False
    integration.save()
    inbound(admin_client, integration.session, text="ninguém vê")
    assert not MirrorJob.objects.exists()


def test_without_importing_contacts_only_chats_with_a_chatwoot_contact_are_mirrored(
    admin_client, integration, chatwoot
):
    integration.import_contacts = False
    integration.save()
    inbound(admin_client, integration.session, text="desconhecido")
    drain_all(integration)
    assert chatwoot.contacts == {} and chatwoot.messages == {}
    assert MirrorJob.objects.get().status == MirrorJob.Status.DONE
    chatwoot.contacts[55] = {
        "id": 55,
        "name": "Maria",
        "identifier": JID,
        "phone_number": f"+{CUSTOMER}",
        "contact_inboxes": [{"inbox": {"id": INBOX_ID}, "source_id": "src-55"}],
    }
    inbound(admin_client, integration.session, text="conhecida")
    drain_all(integration)
    assert [m["content"] for m in _messages(chatwoot)] == ["conhecida"]
    assert ChatLink.objects.get().contact_id == 55


def test_finished_jobs_are_purged_after_their_retention(admin_client, integration, chatwoot):
    from datetime import timedelta

    from django.utils import timezone

    from integrations.chatwoot.jobs import QUEUE

    inbound(admin_client, integration.session, text="antiga")
    inbound(admin_client, integration.session, text="recente")
    drain_all(integration)
    old = MirrorJob.objects.get(payload__text="antiga")
    MirrorJob.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=2))
    assert QUEUE.purge() == 1
    assert list(MirrorJob.objects.values_list("payload__text", flat=True)) == ["recente"]


def test_a_persons_messages_under_its_linked_id_join_the_conversation_of_its_number(
    admin_client, integration, chatwoot
):
    inbound(admin_client, integration.session, text="pelo número", pushName="Maria")
    drain_all(integration)
    lid = "98765432101234@lid"
    event = MessageEvent(
        id="LID0002", chat_jid=lid, sender=lid, sender_pn=JID, text="pelo lid", timestamp=1_763_900_000
    )
    engine_event_receive(str(integration.session_id), event)
    drain_all(integration)
    assert len(chatwoot.contacts) == 1 and len(chatwoot.conversations) == 1
    assert [m["content"] for m in _messages(chatwoot)] == ["pelo número", "pelo lid"]
