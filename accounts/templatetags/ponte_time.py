"""`{{ moment|local_time }}`: a moment as customers read it on every page (core.timefmt)."""

from __future__ import annotations

from datetime import datetime

from django import template

from core.timefmt import local_time_text

register = template.Library()


@register.filter
def local_time(moment: datetime | None) -> str:
    return local_time_text(moment) if moment else ""
