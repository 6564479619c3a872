"""Instance keys are stored as digests with a visible prefix (messaging.instance_keys), so existing keys
keep working; sandbox pairing credentials are encrypted at rest (core.fields.EncryptedJSONField).

The reverse decrypts the credentials, but cannot give back instance keys it never stored: every session
gets a new random key in clear, which staff must hand out again."""

from django.db import migrations, models

import core.fields
from accounts.keys import digest_of
from core.encryption import decrypt, encrypt
from messaging.instance_keys import PREFIX_LENGTH, instance_key_new


def keys_to_digests(apps, schema_editor) -> None:
    Session = apps.get_model("messaging", "Session")
    for pk, key in Session.objects.values_list("pk", "instance_key").iterator():
        Session.objects.filter(pk=pk).update(
            instance_key_prefix=key[:PREFIX_LENGTH], instance_key_digest=digest_of(key), instance_key=None
        )


def new_keys_in_clear(apps, schema_editor) -> None:
    Session = apps.get_model("messaging", "Session")
    for pk in Session.objects.values_list("pk", flat=True).iterator():
        Session.objects.filter(pk=pk).update(instance_key=instance_key_new()[0])


def _convert_credentials(apps, convert) -> None:
    # Between the two AlterFields the historical field is a plain TextField: values come raw.
    Device = apps.get_model("messaging", "SandboxDevice")
    for pk, value in Device.objects.exclude(credentials=None).values_list("pk", "credentials").iterator():
        Device.objects.filter(pk=pk).update(credentials=convert(value))


def encrypt_credentials(apps, schema_editor) -> None:
    _convert_credentials(apps, encrypt)


def decrypt_credentials(apps, schema_editor) -> None:
    _convert_credentials(apps, decrypt)


class Migration(migrations.Migration):
    dependencies = [("messaging", "0003_daily_message_count")]

    operations = [
        migrations.AlterField(
            model_name="session",
            name="instance_key",
            field=models.CharField(max_length=64, null=True, editable=False),
        ),
        migrations.AddField(
            model_name="session",
            name="instance_key_prefix",
            field=models.CharField(
                db_index=True,
                default="",
                editable=False,
                help_text="First characters of the instance key.",
                max_length=8,
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="session",
            name="instance_key_digest",
            field=models.CharField(max_length=64, null=True, editable=False),
        ),
        migrations.RunPython(keys_to_digests, new_keys_in_clear, elidable=False),
        migrations.AlterField(
            model_name="session",
            name="instance_key_digest",
            field=models.CharField(max_length=64, unique=True, editable=False),
        ),
        migrations.RemoveField(model_name="session", name="instance_key"),
        migrations.AlterField(
            model_name="sandboxdevice",
            name="credentials",
            field=models.TextField(null=True, blank=True),
        ),
        migrations.RunPython(encrypt_credentials, decrypt_credentials, elidable=False),
        migrations.AlterField(
            model_name="sandboxdevice",
            name="credentials",
            field=core.fields.EncryptedJSONField(
                blank=True, editable=False, help_text="Pairing keys, encrypted; null when logged out.", null=True
            ),
        ),
    ]

