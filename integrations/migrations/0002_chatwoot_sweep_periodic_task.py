"""The Chatwoot mirror's sweeper as a django-celery-beat row (every 5 s, editable in the admin): it
hints chats whose jobs were never picked up (a lost hint) or are held past their lease (a killed worker)."""

from django.db import migrations

NAME = "integrations: sweep due or stuck Chatwoot mirror jobs"


def create(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    schedule, _ = IntervalSchedule.objects.get_or_create(every=5, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=NAME, defaults={"task": "integrations.chatwoot.sweep", "interval": schedule, "enabled": True}
    )


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("integrations", "0001_chatwoot_mirror"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
