"""A webhook's deliveries indexed by (webhook, created_at) instead of (webhook) alone: the gateway's
delivery log (GET /gateway/webhooks/{id}/deliveries) reads a webhook's rows newest first, page by page,
and with the webhook alone PostgreSQL sorted every row of the webhook for each page (82 ms a page at
50,000 deliveries; 0.75 ms with this index, docs/decisions/0016). The new index starts with the
webhook, so it still serves the foreign key (a deleted webhook's rows set to NULL); the table keeps the
same number of indexes to write.

Built before the old one is dropped, so the foreign key always has an index; on PostgreSQL both
CONCURRENTLY (webhooks.migration_ops), hence a non-atomic migration.
"""

from django.db import migrations, models

from webhooks.migration_ops import AddIndexConcurrentlyOnPostgres, RemoveIndexConcurrentlyOnPostgres


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("webhooks", "0015_webhook_sender_depth"),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgres(
            model_name="delivery",
            index=models.Index(fields=["webhook", "created_at"], name="delivery_webhook_created"),
        ),
        RemoveIndexConcurrentlyOnPostgres(model_name="delivery", name="delivery_webhook"),
    ]
