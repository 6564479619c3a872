"""`{{ delivery.last_error|customer_error }}`: a recorded delivery error in plain words
(webhooks.delivery_errors)."""

from __future__ import annotations

from django import template

from webhooks.delivery_errors import customer_error_text

register = template.Library()


@register.filter
def customer_error(error: str) -> str:
    return customer_error_text(error)
