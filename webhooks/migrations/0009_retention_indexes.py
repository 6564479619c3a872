"""Indexes the retention purge walks (webhooks.outbox.retention): delivered rows by `delivered_at` (partial:
a row enters it once, when it is delivered) and events by (created_at, id).

On PostgreSQL they are built CONCURRENTLY (hence a non-atomic migration): the tables they index are the
ones that grew without a purge, and a plain CREATE INDEX would hold emit() and the workers' writes for
as long as the build takes."""

from django.db import migrations, models

from webhooks.migration_ops import AddIndexConcurrentlyOnPostgres


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("webhooks", "0008_delivery_request_id")]

    operations = [
        AddIndexConcurrentlyOnPostgres(
            model_name="event",
            index=models.Index(fields=["created_at", "id"], name="event_created"),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="delivery",
            index=models.Index(
                condition=models.Q(("status", "delivered")), fields=["delivered_at"], name="delivery_delivered"
            ),
        ),
    ]
