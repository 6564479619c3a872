"""ponte_client: a typed client for Ponte (bonds, messaging sessions, webhooks), sync and async."""

from ponte_client._http import RetryPolicy
from ponte_client.aio import AsyncClient
from ponte_client.bots import Bot, BotConversation, BotRules
from ponte_client.chat_actions import Label
from ponte_client.client import Client
from ponte_client.delivery_log import Delivery, DeliveryAttempt, DeliveryDetail, EventType, Resent
from ponte_client.directory import Chat, Contact, Group, GroupInvite, ParticipantStatus, SessionSettings
from ponte_client.errors import (
    AuthenticationError,
    BadRequestError,
    BondsAccessError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    PonteError,
    RateLimitError,
    ServerError,
)
from ponte_client.events import EVENT_NAMES, EventName, WebhookBody
from ponte_client.lids import LidPair
from ponte_client.lists import LinkPreview, ListRow, ListSection
from ponte_client.models import (
    Bond,
    BondList,
    Connection,
    Page,
    PairingCode,
    PollOption,
    PollResults,
    QrCode,
    SentMessage,
    Session,
    Webhook,
)
from ponte_client.newsletters import Channel
from ponte_client.ops import NO_RATE_LIMIT, BondFilterWarning
from ponte_client.signatures import WebhookVerificationError, verify_webhook
from ponte_client.status import Status

__all__ = [
    "EVENT_NAMES",
    "NO_RATE_LIMIT",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "Bond",
    "BondFilterWarning",
    "BondList",
    "BondsAccessError",
    "Bot",
    "BotConversation",
    "BotRules",
    "Channel",
    "Chat",
    "Client",
    "ConflictError",
    "Connection",
    "Contact",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryDetail",
    "EventName",
    "EventType",
    "Group",
    "GroupInvite",
    "Label",
    "LidPair",
    "LinkPreview",
    "ListRow",
    "ListSection",
    "NotFoundError",
    "Page",
    "PairingCode",
    "ParticipantStatus",
    "PermissionDeniedError",
    "PollOption",
    "PollResults",
    "PonteError",
    "QrCode",
    "RateLimitError",
    "Resent",
    "RetryPolicy",
    "SentMessage",
    "ServerError",
    "Session",
    "SessionSettings",
    "Status",
    "Webhook",
    "WebhookBody",
    "WebhookVerificationError",
    "verify_webhook",
]
