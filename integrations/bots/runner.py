"""What one bot job does, on a worker and in no transaction (its calls leave Ponte): an `answer` asks
the bot's service and sends its replies as the session's own messages (stored, emitted as `fromMe`
events, counted in the plan's quota, typing shown meanwhile where the engine can); an `outgoing` job
pauses the bot in its chat unless the message was one of the bot's own replies (a person took over).

A failed call is retried on the schedule when it may pass (unreachable, 5xx, throttled) and dead at
once when repeating cannot help; every failed attempt counts against the bot, which is disabled with
the reason after PONTE_BOT_DISABLE_AFTER failures in a row (as webhooks are)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from core.errors import ApplicationError
from integrations.bots.kinds import BotCallFailed, Reply, Turn, http, openai, typebot
from integrations.bots.models import Bot, BotJob, Conversation
from integrations.bots.rules import expired
from jobs.policy import Outcome
from messaging.services.chats import chat_presence
from messaging.services.lists import message_send_list
from messaging.services.media import message_send_media
from messaging.services.messages import message_send_text
from messaging.values import ListMessage, ListRow, ListSection

logger = logging.getLogger(__name__)

KINDS = {Bot.Kind.HTTP: http.answer, Bot.Kind.OPENAI: openai.answer, Bot.Kind.TYPEBOT: typebot.answer}
SENT_IDS_KEPT = 50


class ReplyRefused(Exception):
    """A reply could not be sent (the session disconnected, the quota is spent, bad media...):
    not retried, so replies already sent are not sent twice."""


def conversation_for(bot: Bot, chat: str) -> Conversation:
    conversation, _ = Conversation.objects.get_or_create(bot=bot, chat=chat)
    return conversation


def outgoing_handle(bot: Bot, job: BotJob) -> None:
    conversation = conversation_for(bot, job.chat)
    ids = {item.get("id") for item in job.messages}
    if ids & set(conversation.sent_ids):
        return  # the echo of the bot's own reply
    conversation.paused_until = timezone.now() + timedelta(minutes=bot.pause_minutes)
    conversation.save(update_fields=["paused_until"])


def _typing(bot: Bot, chat: str, presence: str) -> None:
    try:
        chat_presence(session=bot.session, chat=chat, presence=presence)
    except ApplicationError:  # not every engine shows typing, nor a disconnected session
        logger.debug("No typing shown in %s for bot %s", chat, bot.pk)


def reply_send(bot: Bot, chat: str, reply: Reply) -> str:
    """Send one reply as the session's own message; its message id."""
    session = bot.session
    try:
        if reply.kind == "text":
            message = message_send_text(session=session, to=chat, text=reply.text)
        elif reply.kind == "media":
            media = reply.media
            message = message_send_media(
                session=session,
                to=chat,
                type_=media["type"],
                url=media["url"],
                data=media["base64"],
                caption=media["caption"],
                file_name=media["fileName"],
            )
        else:
            message = list_send(session, chat, reply.list)
    except ApplicationError as exc:
        raise ReplyRefused(f"a {reply.kind} reply could not be sent: {exc}") from exc
    return message.message_id


def list_send(session: Any, chat: str, listing: dict[str, Any]) -> Any:
    """A list reply through the list service, which checks its shape as for the API (a wrong one is the
    turn's error, not retried)."""
    try:
        sections = tuple(
            ListSection(
                title=str(section.get("title") or ""),
                rows=tuple(
                    ListRow(
                        row_id=str(row["rowId"]),
                        title=str(row["title"]),
                        description=str(row.get("description") or ""),
                    )
                    for row in section["rows"]
                ),
            )
            for section in listing["sections"]
        )
    except (KeyError, TypeError) as exc:
        raise ReplyRefused(f"a list reply's sections are not in the list format: {exc!r}") from None
    message = ListMessage(
        text=listing["text"],
        button_text=listing["buttonText"],
        sections=sections,
        title=listing["title"],
        footer=listing["footer"],
    )
    return message_send_list(session=session, to=chat, message=message)


def _restart_if_over(bot: Bot, conversation: Conversation) -> None:
    now = timezone.now()
    over = conversation.status == Conversation.Status.ENDED or expired(
        bot.expire_minutes, conversation.last_activity_at, now
    )
    if over:
        conversation.status = Conversation.Status.ACTIVE
        conversation.state = {}
        conversation.started_at = now


def answer_handle(bot: Bot, job: BotJob) -> None:
    conversation = conversation_for(bot, job.chat)
    now = timezone.now()
    if conversation.paused_until and conversation.paused_until > now:
        return  # a person is answering this chat
    text = "\n".join(item["text"] for item in job.messages if item.get("text"))
    _restart_if_over(bot, conversation)
    if bot.stop_keyword and text.strip().casefold() == bot.stop_keyword.strip().casefold():
        conversation.status, conversation.state, conversation.last_activity_at = (
            Conversation.Status.ENDED,
            {},
            now,
        )
        conversation.save()
        return
    turn = Turn(
        bot=bot, chat=job.chat, text=text, items=job.messages, state=dict(conversation.state), job_id=job.pk
    )
    _typing(bot, job.chat, "composing")
    try:
        replies = KINDS[bot.kind](turn)
    finally:
        _typing(bot, job.chat, "paused")
    # Kept before the replies go: a reply that fails must not lose the kind's state (Typebot's session).
    conversation.state = {} if turn.ended else turn.state
    conversation.status = Conversation.Status.ENDED if turn.ended else Conversation.Status.ACTIVE
    conversation.last_activity_at = timezone.now()
    conversation.save()
    for reply in replies:
        message_id = reply_send(bot, job.chat, reply)
        conversation.sent_ids = [*conversation.sent_ids, message_id][-SENT_IDS_KEPT:]
        conversation.save(update_fields=["sent_ids"])


def failure_record(bot_id: int, error: Exception) -> None:
    """Count a failed attempt against the bot, in its own transaction; disable it after too many."""
    message = str(error)[:1000] or error.__class__.__name__
    Bot.objects.filter(pk=bot_id).update(
        consecutive_failures=F("consecutive_failures") + 1, last_error=message, last_error_at=timezone.now()
    )
    limit = int(settings.PONTE_BOT_DISABLE_AFTER)
    failing = Bot.objects.filter(pk=bot_id, enabled=True, consecutive_failures__gte=limit)
    reason = f"disabled after {limit} failed attempts in a row; last: {message}"[:300]
    if failing.update(enabled=False, disabled_reason=reason):
        logger.warning("Bot %s disabled: %s", bot_id, reason)


def job_run(job: BotJob) -> None:
    """One attempt runs one job (the queue's `attempt`)."""
    bot = Bot.objects.select_related("session").get(pk=job.bot_id)
    if not bot.enabled:
        return  # disabled since: its waiting answers end unsent
    try:
        if job.kind == BotJob.Kind.OUTGOING:
            outgoing_handle(bot, job)
        else:
            answer_handle(bot, job)
    except Exception as exc:
        failure_record(bot.pk, exc)
        raise
    if bot.consecutive_failures:
        Bot.objects.filter(pk=bot.pk).update(consecutive_failures=0)


def failure_judge(error: Exception) -> Outcome:
    """A call that may pass is retried on the schedule; anything else is dead at once."""
    if isinstance(error, BotCallFailed) and error.retry:
        return "retry"
    return "give_up"
