"""The `typebot` kind: Typebot's public chat API. The first message of a conversation starts a chat
(`POST {baseUrl}/api/v1/typebots/{typebot}/startChat`), later ones continue it
(`POST {baseUrl}/api/v1/sessions/{sessionId}/continueChat`), with Typebot's session id kept per chat.
Text bubbles become text messages, image/video/audio bubbles media, and a choice input a list message
whose rows are the choices; a flow that asks for nothing more ends the conversation."""

from __future__ import annotations

import json
from typing import Any

from integrations.bots.kinds import BotCallFailed, Reply, Turn, call_json

MEDIA_BUBBLES = {"image": "image", "video": "video", "audio": "audio"}
MAX_ROWS = 10
ROW_TITLE = 24  # WhatsApp cuts a list row's title at 24 characters


def rich_text(nodes: Any) -> str:
    """Typebot's rich text (Slate nodes) as plain text, a line per block."""
    if isinstance(nodes, list):
        blocks = [rich_text(node) for node in nodes]
        return "\n".join(block for block in blocks if block)
    if isinstance(nodes, dict):
        if "text" in nodes and not nodes.get("children"):
            return str(nodes["text"])
        return "".join(rich_text(child) for child in nodes.get("children") or [])
    return ""


def bubble_text(content: dict[str, Any]) -> str:
    if content.get("type") == "markdown":
        return str(content.get("markdown") or "")
    return rich_text(content.get("richText") or [])


def replies_of(answer: dict[str, Any], *, button_text: str) -> list[Reply]:
    replies: list[Reply] = []
    for message in answer.get("messages") or []:
        kind, content = message.get("type"), message.get("content") or {}
        if kind == "text":
            text = bubble_text(content).strip()
            if text:
                replies.append(Reply("text", text=text))
        elif kind in MEDIA_BUBBLES and content.get("url"):
            media = {
                "type": MEDIA_BUBBLES[kind],
                "url": content["url"],
                "base64": "",
                "caption": "",
                "fileName": "",
            }
            replies.append(Reply("media", media=media))
    choice = answer.get("input") or {}
    if choice.get("type") == "choice input" and choice.get("items"):
        # The question is the last text bubble: it becomes the list's text rather than a message alone.
        question = replies.pop().text if replies and replies[-1].kind == "text" else "…"
        rows = [
            {"rowId": str(item.get("id") or index), "title": str(item.get("content") or "")[:ROW_TITLE]}
            for index, item in enumerate(choice["items"][:MAX_ROWS])
        ]
        listing = {
            "text": question,
            "buttonText": button_text,
            "title": "",
            "footer": "",
            "sections": [{"title": "", "rows": rows}],
        }
        replies.append(Reply("list", list=listing))
    return replies


def _post(turn: Turn, path: str, text: str) -> tuple[int, Any]:
    settings = turn.bot.settings
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if turn.bot.secret:
        headers["Authorization"] = f"Bearer {turn.bot.secret}"
    body = {"message": {"type": "text", "text": text}, "textBubbleContentFormat": "markdown"}
    url = settings["baseUrl"].rstrip("/") + path
    data = json.dumps(body, ensure_ascii=False).encode()
    return call_json(
        "POST", url, body=data, headers=headers, timeout=float(settings.get("timeoutSeconds", 10))
    )


def answer(turn: Turn) -> list[Reply]:
    session_id = turn.state.get("sessionId")
    answer_body: Any = None
    if session_id:
        try:
            _, answer_body = _post(turn, f"/api/v1/sessions/{session_id}/continueChat", turn.text)
        except BotCallFailed as exc:
            if "HTTP 404" not in str(exc):
                raise
            session_id = None  # Typebot forgot the session (it expired there): start again
    if not session_id:
        _, answer_body = _post(turn, f"/api/v1/typebots/{turn.bot.settings['typebot']}/startChat", turn.text)
        if not isinstance(answer_body, dict) or not answer_body.get("sessionId"):
            raise BotCallFailed("Typebot's startChat answer has no sessionId", retry=False)
        turn.state["sessionId"] = answer_body["sessionId"]
    if not isinstance(answer_body, dict):
        raise BotCallFailed("Typebot answered something that is not an object", retry=False)
    if not answer_body.get("input"):
        turn.ended = True  # the flow asks for nothing more: the next message starts it again
    return replies_of(answer_body, button_text=str(turn.bot.settings.get("listButtonText") or "Options"))
