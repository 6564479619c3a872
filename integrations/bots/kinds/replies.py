"""The replies format a bot's service answers in (the `http` kind's whole answer, documented in
docs/integrations.md): `{"replies": [{"text": "…"} | {"media": {…}} | {"list": {…}}]}`. An empty body,
`{}` or an empty list sends nothing."""

from __future__ import annotations

from typing import Any

from integrations.bots.kinds import BotCallFailed, Reply

MAX_REPLIES = 10
MAX_TEXT = 4096
MEDIA_TYPES = ("image", "video", "audio", "voice", "document")


def _refused(why: str) -> BotCallFailed:
    return BotCallFailed(f"the bot's answer is not in the replies format: {why}", retry=False)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _refused(f"{where} must be a non-empty string")
    if len(value) > MAX_TEXT:
        raise _refused(f"{where} is longer than {MAX_TEXT} characters")
    return value


def _media(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _refused(f"{where} must be an object")
    if value.get("type") not in MEDIA_TYPES:
        raise _refused(f"{where}.type must be one of {', '.join(MEDIA_TYPES)}")
    if bool(value.get("url")) == bool(value.get("base64")):
        raise _refused(f"{where} needs exactly one of url and base64")
    caption = value.get("caption", "")
    if not isinstance(caption, str):
        raise _refused(f"{where}.caption must be a string")
    return {
        "type": value["type"],
        "url": str(value.get("url") or ""),
        "base64": str(value.get("base64") or ""),
        "caption": caption,
        "fileName": str(value.get("fileName") or ""),
    }


def _list(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _refused(f"{where} must be an object")
    sections = value.get("sections")
    if not isinstance(sections, list) or not sections:
        raise _refused(f"{where}.sections must be a non-empty list")
    return {
        "text": _text(value.get("text"), f"{where}.text"),
        "buttonText": _text(value.get("buttonText"), f"{where}.buttonText"),
        "title": str(value.get("title") or ""),
        "footer": str(value.get("footer") or ""),
        "sections": sections,  # checked by the list send itself (its 400 becomes the job's error)
    }


def replies_parse(answer: Any) -> list[Reply]:
    if answer is None or answer == {}:
        return []
    if not isinstance(answer, dict):
        raise _refused("the answer must be a JSON object")
    replies = answer.get("replies", [])
    if not isinstance(replies, list):
        raise _refused("replies must be a list")
    if len(replies) > MAX_REPLIES:
        raise _refused(f"at most {MAX_REPLIES} replies")
    parsed: list[Reply] = []
    for index, entry in enumerate(replies):
        where = f"replies[{index}]"
        if not isinstance(entry, dict) or len(entry) != 1:
            raise _refused(f"{where} must be an object with one of text, media, list")
        if "text" in entry:
            parsed.append(Reply("text", text=_text(entry["text"], f"{where}.text")))
        elif "media" in entry:
            parsed.append(Reply("media", media=_media(entry["media"], f"{where}.media")))
        elif "list" in entry:
            parsed.append(Reply("list", list=_list(entry["list"], f"{where}.list")))
        else:
            raise _refused(f"{where} must be an object with one of text, media, list")
    return parsed
