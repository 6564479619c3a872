"""The `openai` kind: any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, LM Studio
all speak it). The system prompt, then the chat's last `contextMessages` messages with text (the
customer's as `user`, the session's as `assistant`), then one text reply from the first choice."""

from __future__ import annotations

import json
from typing import Any

from integrations.bots.kinds import BotCallFailed, Reply, Turn, call_json
from messaging.models import Message


def _content(message: Message) -> str:
    content = message.content or {}
    return str(content.get("text") or content.get("caption") or "")


def context(turn: Turn, limit: int) -> list[dict[str, str]]:
    """The chat's last `limit` messages that carry text, oldest first (the turn's own are among them:
    they were recorded before the sink saw them)."""
    recent = Message.objects.filter(session_id=turn.bot.session_id, chat=turn.chat, deleted_at__isnull=True)
    # In the order Ponte recorded them: a channel's timestamps have whole seconds, and a reply often
    # shares its second with the question.
    recent = recent.order_by("-id")[: limit * 3]  # some carry no text (stickers, reactions)
    lines = [
        {"role": "assistant" if message.from_me else "user", "content": text}
        for message in recent
        if (text := _content(message))
    ][:limit]
    lines.reverse()
    if not lines or lines[-1]["role"] != "user":
        lines.append({"role": "user", "content": turn.text})
    return lines


def request_body(turn: Turn) -> dict[str, Any]:
    settings = turn.bot.settings
    messages = context(turn, int(settings.get("contextMessages", 10)))
    if settings.get("systemPrompt"):
        messages.insert(0, {"role": "system", "content": settings["systemPrompt"]})
    return {
        "model": settings["model"],
        "messages": messages,
        "temperature": float(settings.get("temperature", 0.7)),
        "max_tokens": int(settings.get("maxTokens", 500)),
    }


def answer(turn: Turn) -> list[Reply]:
    settings = turn.bot.settings
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if turn.bot.secret:
        headers["Authorization"] = f"Bearer {turn.bot.secret}"
    url = settings["baseUrl"].rstrip("/") + "/chat/completions"
    body = json.dumps(request_body(turn), ensure_ascii=False).encode()
    _, parsed = call_json(
        "POST", url, body=body, headers=headers, timeout=float(settings.get("timeoutSeconds", 30))
    )
    try:
        text = parsed["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise BotCallFailed("the model's answer has no choices[0].message.content", retry=False) from None
    if not isinstance(text, str):
        raise BotCallFailed("the model's answer content is not text", retry=False)
    return [Reply("text", text=text.strip())] if text.strip() else []
