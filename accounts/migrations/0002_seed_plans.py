"""Create the plans from the rate-limit table of the messaging plans. Staff edit them in the admin later."""

from django.db import migrations

# name, requests/min, active sessions, messages/day, webhooks (None = unlimited)
PLANS = [
    ("Free", 40, 1, 480, 1),
    ("Inicial", 120, 1, None, 1),
    ("Intermediário", 360, 3, None, 3),
    ("Empresarial", None, 10, None, None),
]


def seed(apps, schema_editor):
    Plan = apps.get_model("accounts", "Plan")
    for name, rpm, sessions, per_day, webhooks in PLANS:
        Plan.objects.update_or_create(
            name=name,
            defaults={
                "requests_per_minute": rpm,
                "max_active_sessions": sessions,
                "messages_per_day": per_day,
                "max_webhooks": webhooks,
            },
        )


def unseed(apps, schema_editor):
    apps.get_model("accounts", "Plan").objects.filter(name__in=[p[0] for p in PLANS], accounts=None).delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
