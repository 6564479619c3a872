"""The bots' domain errors, in the messaging interface's shape (core.errors renders them)."""

from __future__ import annotations

from core.errors import NotFound


class BotNotFound(NotFound):
    code = "BOT_NOT_FOUND"
    gateway_text = "Bot not found"
    default_message = "Bot not found."
