"""Errors of registered webhooks and instance webhooks; rendered by core.errors."""

from __future__ import annotations

from accounts.errors import PlanLimitReached
from core.errors import NotFound


class WebhookNotFound(NotFound):
    code = "WEBHOOK_NOT_FOUND"
    gateway_text = "Webhook not found"
    default_message = "Webhook not found."


class WebhookLimitReached(PlanLimitReached):
    gateway_text = "Webhook limit reached"
    default_message = "The account's plan allows no more webhooks."


class InstanceNotFound(NotFound):
    code = "INSTANCE_NOT_FOUND"
    gateway_text = "Instance not found"
    default_message = "Instance not found: no session has this instance key."


class DeliveryNotFound(NotFound):
    code = "DELIVERY_NOT_FOUND"
    gateway_text = "Delivery not found"
    default_message = "Delivery not found."
