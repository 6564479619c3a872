"""Errors of accounts and plans; rendered by core.errors."""

from __future__ import annotations

from core.errors import Forbidden


class PlanLimitReached(Forbidden):
    code = "PLAN_LIMIT_REACHED"
    default_message = "The account's plan does not allow more of this resource."
