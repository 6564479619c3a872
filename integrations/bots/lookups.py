"""What the bots' sink keeps per process (webhooks.lookups): each session's enabled bots, as the rules
need them. A module of its own, so the sink asks the lookup and the lookup loads from here: no call goes
back into the sink while it runs (issue 40's paths, tests/module_path.py)."""

from __future__ import annotations

from uuid import UUID

from integrations.bots.models import Bot
from integrations.bots.rules import Rules
from webhooks.lookups import Versioned


def _session_bots_load(session_id: UUID | str) -> tuple[Rules, ...]:
    enabled = Bot.objects.filter(session_id=session_id, enabled=True).order_by("priority", "id")
    return tuple(
        Rules(
            bot_id=bot.pk,
            priority=bot.priority,
            trigger=bot.trigger,
            operator=bot.trigger_operator,
            value=bot.trigger_value,
            ignore_groups=bot.ignore_groups,
            stop_keyword=bot.stop_keyword,
            expire_minutes=bot.expire_minutes,
            debounce_seconds=bot.debounce_seconds,
        )
        for bot in enabled
    )


# Dropped on every write of a bot, in every process, whatever API made it (IntegrationsConfig.ready).
session_bots = Versioned("bots", _session_bots_load)
