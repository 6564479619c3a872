"""The webhooks app's tables, one module per subject; Django looks for an app's models here, so each is
imported below, and callers import them from `webhooks.models` as before."""

from webhooks.models.deliveries import Delivery, DeliveryAttempt, new_dispatch_id
from webhooks.models.events import Event, EventSequence
from webhooks.models.instance import InstanceWebhookConfig
from webhooks.models.registered import Webhook, WebhookPace, WebhookReplay, WebhookSend, new_webhook_id
from webhooks.models.stream import StreamJob

__all__ = [
    "Delivery",
    "DeliveryAttempt",
    "Event",
    "EventSequence",
    "InstanceWebhookConfig",
    "StreamJob",
    "Webhook",
    "WebhookPace",
    "WebhookReplay",
    "WebhookSend",
    "new_dispatch_id",
    "new_webhook_id",
]
