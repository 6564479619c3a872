"""Replays of a registered webhook (webhooks.registered.replay): one running per webhook, fed to the worker a
chunk at a time. A new table: nothing else is locked."""

import django.db.models.deletion
import django.utils.timezone
import webhooks.models.registered
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('webhooks', '0017_delivery_held_while_webhook_disabled'),
    ]

    operations = [
        migrations.CreateModel(
            name='WebhookReplay',
            fields=[
                ('id', models.CharField(default=webhooks.models.registered.new_replay_id, editable=False, max_length=32, primary_key=True, serialize=False)),
                ('since', models.DateTimeField(help_text="Start of the window (by the event's own time), inclusive.")),
                ('until', models.DateTimeField(help_text='End of the window, exclusive.')),
                ('only_failed', models.BooleanField(default=False)),
                ('selected', models.PositiveIntegerField(default=0, help_text='Deliveries the window held when asked.')),
                ('released', models.PositiveIntegerField(default=0, help_text='Deliveries handed to the worker so far.')),
                ('deliveries', models.JSONField(default=list, editable=False)),
                ('taken', models.PositiveIntegerField(default=0, editable=False)),
                ('requested_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('ticked_at', models.DateTimeField(default=django.utils.timezone.now, help_text='Last step of its feeder.')),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('webhook', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='replays', to='webhooks.webhook')),
            ],
            options={
                'ordering': ['-requested_at'],
                'constraints': [models.UniqueConstraint(condition=models.Q(('finished_at__isnull', True)), fields=('webhook',), name='one_running_replay')],
            },
        ),
    ]
