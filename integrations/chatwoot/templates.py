"""The session's approved message templates published as Chatwoot canned responses (`tpl_<name>`).

Idempotent: a canned response with the short code is updated when its content differs, left alone when
it is the same, created when missing; never duplicated. A template in several languages is published
once per language after the first (`tpl_<name>_<language>`).
"""

from __future__ import annotations

import re

from integrations.chatwoot.config import client_for, integration_of
from messaging.channels.models import ChannelTemplate
from messaging.models import Session


def short_code(name: str, language: str = "") -> str:
    code = f"tpl_{name}" + (f"_{language}" if language else "")
    return re.sub(r"[^A-Za-z0-9_]", "_", code)[:255]


def templates_publish(*, session: Session) -> dict[str, list[str]]:
    """Publish; the short codes created, updated and unchanged."""
    integration = integration_of(session)
    client = client_for(integration)
    existing = {str(c.get("short_code")): c for c in client.canned_responses(integration.account_id)}
    result: dict[str, list[str]] = {"created": [], "updated": [], "unchanged": []}
    seen: set[str] = set()
    approved = ChannelTemplate.objects.filter(session=session, status="APPROVED").order_by("name", "language")
    for template in approved:
        code = short_code(template.name, template.language if template.name in seen else "")
        seen.add(template.name)
        content = template.body or template.name
        current = existing.get(code)
        if current is None:
            client.canned_response_create(integration.account_id, code, content)
            result["created"].append(code)
        elif current.get("content") != content:
            client.canned_response_update(integration.account_id, int(current["id"]), content)
            result["updated"].append(code)
        else:
            result["unchanged"].append(code)
    return result
