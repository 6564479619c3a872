"""Webhook secrets are encrypted at rest: the column becomes text, existing secrets are encrypted with
the first of PONTE_SECRET_KEYS, and the field turns into an EncryptedTextField. The reverse decrypts."""

from django.db import migrations, models

import core.fields
from core.encryption import decrypt, encrypt


def _convert(apps, convert) -> None:
    # Between the two AlterFields the historical field is a plain TextField: values come raw.
    Webhook = apps.get_model("webhooks", "Webhook")
    for pk, secret in Webhook.objects.exclude(secret="").values_list("pk", "secret").iterator():
        Webhook.objects.filter(pk=pk).update(secret=convert(secret))


def encrypt_secrets(apps, schema_editor) -> None:
    _convert(apps, encrypt)


def decrypt_secrets(apps, schema_editor) -> None:
    _convert(apps, decrypt)


class Migration(migrations.Migration):
    dependencies = [("webhooks", "0005_partial_delivery_indexes")]

    operations = [
        migrations.AlterField(model_name="webhook", name="secret", field=models.TextField(blank=True)),
        migrations.RunPython(encrypt_secrets, decrypt_secrets, elidable=False),
        migrations.AlterField(
            model_name="webhook", name="secret", field=core.fields.EncryptedTextField(blank=True)
        ),
    ]
