"""Which webhook fields a Messenger page or Instagram account sends Ponte (Graph `subscribed_apps`)."""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import ValidationFailed
from messaging.channels import CHANNEL_NAMES, INSTAGRAM, PAGE_PROVIDERS, graph
from messaging.channels.models import ChannelAccount
from messaging.channels.outbound import translate
from messaging.errors import OperationNotSupported
from messaging.models import Session
from messaging.services.engine import engine_errors

#: What Ponte turns into events, per channel: messages, edits, reactions, postbacks, reads, deliveries.
REQUIRED_FIELDS = {
    "messenger": (
        "messages",
        "message_edits",
        "message_reactions",
        "messaging_postbacks",
        "message_reads",
        "message_deliveries",
    ),
    INSTAGRAM: ("messages", "message_reactions", "messaging_postbacks", "messaging_seen"),
}


@dataclass(frozen=True)
class WebhookFields:
    required: tuple[str, ...]
    subscribed: tuple[str, ...]
    added: tuple[str, ...] = ()

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(f for f in self.required if f not in self.subscribed)


def _account(session: Session) -> ChannelAccount:
    if session.provider not in PAGE_PROVIDERS:
        name = CHANNEL_NAMES.get(session.provider, session.provider)
        raise OperationNotSupported(
            f"{name} sessions have no page subscriptions: webhook fields belong to Messenger and Instagram."
        )
    account = ChannelAccount.objects.filter(session=session).first()
    if account is None or not account.credentials:
        raise ValidationFailed("The session has no channel credentials.")
    return account


def _call(account: ChannelAccount, method: str, params: dict | None = None) -> dict:
    path = f"{account.credential('pageId')}/subscribed_apps"
    try:
        return graph.call(method, path, account.credential("pageAccessToken"), params=params)
    except graph.GraphError as exc:
        with engine_errors():
            raise translate(exc, account) from None


def _subscribed(account: ChannelAccount) -> tuple[str, ...]:
    fields: set[str] = set()
    for app in _call(account, "GET").get("data") or []:
        if isinstance(app, dict):
            fields.update(str(f) for f in app.get("subscribed_fields") or [])
    return tuple(sorted(fields))


def webhook_fields_get(*, session: Session) -> WebhookFields:
    account = _account(session)
    return WebhookFields(REQUIRED_FIELDS[session.provider], _subscribed(account))


def webhook_fields_subscribe(*, session: Session) -> WebhookFields:
    """Subscribe the missing fields (the ones already there stay); answers the state afterwards."""
    account = _account(session)
    before = WebhookFields(REQUIRED_FIELDS[session.provider], _subscribed(account))
    if not before.missing:
        return before
    wanted = sorted(set(before.subscribed) | set(before.required))
    _call(account, "POST", {"subscribed_fields": ",".join(wanted)})
    return WebhookFields(before.required, _subscribed(account), added=before.missing)
