"""Indexes the retention purge walks (webhooks.retention): delivered rows by `delivered_at` (partial:
a row enters it once, when it is delivered) and events by (created_at, id).

On PostgreSQL they are built CONCURRENTLY (hence a non-atomic migration): the tables they index are the
ones that grew without a purge, and a plain CREATE INDEX would hold emit() and the workers' writes for
as long as the build takes."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class AddIndexConcurrentlyOnPostgres(AddIndexConcurrently):
    """CREATE INDEX CONCURRENTLY on PostgreSQL; a plain AddIndex on other databases."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


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
