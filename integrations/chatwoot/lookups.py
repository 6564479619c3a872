"""What the mirror's sink keeps per process (webhooks.lookups): which sessions have a working
integration. A module of its own, so the sink asks the lookup and the lookup loads from here: no call
goes back into the sink while it runs (issue 40's paths, tests/module_path.py)."""

from __future__ import annotations

from functools import cache
from uuid import UUID

from django.db import connection

from integrations.chatwoot.models import ChatwootIntegration
from webhooks.lookups import Versioned


@cache
def _integration_sql() -> str:
    meta, qn = ChatwootIntegration._meta, connection.ops.quote_name

    def column(name: str) -> str:
        return qn(meta.get_field(name).column)

    # Names from the model's metadata only; the session id is a parameter.
    return (
        f"SELECT {column('id')} FROM {qn(meta.db_table)} WHERE {column('session')} = %s"  # noqa: S608
        f" AND {column('enabled')} AND {column('inbox_id')} IS NOT NULL"
    )


def _working_integration_load(session_id: UUID | str) -> int | None:
    """The session's enabled, set-up integration. Asked on every message, receipt and typing event of
    every session, and almost always answered "none": kept per process (`working_integration`), and
    read with one plain statement, as the ORM spent more than twice the round trip's CPU composing
    this query each time."""
    value = ChatwootIntegration._meta.get_field("session").target_field.get_db_prep_value(
        UUID(str(session_id)), connection
    )
    with connection.cursor() as cursor:
        cursor.execute(_integration_sql(), [value])
        row = cursor.fetchone()
    return row[0] if row else None


# Dropped on every write of an integration, in every process (webhooks.lookups; IntegrationsConfig).
working_integration = Versioned("chatwoot-integrations", _working_integration_load)
