"""Helpers of the instance-webhook tests: a configured session and the body an event produced."""

from __future__ import annotations

from typing import Any

from messaging.models import Session
from webhooks.models import Delivery, InstanceWebhookConfig
from webhooks.services import emit

DEFAULT_URL = "http://127.0.0.1:9/default"
OWN_JID = "5511900000001@s.whatsapp.net"
CONTACT_JID = "5511988887777@s.whatsapp.net"
GROUP_JID = "120363025246125486@g.us"


def instance_session(
    account, *, provider: str = "whatsapp", official: bool = False, name: str = "inst"
) -> Session:
    return Session.objects.create(
        account=account,
        name=name,
        status=Session.Status.CONNECTED,
        provider=provider,
        official=official,
        jid=OWN_JID,
        phone="+55 11 90000-0001",
    )


def configure(session: Session, **settings: Any) -> InstanceWebhookConfig:
    """Saved straight through the ORM: these tests are about routing and rendering, not validation."""
    values = {"allow_webhook": True, "webhook_message": DEFAULT_URL, **settings}
    config, _ = InstanceWebhookConfig.objects.update_or_create(session=session, defaults=values)
    return config


def message(**data: Any) -> dict[str, Any]:
    """A `message` event's data as engines emit it (seed 002 fields)."""
    return {
        "id": "3EB0C767D26A1D6F0001",
        "chat": CONTACT_JID,
        "sender": CONTACT_JID,
        "pushName": "Maria Souza",
        "text": "",
        "timestamp": 1763800000,
        "fromMe": False,
        "type": "text",
        "mediaUrl": None,
        **data,
    }


def deliveries_of(session: Session, name: str, data: dict[str, Any], *, chat: str = "") -> list[Delivery]:
    event = emit(session_id=session.id, name=name, data=data, chat=chat)
    return list(Delivery.objects.filter(event=event, kind=Delivery.Kind.INSTANCE))


def body_of(session: Session, name: str, data: dict[str, Any], *, chat: str = "") -> dict[str, Any]:
    (delivery,) = deliveries_of(session, name, data, chat=chat)
    return delivery.payload
