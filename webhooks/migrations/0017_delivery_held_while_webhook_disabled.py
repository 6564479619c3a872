"""Deliveries held while their registered webhook is disabled (status `held`, webhooks.outbox.disable),
and the partial index the retention purge finds them by (webhooks.outbox.retention).

The index is built CONCURRENTLY on PostgreSQL (hence a non-atomic migration): the deliveries table is the
busiest one, and a plain CREATE INDEX would hold emit() and the workers' writes while it is built. The
status's choices change nothing in the database."""

from django.db import migrations, models

from webhooks.migration_ops import AddIndexConcurrentlyOnPostgres


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("webhooks", "0016_delivery_log_index")]

    operations = [
        migrations.AlterField(
            model_name="delivery",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "Pending"),
                    ("sending", "Sending"),
                    ("delivered", "Delivered"),
                    ("failed", "Failed, will retry"),
                    ("dead", "Dead letter"),
                    ("held", "Held: webhook disabled"),
                ],
                default="pending",
                max_length=10,
            ),
        ),
        AddIndexConcurrentlyOnPostgres(
            model_name="delivery",
            index=models.Index(
                condition=models.Q(("status", "held")), fields=["created_at"], name="delivery_held"
            ),
        ),
    ]
