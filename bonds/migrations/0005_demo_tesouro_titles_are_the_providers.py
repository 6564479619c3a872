"""The demo's Tesouro titles used to be demo offers (`demo-td|<type>|<maturity>`), so a real refresh
listed every title twice. They are now the Tesouro provider's offers (source `tesouro`, key
`<type>|<maturity>`): this moves the rows an earlier demo left, keeping their ids, or retires them
(kept, inactive) when the provider already has the title or a real Tesouro refresh has succeeded."""

from django.db import migrations
from django.utils import timezone

OLD_PREFIX = "demo-td|"


def demo_titles_to_the_provider(apps, schema_editor) -> None:
    Bond = apps.get_model("bonds", "Bond")
    RefreshRun = apps.get_model("bonds", "RefreshRun")
    real_titles = RefreshRun.objects.filter(outcomes__tesouro__ok=True).exists()
    now = timezone.now()
    for bond in Bond.objects.filter(source="demo", natural_key__startswith=OLD_PREFIX):
        label = bond.natural_key.split("|")[1]
        key = f"{label}|{bond.maturity_date.isoformat()}"  # bonds.providers.tesouro.natural_key
        if real_titles or Bond.objects.filter(source="tesouro", natural_key=key).exists():
            bond.is_active = False
        else:
            bond.source, bond.natural_key = "tesouro", key
        bond.updated_at = now  # a new data version: no cached reply lists the old rows
        bond.save(update_fields=["source", "natural_key", "is_active", "updated_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("bonds", "0004_bonds_v3_model"),
    ]

    operations = [
        migrations.RunPython(demo_titles_to_the_provider, migrations.RunPython.noop, elidable=True),
    ]
