"""Bots on a session (docs/integrations.md): create, read, change, delete, and their conversations
(pause, resume); their typed results, their operations, and the resources `Client.bots` and
`AsyncClient.bots` expose. A bot's secret is write-only: replies say only `secret_set`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ponte_client._http import Op

JSON = dict[str, Any]
BotKind = Literal["http", "openai", "typebot"]
Trigger = Literal["all", "keyword", "first_message"]
KeywordOperator = Literal["equals", "contains", "regex"]


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


@dataclass(frozen=True)
class BotRules:
    """When the bot answers (docs/integrations.md, "Conversation rules"); every field has a default."""

    trigger: Trigger = "all"
    operator: KeywordOperator = "contains"
    value: str = ""
    ignore_groups: bool = True
    stop_keyword: str = "#sair"
    expire_minutes: int = 60
    pause_minutes: int = 60
    debounce_seconds: int = 3

    def to_json(self) -> JSON:
        return {
            "trigger": self.trigger,
            "operator": self.operator,
            "value": self.value,
            "ignoreGroups": self.ignore_groups,
            "stopKeyword": self.stop_keyword,
            "expireMinutes": self.expire_minutes,
            "pauseMinutes": self.pause_minutes,
            "debounceSeconds": self.debounce_seconds,
        }

    @classmethod
    def from_json(cls, data: JSON) -> BotRules:
        return cls(
            data["trigger"],
            data["operator"],
            data["value"],
            data["ignoreGroups"],
            data["stopKeyword"],
            data["expireMinutes"],
            data["pauseMinutes"],
            data["debounceSeconds"],
        )


@dataclass(frozen=True)
class Bot:
    id: int
    session_id: str
    name: str
    kind: BotKind
    enabled: bool
    priority: int
    settings: JSON  # the kind's settings (its secret never)
    secret_set: bool
    rules: BotRules
    disabled_reason: str  # why Ponte turned it off (failing), else ""
    last_error: str
    last_error_at: datetime | None
    created_at: datetime | None
    updated_at: datetime | None
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: JSON) -> Bot:
        return cls(
            id=data["id"],
            session_id=data["sessionId"],
            name=data["name"],
            kind=data["kind"],
            enabled=data["enabled"],
            priority=data["priority"],
            settings=data["settings"],
            secret_set=data["secretSet"],
            rules=BotRules.from_json(data["rules"]),
            disabled_reason=data["disabledReason"],
            last_error=data["lastError"],
            last_error_at=_dt(data.get("lastErrorAt")),
            created_at=_dt(data.get("createdAt")),
            updated_at=_dt(data.get("updatedAt")),
            raw=data,
        )


@dataclass(frozen=True)
class BotConversation:
    chat_id: str
    status: Literal["active", "paused"]
    paused_until: datetime | None
    started_at: datetime | None
    last_activity_at: datetime | None

    @classmethod
    def from_json(cls, data: JSON) -> BotConversation:
        return cls(
            data["chatId"],
            data["status"],
            _dt(data.get("pausedUntil")),
            _dt(data.get("startedAt")),
            _dt(data.get("lastActivityAt")),
        )


# --- operations -------------------------------------------------------------------------------------


def _bot(response: Any) -> Bot:
    return Bot.from_json(response.json())


def _body(
    session_id: str,
    name: str,
    kind: BotKind,
    settings: JSON,
    *,
    secret: str | None,
    rules: BotRules | None,
    enabled: bool,
    priority: int,
) -> JSON:
    body: JSON = {
        "sessionId": session_id,
        "name": name,
        "kind": kind,
        "settings": settings,
        "enabled": enabled,
        "priority": priority,
        "rules": (rules or BotRules()).to_json(),
    }
    if secret is not None:
        body["secret"] = secret
    return body


def _changed(bot: Bot, *, secret: str | None, **changes: Any) -> JSON:
    """The PUT body: what `changes` gives (None: as `bot` has it), the secret only when given."""
    kept = {name: value if value is not None else getattr(bot, name) for name, value in changes.items()}
    return _body(bot.session_id, kept.pop("name"), bot.kind, kept.pop("settings"), secret=secret, **kept)


def bots_list(session_id: str | None) -> Op[list[Bot]]:
    params = {"sessionId": session_id} if session_id else None
    return Op("GET", "/api/bots", lambda r: [Bot.from_json(item) for item in r.json()], params=params)


def bots_create(body: JSON) -> Op[Bot]:
    return Op("POST", "/api/bots", _bot, json=body)


def bots_get(bot_id: int) -> Op[Bot]:
    return Op("GET", f"/api/bots/{bot_id}", _bot)


def bots_update(bot_id: int, body: JSON) -> Op[Bot]:
    return Op("PUT", f"/api/bots/{bot_id}", _bot, json=body)


def bots_delete(bot_id: int) -> Op[bool]:
    return Op("DELETE", f"/api/bots/{bot_id}", lambda r: bool(r.json()["success"]))


def bots_conversations(bot_id: int) -> Op[list[BotConversation]]:
    path = f"/api/bots/{bot_id}/conversations"
    return Op("GET", path, lambda r: [BotConversation.from_json(item) for item in r.json()])


def bots_pause(bot_id: int, chat_id: str, minutes: int) -> Op[bool]:
    body = {"chatId": chat_id, "minutes": minutes}
    return Op(
        "POST", f"/api/bots/{bot_id}/conversations/pause", lambda r: bool(r.json()["success"]), json=body
    )


def bots_resume(bot_id: int, chat_id: str) -> Op[bool]:
    body = {"chatId": chat_id}
    return Op(
        "POST", f"/api/bots/{bot_id}/conversations/resume", lambda r: bool(r.json()["success"]), json=body
    )


# --- resources --------------------------------------------------------------------------------------


class Bots:
    """`client.bots`: bots on the sessions the key may use (viewer keys read; operators write)."""

    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run

    def list(self, session_id: str | None = None) -> list[Bot]:
        return self._run(bots_list(session_id))

    def create(
        self,
        session_id: str,
        name: str,
        kind: BotKind,
        settings: JSON,
        *,
        secret: str | None = None,
        rules: BotRules | None = None,
        enabled: bool = True,
        priority: int = 100,
    ) -> Bot:
        """`settings` by kind: http `{url}`; openai `{baseUrl, model, systemPrompt, ...}`; typebot
        `{baseUrl, typebot}`. `secret`: the http kind's signing secret (required), the API key, the
        Typebot token."""
        body = _body(
            session_id, name, kind, settings, secret=secret, rules=rules, enabled=enabled, priority=priority
        )
        return self._run(bots_create(body))

    def get(self, bot_id: int) -> Bot:
        return self._run(bots_get(bot_id))

    def update(
        self,
        bot: Bot,
        *,
        name: str | None = None,
        settings: JSON | None = None,
        secret: str | None = None,
        rules: BotRules | None = None,
        enabled: bool | None = None,
        priority: int | None = None,
    ) -> Bot:
        """Replace what is given, keep the rest as `bot` has it (the secret unless given)."""
        changes = {
            "name": name,
            "settings": settings,
            "rules": rules,
            "enabled": enabled,
            "priority": priority,
        }
        body = _changed(bot, secret=secret, **changes)
        return self._run(bots_update(bot.id, body))

    def delete(self, bot_id: int) -> bool:
        return self._run(bots_delete(bot_id))

    def conversations(self, bot_id: int) -> list[BotConversation]:
        return self._run(bots_conversations(bot_id))

    def pause(self, bot_id: int, chat_id: str, minutes: int) -> bool:
        """The bot stays quiet in `chat_id` (a number or a JID) for `minutes`."""
        return self._run(bots_pause(bot_id, chat_id, minutes))

    def resume(self, bot_id: int, chat_id: str) -> bool:
        return self._run(bots_resume(bot_id, chat_id))


class AsyncBots:
    """`AsyncClient.bots`: as `Client.bots`, awaited."""

    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def list(self, session_id: str | None = None) -> list[Bot]:
        return await self._run(bots_list(session_id))

    async def create(
        self,
        session_id: str,
        name: str,
        kind: BotKind,
        settings: JSON,
        *,
        secret: str | None = None,
        rules: BotRules | None = None,
        enabled: bool = True,
        priority: int = 100,
    ) -> Bot:
        body = _body(
            session_id, name, kind, settings, secret=secret, rules=rules, enabled=enabled, priority=priority
        )
        return await self._run(bots_create(body))

    async def get(self, bot_id: int) -> Bot:
        return await self._run(bots_get(bot_id))

    async def update(
        self,
        bot: Bot,
        *,
        name: str | None = None,
        settings: JSON | None = None,
        secret: str | None = None,
        rules: BotRules | None = None,
        enabled: bool | None = None,
        priority: int | None = None,
    ) -> Bot:
        changes = {
            "name": name,
            "settings": settings,
            "rules": rules,
            "enabled": enabled,
            "priority": priority,
        }
        body = _changed(bot, secret=secret, **changes)
        return await self._run(bots_update(bot.id, body))

    async def delete(self, bot_id: int) -> bool:
        return await self._run(bots_delete(bot_id))

    async def conversations(self, bot_id: int) -> list[BotConversation]:
        return await self._run(bots_conversations(bot_id))

    async def pause(self, bot_id: int, chat_id: str, minutes: int) -> bool:
        return await self._run(bots_pause(bot_id, chat_id, minutes))

    async def resume(self, bot_id: int, chat_id: str) -> bool:
        return await self._run(bots_resume(bot_id, chat_id))
