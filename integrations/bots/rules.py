"""Which bot answers a message: plain functions over a bot's rules (no database)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from messaging.addressing import is_group


@dataclass(frozen=True)
class Rules:
    """What the sink needs of an enabled bot to choose it, kept per process (lookups.session_bots)."""

    bot_id: int
    priority: int
    trigger: str
    operator: str
    value: str
    ignore_groups: bool
    stop_keyword: str
    expire_minutes: int
    debounce_seconds: int


def keyword_matches(operator: str, value: str, text: str) -> bool:
    """`equals` and `contains` ignore case and surrounding spaces; `regex` searches the text as given
    (a pattern that does not compile matches nothing: the API refuses such patterns on the way in)."""
    if operator == "regex":
        try:
            return re.search(value, text) is not None
        except re.error:
            return False
    wanted, given = value.strip().casefold(), text.strip().casefold()
    if not wanted:
        return False
    return given == wanted if operator == "equals" else wanted in given


def is_stop(rules: Rules, text: str) -> bool:
    return bool(rules.stop_keyword) and text.strip().casefold() == rules.stop_keyword.strip().casefold()


def expired(expire_minutes: int, last_activity_at: datetime, now: datetime) -> bool:
    return bool(expire_minutes) and last_activity_at < now - timedelta(minutes=expire_minutes)


def starts(rules: Rules, *, chat: str, text: str, first_message: bool) -> bool:
    """Whether a message in a chat where the bot is not talking starts a conversation with it."""
    if rules.ignore_groups and is_group(chat):
        return False
    if is_stop(rules, text):
        return False
    if rules.trigger == "keyword":
        return keyword_matches(rules.operator, rules.value, text)
    if rules.trigger == "first_message":
        return first_message
    return True
