"""Beat jobs of the outbox as django-celery-beat rows, so staff can edit their schedule in the admin:
the delivery sweeper every 30 s and the 7-day dead-letter purge every hour."""

from django.db import migrations

JOBS = [
    # name, task, every, period
    ("webhooks: sweep due or stuck deliveries", "webhooks.sweep_deliveries", 30, "seconds"),
    ("webhooks: purge dead letters older than 7 days", "webhooks.purge_dead_letters", 1, "hours"),
]


def create(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, every, period in JOBS:
        schedule, _ = IntervalSchedule.objects.get_or_create(every=every, period=period)
        PeriodicTask.objects.update_or_create(
            name=name, defaults={"task": task, "interval": schedule, "enabled": True}
        )


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=[j[0] for j in JOBS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0002_deliveries"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
