"""The receiving token of each Chatwoot integration is stored as a digest with a visible prefix (like
instance keys), so the receiving URLs already configured in Chatwoot keep working.

The reverse cannot give back tokens it never stored: every integration gets a new random token in
clear, and its receiving URL must be set in Chatwoot again (a PUT of the configuration, or the
regenerate action)."""

from django.db import migrations, models

from accounts.keys import digest_of
from integrations.chatwoot.models import TOKEN_PREFIX_LENGTH, new_webhook_token


def tokens_to_digests(apps, schema_editor) -> None:
    Integration = apps.get_model("integrations", "ChatwootIntegration")
    for pk, token in Integration.objects.values_list("pk", "webhook_token").iterator():
        Integration.objects.filter(pk=pk).update(
            webhook_token_prefix=token[:TOKEN_PREFIX_LENGTH],
            webhook_token_digest=digest_of(token),
            webhook_token=None,
        )


def new_tokens_in_clear(apps, schema_editor) -> None:
    Integration = apps.get_model("integrations", "ChatwootIntegration")
    for pk in Integration.objects.values_list("pk", flat=True).iterator():
        Integration.objects.filter(pk=pk).update(webhook_token=new_webhook_token())


class Migration(migrations.Migration):
    dependencies = [("integrations", "0003_chatwoot_webhook_secret")]

    operations = [
        migrations.AlterField(
            model_name="chatwootintegration",
            name="webhook_token",
            field=models.CharField(max_length=64, null=True, editable=False),
        ),
        migrations.AddField(
            model_name="chatwootintegration",
            name="webhook_token_prefix",
            field=models.CharField(
                db_index=True,
                default="",
                editable=False,
                help_text="First characters of the receiving URL's token.",
                max_length=8,
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="chatwootintegration",
            name="webhook_token_digest",
            field=models.CharField(max_length=64, null=True, editable=False),
        ),
        migrations.RunPython(tokens_to_digests, new_tokens_in_clear, elidable=False),
        migrations.AlterField(
            model_name="chatwootintegration",
            name="webhook_token_digest",
            field=models.CharField(max_length=64, unique=True, editable=False),
        ),
        migrations.RemoveField(model_name="chatwootintegration", name="webhook_token"),
    ]
