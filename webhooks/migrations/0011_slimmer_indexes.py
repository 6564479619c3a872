"""Fewer indexes on the outbox's tables (issue 22: tables that stay small).

A delivery's row is written three times (emit, claim, record) and every version goes into each full
index of the table: the delivery table had sixteen, five of them needed by no statement. Removed: the
plain foreign-key indexes Django adds by default where a composite index already starts with the
column (the session of events and deliveries, the delivery of attempts), the text-pattern twins
Django adds on PostgreSQL to `dispatch_id` and `webhook_id` (nothing searches them by prefix), the
full (status, dead_at) index (the purge and the dead-letter count read dead rows only: now a partial
index of them), and the indexes of the two staff-user keys, set on resends only (now partial, where set).
Measured with bench/webhooks.py: PostgreSQL's CPU over a run about 7 % lower (docs/webhooks.md).

The new indexes are built first, so each statement keeps one to use; on PostgreSQL every index is built
and dropped CONCURRENTLY (webhooks.migration_ops), hence a non-atomic migration. The foreign keys'
`db_index=False` is told to Django's state only: as a database operation, Django's AlterField would
drop and re-add each foreign-key constraint, checking every row of the table under lock.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from webhooks.migration_ops import (
    AddIndexConcurrentlyOnPostgres,
    RemoveIndexConcurrentlyOnPostgres,
    create_index,
    default_index_name,
    drop_index,
)

# (table, column, the suffixes of Django's default indexes on it that go).
DEFAULT_INDEXES = [
    ("webhooks_event", "session_id", [""]),
    ("webhooks_delivery", "session_id", [""]),
    ("webhooks_delivery", "webhook_id", ["", "_like"]),
    ("webhooks_delivery", "resend_requested_by_id", [""]),
    ("webhooks_delivery", "dispatch_id", ["_like"]),
    ("webhooks_deliveryattempt", "delivery_id", [""]),
    ("webhooks_deliveryattempt", "requested_by_id", [""]),
]


def _default_indexes(schema_editor):
    """(name, table, column, whether it is a text-pattern twin) of each default index that goes."""
    for table, column, suffixes in DEFAULT_INDEXES:
        for suffix in suffixes:
            if suffix == "_like" and schema_editor.connection.vendor != "postgresql":
                continue  # only PostgreSQL has them
            yield default_index_name(schema_editor, table, column, suffix), table, column, suffix == "_like"


def drop_default_indexes(apps, schema_editor):
    for name, _table, _column, _pattern in _default_indexes(schema_editor):
        drop_index(schema_editor, name)


def create_default_indexes(apps, schema_editor):
    for name, table, column, pattern in _default_indexes(schema_editor):
        create_index(schema_editor, name, table, column, pattern=pattern)


def unindexed_key(model_name, name, to, on_delete, related_name, **options):
    """The state-only change of a foreign key to `db_index=False` (its index goes above)."""
    return migrations.AlterField(
        model_name=model_name,
        name=name,
        field=models.ForeignKey(
            db_index=False, on_delete=on_delete, related_name=related_name, to=to, **options
        ),
    )


CASCADE, SET_NULL = django.db.models.deletion.CASCADE, django.db.models.deletion.SET_NULL
NULLABLE = {"blank": True, "null": True}


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("messaging", "0007_official_channels"),
        ("webhooks", "0010_purge_delivered_job"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgres(
            model_name="delivery",
            index=models.Index(condition=models.Q(("status", "dead")), fields=["dead_at"], name="delivery_dead"),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="delivery",
            index=models.Index(fields=["webhook"], name="delivery_webhook"),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="delivery",
            index=models.Index(
                condition=models.Q(("resend_requested_by__isnull", False)),
                fields=["resend_requested_by"],
                name="delivery_resent_by",
            ),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="deliveryattempt",
            index=models.Index(
                condition=models.Q(("requested_by__isnull", False)),
                fields=["requested_by"],
                name="attempt_requested_by",
            ),
        ),
        RemoveIndexConcurrentlyOnPostgres(model_name="delivery", name="webhooks_de_status_9fec7b_idx"),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunPython(drop_default_indexes, create_default_indexes, elidable=False),
            ],
            state_operations=[
                unindexed_key("delivery", "resend_requested_by", settings.AUTH_USER_MODEL, SET_NULL, "+", **NULLABLE),
                unindexed_key("delivery", "session", "messaging.session", CASCADE, "deliveries"),
                unindexed_key("delivery", "webhook", "webhooks.webhook", SET_NULL, "deliveries", **NULLABLE),
                unindexed_key("deliveryattempt", "delivery", "webhooks.delivery", CASCADE, "attempts"),
                unindexed_key(
                    "deliveryattempt",
                    "requested_by",
                    settings.AUTH_USER_MODEL,
                    SET_NULL,
                    "+",
                    help_text="Staff user who asked for this attempt (a resend); empty for automatic attempts.",
                    **NULLABLE,
                ),
                unindexed_key("event", "session", "messaging.session", CASCADE, "events"),
            ],
        ),
    ]
