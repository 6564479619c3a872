"""The official channels' models moved from the `messaging` app to their own (`channels`, decision record
0020): a database with rows in every table at messaging 0010 keeps them all, the new app's models find
them, the admin permissions granted on them still open the admin, and the reverse gives them back."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from functools import partial

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from messaging.channels.models import (
    ChannelAccount,
    ChannelCall,
    ChannelConversation,
    ChannelInboundBatch,
    ChannelTemplate,
)

BEFORE_MESSAGING = ("messaging", "0010_channel_inbound_jobs")
BEFORE = [BEFORE_MESSAGING, ("channels", None)]
CREDENTIALS = {"phoneNumberId": "1099", "accessToken": "EAAG-legacy-token"}
LAST_CUSTOMER_AT = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def migrate(targets: list[tuple[str, str | None]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return MigrationExecutor(connection)  # a fresh loader sees the new state


def count(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {table}")  # our own table names
        return cursor.fetchone()[0]


def labels() -> set[str]:
    ContentType.objects.clear_cache()
    return set(ContentType.objects.filter(model__startswith="channel").values_list("app_label", flat=True))


def rows_written_at_messaging_0010(account_id: int) -> uuid.UUID:
    old = migrate(BEFORE).loader.project_state([BEFORE_MESSAGING]).apps
    session = old.get_model("messaging", "Session").objects.create(
        id=uuid.uuid4(), account_id=account_id, name="legacy", provider="whatsapp_cloud", official=True,
        status="connected", instance_key_prefix="legacyk1", instance_key_digest="1" * 64,
    )  # fmt: skip
    model = partial(old.get_model, "messaging")
    model("ChannelAccount").objects.create(session_id=session.pk, credentials=CREDENTIALS)
    model("ChannelTemplate").objects.create(
        session_id=session.pk, name="boleto", language="pt_BR", status="APPROVED", body="Olá {{1}}"
    )
    model("ChannelConversation").objects.create(
        session_id=session.pk, chat="5511999990000@s.whatsapp.net", last_customer_at=LAST_CUSTOMER_AT
    )
    model("ChannelInboundBatch").objects.create(session_id=session.pk, body='{"entry": []}', item_count=0)
    model("ChannelCall").objects.create(
        session_id=session.pk, chat="5511999990000@s.whatsapp.net", kind="mark_read", message_id="wamid.IN1"
    )
    return session.pk


# Slow (tests/tiers.py): migrates the schema back and forth.
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_channels_rows_and_their_admin_permissions_survive_the_move_to_their_own_app(account):
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        session_id = rows_written_at_messaging_0010(account.pk)
        assert labels() == {"messaging"}  # the content types were given back to messaging
        clerk = get_user_model().objects.create_user("clerk", "clerk@example.com", "pw", is_staff=True)
        clerk.user_permissions.add(
            Permission.objects.get(content_type__app_label="messaging", codename="view_channelinboundbatch")
        )

        migrate(latest)
        assert ChannelAccount._meta.app_label == "channels"
        account_row = ChannelAccount.objects.get(session_id=session_id)
        assert account_row.credentials == CREDENTIALS and account_row.session.channel == account_row
        assert ChannelTemplate.objects.get(session_id=session_id).body == "Olá {{1}}"
        assert ChannelConversation.objects.get(session_id=session_id).last_customer_at == LAST_CUSTOMER_AT
        assert ChannelInboundBatch.objects.get(session_id=session_id).body == '{"entry": []}'
        assert ChannelCall.objects.get(session_id=session_id).message_id == "wamid.IN1"
        assert labels() == {"channels"}
        clerk = get_user_model().objects.get(pk=clerk.pk)  # no cached permissions
        assert clerk.has_perm("channels.view_channelinboundbatch")
        staff = Client()
        staff.force_login(clerk)
        assert staff.get("/admin/channels/channelinboundbatch/").status_code == 200

        migrate(BEFORE)
        assert labels() == {"messaging"}
        tables = ("channelaccount", "channeltemplate", "channelconversation", "channelinboundbatch")
        assert [count(f"messaging_{name}") for name in (*tables, "channelcall")] == [1, 1, 1, 1, 1]
        assert Permission.objects.filter(
            content_type__app_label="messaging", codename="view_channelinboundbatch", user=clerk
        ).exists()
    finally:
        migrate(latest)
