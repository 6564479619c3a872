"""The delivery sweeper runs every 5 s instead of 30 s: with short, renewed claim leases (webhooks.outbox.lease)
a killed worker's deliveries are found within seconds. A schedule staff already changed is left alone."""

from django.db import migrations

NAME = "webhooks: sweep due or stuck deliveries"


def _set_every(apps, old: int, new: int) -> None:
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    task = PeriodicTask.objects.filter(name=NAME, interval__every=old, interval__period="seconds").first()
    if task is None:
        return
    task.interval, _ = IntervalSchedule.objects.get_or_create(every=new, period="seconds")
    task.save(update_fields=["interval"])


def forward(apps, schema_editor):
    _set_every(apps, 30, 5)


def backward(apps, schema_editor):
    _set_every(apps, 5, 30)


class Migration(migrations.Migration):
    dependencies = [("webhooks", "0006_encrypt_webhook_secrets")]
    operations = [migrations.RunPython(forward, backward)]
