"""ponte_client.Client against a live Ponte: every interface, typed results, typed errors."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest
from ponte_client import (
    NO_RATE_LIMIT,
    AuthenticationError,
    BadRequestError,
    Bond,
    BondsAccessError,
    Client,
    NotFoundError,
    PermissionDeniedError,
    Session,
)

from messaging.models import Session as SessionRow
from messaging.services.sessions import sandbox_scan


def test_bonds_list_returns_typed_rows_with_a_key_and_a_preview_without(client, ponte) -> None:
    full = client.bonds.list()
    assert full.status == "ok" and len(full.bonds) > 5
    bond = full.bonds[0]
    assert isinstance(bond, Bond) and isinstance(bond.maturity_date, date) and isinstance(bond.rate, float)
    cdbs = client.bonds.list(product=["cdb"], tax_free=False)
    assert (
        cdbs.bonds and {b.product for b in cdbs.bonds} == {"cdb"} and not any(b.tax_free for b in cdbs.bonds)
    )
    with Client(base_url=ponte) as anonymous:
        preview = anonymous.bonds.list()
    assert preview.status == "preview" and len(preview.bonds) == 5
    assert any(b.net_return_cdi_percent is not None for b in full.bonds)


def test_bonds_list_takes_the_investor_filters_and_reads_each_bonds_id(client) -> None:
    every = client.bonds.list()
    assert all(isinstance(bond.id, int) for bond in every.bonds)
    assert len({bond.id for bond in every.bonds}) == len(every.bonds)
    chosen = client.bonds.list(
        maturity_from=date(2027, 1, 1), maturity_to="2031-12-31", amount=1000, rating_min="brAA", sort="-rate"
    )
    assert chosen.bonds and len(chosen.bonds) < len(every.bonds)
    assert all(date(2027, 1, 1) <= bond.maturity_date <= date(2031, 12, 31) for bond in chosen.bonds)
    assert all(bond.min_investment <= 1000 for bond in chosen.bonds)
    rates = [bond.rate for bond in chosen.bonds]
    assert rates == sorted(rates, reverse=True)
    assert not any(bond.rating in (None, "-", "brA+", "brBBB+", "brBB") for bond in chosen.bonds)


def test_a_bond_row_with_fields_the_client_does_not_know_still_reads() -> None:
    row = {
        "name": "CDB Banco X",
        "bank": 1,
        "bank_name": "Banco X",
        "product": "cdb",
        "index": "cdi",
        "rate": 1.0,
        "fgc_protection": True,
        "tax_free": False,
        "exclusive": False,
        "min_investment": 100.0,
        "maturity_date": "2030-01-02",
        "early_withdrawal": False,
        "rating": "AA",
        "payment_probability": 0.99,
        "net_annualized_return": 0.11,
        "real_annualized_return": 0.06,
        "liquidity_days": 0,
        "a_field_added_later": "x",
    }
    bond = Bond.from_json(row)
    assert bond.liquidity_days == 0 and bond.grace_period_days is None
    assert bond.raw["a_field_added_later"] == "x"


def test_bonds_csv_and_its_pt_br_locale(client) -> None:
    rows = list(csv.reader(io.StringIO(client.bonds.csv(product=["cdb"]))))
    assert rows[0][:3] == ["name", "bank", "bank_name"] and len(rows) > 1
    assert "VERDADEIRO" in client.bonds.csv(locale="pt-BR") or "FALSO" in client.bonds.csv(locale="pt-BR")


def test_a_key_without_subscription_raises_a_typed_bonds_error(ponte, make_account, make_key) -> None:
    plaintext = make_key(for_account=make_account(bonds_subscription=None))
    with Client(base_url=ponte, api_key=plaintext) as client, pytest.raises(BondsAccessError) as caught:
        client.bonds.list()
    assert caught.value.statusCode == 200 and caught.value.error == "no_subscription"
    assert "subscription" in caught.value.message


def test_sessions_create_list_get_connect_qrcode_pair_logout_delete(client) -> None:
    session = client.sessions.create("shop")
    assert isinstance(session, Session) and session.status == "disconnected" and session.instance_key
    assert [s.id for s in client.sessions.list().items] == [session.id]
    assert client.sessions.get(session.id).name == "shop"
    connection = client.sessions.connect(session.id)
    assert connection.status == "qr" and connection.qr_code.startswith("2@")
    qr = client.sessions.qrcode(session.id)
    assert qr.qr_code == connection.qr_code and qr.image.startswith("data:image/png;base64,")
    pairing = client.sessions.pairing_code(session.id, "5511988887777")
    assert len(pairing.pairing_code) == 9 and pairing.phone_number == "5511988887777"
    assert client.sessions.list(status="qr").total == 1
    assert client.sessions.logout(session.id)["success"] is True
    client.sessions.delete(session.id)
    with pytest.raises(NotFoundError) as caught:
        client.sessions.get(session.id)
    assert caught.value.statusCode == 404 and caught.value.error == "SESSION_NOT_FOUND"


def _paired(client: Client) -> str:
    session = client.sessions.create("paired")
    client.sessions.connect(session.id)
    sandbox_scan(session=SessionRow.objects.get(pk=session.id), phone="5511999990001")
    return session.id


def test_messages_contacts_and_groups(client) -> None:
    session_id = _paired(client)
    sent = client.messages.send_text(session_id, "5511988880002", "olá")
    assert sent.message_id and sent.to == "5511988880002@s.whatsapp.net"
    reply = client.messages.send_text(session_id, "5511988880002", "again", quoted_message_id=sent.message_id)
    assert client.messages.react(session_id, "5511988880002", reply.message_id, "👍")["success"] is True
    where = client.messages.send_location(session_id, "5511988880002", -23.5, -46.6, name="Office")
    history = client.messages.list(session_id, chat="5511988880002")
    assert history.total >= 3 and {m["messageId"] for m in history.items} >= {
        sent.message_id,
        where.message_id,
    }
    assert client.messages.delete(session_id, "5511988880002", sent.message_id)["success"] is True
    checked = client.contacts.check(session_id, ["5511988880002", "5511988880000"])
    assert [r["exists"] for r in checked] == [True, False]
    assert client.contacts.set_name(session_id, "Loja")["success"] is True
    assert client.contacts.set_status(session_id, "Open 9-18")["success"] is True
    group = client.groups.create(session_id, "Team", ["5511988880002"])
    assert group["subject"] == "Team"
    assert [g["id"] for g in client.groups.list(session_id)] == [group["id"]]
    assert client.groups.leave(session_id, group["id"])["success"] is True


def test_webhooks_crud(client, settings) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    session = client.sessions.create("hooks")
    hook = client.webhooks.create(
        session.id, "http://127.0.0.1:9/hook", ["message"], secret="s", retry_count=3
    )
    assert hook.has_secret and hook.retry_count == 3 and hook.events == ["message"]
    assert [w.id for w in client.webhooks.list(session_id=session.id)] == [hook.id]
    updated = client.webhooks.update(hook.id, events=["message", "connected"], retry_count=5)
    assert updated.events == ["message", "connected"] and client.webhooks.get(hook.id).retry_count == 5
    client.webhooks.delete(hook.id)
    with pytest.raises(NotFoundError) as caught:
        client.webhooks.get(hook.id)
    assert caught.value.error == "Webhook not found"


def test_webhook_retry_schedule_is_set_changed_and_refused_when_bad(client, settings) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    session = client.sessions.create("scheduled")
    hook = client.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"])
    assert hook.retry_schedule == "seed"
    assert client.webhooks.update(hook.id, retry_schedule="extended").retry_schedule == "extended"
    assert client.webhooks.update(hook.id, retry_schedule=(5, 60)).retry_schedule == [5, 60]
    assert client.webhooks.update(hook.id, retry_count=2).retry_schedule == [5, 60]  # not given: kept
    with pytest.raises(BadRequestError) as caught:
        client.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"], retry_schedule=[90_000])
    assert caught.value.error.startswith("retrySchedule: ")


def test_webhook_ordering_is_set_changed_and_refused_when_bad(client, settings) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    session = client.sessions.create("ordered")
    hook = client.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"], ordering="fifo")
    assert hook.ordering == "fifo"
    assert client.webhooks.update(hook.id, ordering="parallel").ordering == "parallel"
    assert client.webhooks.update(hook.id, retry_count=2).ordering == "parallel"  # not given: kept
    with pytest.raises(BadRequestError) as caught:
        client.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"], ordering="lifo")
    assert "ordering" in caught.value.error


def test_webhook_filter_is_set_shown_and_removed(client, settings) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    session = client.sessions.create("filtered")
    conditions = {"data.fromMe": False, "data.type": {"$in": ["image", "video"]}}
    hook = client.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"], body_filter=conditions)
    assert hook.body_filter == conditions and client.webhooks.get(hook.id).body_filter == conditions
    assert client.webhooks.update(hook.id, retry_count=2).body_filter == conditions  # not given: kept
    assert client.webhooks.update(hook.id, body_filter={}).body_filter is None
    with pytest.raises(BadRequestError) as caught:
        client.webhooks.update(hook.id, body_filter={"data.type": {"$regex": "x"}})
    assert caught.value.error.startswith("filter: ")


def test_webhook_rate_limit_is_set_changed_and_removed(client, settings) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    session = client.sessions.create("paced")
    hook = client.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"], rate_limit=5)
    assert hook.rate_limit == 5
    assert client.webhooks.update(hook.id, rate_limit=20).rate_limit == 20
    assert client.webhooks.update(hook.id, retry_count=2).rate_limit == 20  # not given: kept
    assert client.webhooks.update(hook.id, rate_limit=NO_RATE_LIMIT).rate_limit is None
    with pytest.raises(BadRequestError):
        client.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"], rate_limit=1001)
    with pytest.raises(NotFoundError) as caught:
        client.webhooks.get("wh_unknown")
    assert caught.value.error == "Webhook not found"  # the gateway's {error} shape


def test_instance_config_and_statistics(client, settings) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    instance_key = client.sessions.create("instance").instance_key
    client.instance.update_config(instance_key, allowWebhook=True, webhookMessage="http://127.0.0.1:9/meta")
    config = client.instance.config(instance_key)
    assert "http://127.0.0.1:9/meta" in str(config)
    assert isinstance(client.instance.statistics(instance_key), dict)
    with pytest.raises(NotFoundError) as caught:
        client.instance.config("not-a-key")
    assert caught.value.statusCode == 404 and caught.value.error == "INSTANCE_NOT_FOUND"


def test_errors_carry_status_code_error_and_message(ponte, viewer_key) -> None:
    with (
        Client(base_url=ponte, api_key="ponte_xxxxxxxx_wrong") as client,
        pytest.raises(AuthenticationError) as bad,
    ):
        client.sessions.list()
    assert (bad.value.statusCode, bad.value.error) == (401, "Unauthorized") and bad.value.message
    with Client(base_url=ponte, api_key=viewer_key) as client, pytest.raises(PermissionDeniedError) as denied:
        client.sessions.create("nope")
    assert denied.value.statusCode == 403 and "role" in denied.value.message
