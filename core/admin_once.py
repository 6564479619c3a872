"""Secrets the admin issues (API keys, instance keys) shown once, in the reply to the POST that issued
them. They are never handed to the messages framework: its cookie (signed, not encrypted) or, when the
cookie is full, the session row would keep them in clear until the next page."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers


def shown_once(
    request: HttpRequest,
    model_admin: admin.ModelAdmin,
    *,
    title: str,
    shown: list[tuple[str, str]],
    back: str,
    links: list[tuple[str, str]] | None = None,
) -> TemplateResponse:
    """A page listing `shown` ((label, secret) pairs), not cached, whose reload lists `back` instead of
    posting again."""
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": title,
        "shown": shown,
        "back": back,
        "links": links or [("Back to the list", back)],
    }
    response = TemplateResponse(request, "admin/shown_once.html", context)
    add_never_cache_headers(response)
    return response
