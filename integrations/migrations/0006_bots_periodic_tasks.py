"""The bots' beat jobs as django-celery-beat rows (editable in the admin): the sweeper every 5 s hints
chats whose bot jobs were never picked up (a lost hint) or are held past their lease (a killed worker);
the purge every hour drops jobs done a day ago and dead letters older than 7 days."""

from django.db import migrations

JOBS = [
    # name, task, every, period
    ("integrations: sweep due or stuck bot jobs", "integrations.bots.sweep", 5, "seconds"),
    ("integrations: purge finished bot jobs", "integrations.bots.purge", 1, "hours"),
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
        ("integrations", "0005_bots"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
