"""The daily bond refresh at 06:00 America/Sao_Paulo, as a django-celery-beat row staff can edit."""

import zoneinfo

from django.db import migrations

TASK_NAME = "Daily bond refresh"


def create_task(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    schedule, _ = CrontabSchedule.objects.get_or_create(
        minute="0",
        hour="6",
        day_of_week="*",
        day_of_month="*",
        month_of_year="*",
        timezone=zoneinfo.ZoneInfo("America/Sao_Paulo"),
    )
    PeriodicTask.objects.get_or_create(
        name=TASK_NAME,
        defaults={
            "task": "bonds.tasks.refresh_bonds",
            "crontab": schedule,
            "kwargs": '{"trigger": "beat"}',
            "description": "Fetch Focus, SGS, Tesouro Direto and broker feeds; recompute bond returns.",
            "enabled": True,
        },
    )


def delete_task(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=TASK_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("bonds", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create_task, delete_task)]
