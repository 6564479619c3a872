"""The retention purge as a django-celery-beat row (staff can edit its schedule in the admin): every
hour, delivered deliveries, their attempts and the events no delivery needs any more, older than
PONTE_DELIVERY_RETENTION_DAYS (webhooks.outbox.retention)."""

from django.db import migrations

NAME = "webhooks: purge delivered deliveries and old events"
TASK = "webhooks.purge_delivered"


def create(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    schedule, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.update_or_create(
        name=NAME, defaults={"task": TASK, "interval": schedule, "enabled": True}
    )


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0009_retention_indexes"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
