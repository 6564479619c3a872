"""Bots: create, change, delete, read, and their conversations (pause, resume). The API and the admin
both call these."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.errors import ValidationFailed
from core.timefmt import iso_millis
from integrations.bots.errors import BotNotFound
from integrations.bots.models import Bot, Conversation
from integrations.bots.rules import expired
from messaging.models import Session

RULE_FIELDS = {
    "trigger": "trigger",
    "operator": "trigger_operator",
    "value": "trigger_value",
    "ignoreGroups": "ignore_groups",
    "stopKeyword": "stop_keyword",
    "expireMinutes": "expire_minutes",
    "pauseMinutes": "pause_minutes",
    "debounceSeconds": "debounce_seconds",
}


def _apply(bot: Bot, values: dict[str, Any]) -> None:
    for name in ("name", "kind", "priority", "settings"):
        if name in values:
            setattr(bot, name, values[name])
    if "secret" in values:
        bot.secret = values["secret"]
    if "enabled" in values:
        if values["enabled"] and not bot.enabled:
            bot.consecutive_failures, bot.disabled_reason = 0, ""  # turned on again: a fresh start
        bot.enabled = values["enabled"]
    for wire, field in RULE_FIELDS.items():
        if wire in values.get("rules", {}):
            setattr(bot, field, values["rules"][wire])


def _secret_required(bot: Bot) -> None:
    if bot.kind == Bot.Kind.HTTP and not bot.secret:
        raise ValidationFailed(
            "secret: the http kind signs what it sends; give a signing secret (16+ characters)."
        )


@transaction.atomic
def bot_create(*, session: Session, values: dict[str, Any]) -> Bot:
    bot = Bot(session=session)
    _apply(bot, values)
    _secret_required(bot)
    bot.save()
    return bot


@transaction.atomic
def bot_update(*, bot: Bot, values: dict[str, Any]) -> Bot:
    """Replace the bot's settings and rules (PUT); the secret is kept unless given. A new kind starts
    every conversation afresh (a Typebot session means nothing to a model)."""
    kind_changed = values.get("kind", bot.kind) != bot.kind
    _apply(bot, values)
    _secret_required(bot)
    bot.save()
    if kind_changed:
        bot.conversations.update(state={})
    return bot


def bot_delete(*, bot: Bot) -> None:
    bot.delete()


def bots_of(sessions: QuerySet[Session]) -> QuerySet[Bot]:
    return Bot.objects.filter(session__in=sessions).order_by("session_id", "priority", "id")


def bot_get(*, sessions: QuerySet[Session], bot_id: int | str) -> Bot:
    try:
        return bots_of(sessions).select_related("session").get(pk=int(bot_id))
    except (Bot.DoesNotExist, ValueError, TypeError):
        raise BotNotFound() from None


def bot_data(bot: Bot) -> dict[str, Any]:
    return {
        "id": bot.pk,
        "sessionId": str(bot.session_id),
        "name": bot.name,
        "kind": bot.kind,
        "enabled": bot.enabled,
        "priority": bot.priority,
        "settings": bot.settings,
        "secretSet": bool(bot.secret),
        "rules": {wire: getattr(bot, field) for wire, field in RULE_FIELDS.items()},
        "disabledReason": bot.disabled_reason,
        "lastError": bot.last_error,
        "lastErrorAt": iso_millis(bot.last_error_at) if bot.last_error_at else None,
        "createdAt": iso_millis(bot.created_at),
        "updatedAt": iso_millis(bot.updated_at),
    }


def conversations_active(bot: Bot) -> list[dict[str, Any]]:
    """The chats where the bot is talking now (not ended, not expired), paused ones included."""
    now = timezone.now()
    rows = bot.conversations.filter(status=Conversation.Status.ACTIVE).order_by("-last_activity_at")
    return [
        {
            "chatId": row.chat,
            "status": "paused" if row.paused_until and row.paused_until > now else "active",
            "pausedUntil": iso_millis(row.paused_until)
            if row.paused_until and row.paused_until > now
            else None,
            "startedAt": iso_millis(row.started_at),
            "lastActivityAt": iso_millis(row.last_activity_at),
        }
        for row in rows
        if not expired(bot.expire_minutes, row.last_activity_at, now)
    ]


@transaction.atomic
def conversation_pause(*, bot: Bot, chat: str, minutes: int) -> None:
    """The bot stays quiet in `chat` for `minutes` (a person answers there), as a message sent by the
    session from elsewhere does."""
    conversation, _ = Conversation.objects.select_for_update().get_or_create(bot=bot, chat=chat)
    conversation.paused_until = timezone.now() + timedelta(minutes=minutes)
    conversation.save(update_fields=["paused_until"])


@transaction.atomic
def conversation_resume(*, bot: Bot, chat: str) -> bool:
    """The bot answers in `chat` again; False when it was not paused there."""
    return bool(
        bot.conversations.filter(chat=chat, paused_until__gt=timezone.now()).update(paused_until=None)
    )
