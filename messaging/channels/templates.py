"""Message templates: synced from the Graph API, and matched against free text outside the window.

A template's BODY holds `{{1}}`, `{{2}}`… placeholders. Free text matches an APPROVED template when it
reads as the body with each placeholder standing for some text; the texts found are its variables, in
placeholder order. When several match, the one with the most fixed text wins (it says the most).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import ValidationFailed
from messaging.channels import CHANNEL_NAMES, WHATSAPP_CLOUD, graph
from messaging.channels.models import ChannelAccount, ChannelTemplate
from messaging.channels.outbound import translate
from messaging.errors import OperationNotSupported
from messaging.models import Session
from messaging.services.engine import engine_errors

_PLACEHOLDER = re.compile(r"\{\{\s*(\d+)\s*\}\}")
MAX_PAGES = 50


@dataclass(frozen=True)
class TemplateMatch:
    template: ChannelTemplate
    parameters: list[str]


def _body_of(components: Any) -> str:
    for component in components if isinstance(components, list) else []:
        if isinstance(component, dict) and str(component.get("type", "")).upper() == "BODY":
            return str(component.get("text") or "")
    return ""


def _pattern(body: str) -> tuple[re.Pattern[str], list[int]]:
    parts, numbers, last = [], [], 0
    for found in _PLACEHOLDER.finditer(body):
        parts.append(re.escape(body[last : found.start()]))
        parts.append("(.+?)")
        numbers.append(int(found.group(1)))
        last = found.end()
    parts.append(re.escape(body[last:]))
    return re.compile("".join(parts), re.DOTALL), numbers


def template_match(session_id: str, text: str) -> TemplateMatch | None:
    """The approved template `text` is an instance of, with its variables; None when none fits."""
    candidates = ChannelTemplate.objects.filter(session_id=session_id, status="APPROVED").exclude(body="")
    best: tuple[int, TemplateMatch] | None = None
    for template in candidates:
        pattern, numbers = _pattern(template.body)
        found = pattern.fullmatch(text.strip())
        if found is None:
            continue
        values: dict[int, str] = {}
        for number, value in zip(numbers, found.groups(), strict=True):
            if values.setdefault(number, value.strip()) != value.strip() or not value.strip():
                break  # a placeholder used twice must stand for the same text
        else:
            fixed = len(_PLACEHOLDER.sub("", template.body))
            parameters = [values[n] for n in sorted(values)]
            if best is None or fixed > best[0]:
                best = (fixed, TemplateMatch(template, parameters))
    return best[1] if best else None


def _fetch(account: ChannelAccount) -> list[dict[str, Any]]:
    path = f"{account.credential('businessAccountId')}/message_templates"
    params: dict[str, Any] = {"fields": "name,status,language,category,components", "limit": 100}
    templates: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        try:
            page = graph.call("GET", path, account.credential("accessToken"), params=params)
        except graph.GraphError as exc:
            with engine_errors():
                raise translate(exc, account) from None
        templates.extend(t for t in page.get("data") or [] if isinstance(t, dict))
        paging = page.get("paging") or {}
        after = (paging.get("cursors") or {}).get("after")
        if not paging.get("next") or not after:
            break
        params = {**params, "after": after}
    return templates


def templates_sync(*, session: Session) -> list[ChannelTemplate]:
    """Replace the session's templates with the Graph API's list (all statuses; only APPROVED are sent)."""
    if session.provider != WHATSAPP_CLOUD:
        raise OperationNotSupported(
            f"{CHANNEL_NAMES.get(session.provider, session.provider)} sessions have no message templates."
        )
    account = ChannelAccount.objects.filter(session=session).first()
    if account is None or not account.credentials:
        raise ValidationFailed("The session has no channel credentials.")
    fetched = _fetch(account)
    now = timezone.now()
    with transaction.atomic():
        keep = []
        for item in fetched:
            name, language = str(item.get("name") or ""), str(item.get("language") or "")
            if not name or not language:
                continue
            body = _body_of(item.get("components"))
            template, _ = ChannelTemplate.objects.update_or_create(
                session=session,
                name=name[:512],
                language=language[:20],
                defaults={
                    "status": str(item.get("status") or "")[:30],
                    "category": str(item.get("category") or "")[:50],
                    "body": body,
                    "variables": len(set(_PLACEHOLDER.findall(body))),
                    "components": item.get("components") or [],
                    "synced_at": now,
                },
            )
            keep.append(template.pk)
        ChannelTemplate.objects.filter(session=session).exclude(pk__in=keep).delete()
    return list(ChannelTemplate.objects.filter(session=session))
