"""A refresh says what it did: a partial one exits 3 (a total failure 1, a full success 0) and names the
sources that failed, in its output, its RefreshRun (and the admin) and the scheduled task's log; the
demo's Tesouro titles are the provider's, so a real refresh replaces them instead of adding beside them;
an offer keeps its id from one refresh to the next."""

from __future__ import annotations

import io
import logging
from datetime import date
from importlib import import_module

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command, load_command_class

from bonds import demo
from bonds.models import Bond, RefreshRun
from bonds.refresh import bonds_refresh
from tests.bonds.conftest import fixture_bytes
from tests.bonds.test_list_api import bearer

pytestmark = pytest.mark.django_db

TESOURO_CSV = "/tesouro/PrecoTaxaTesouroDireto.csv"
MIGRATION = import_module("bonds.migrations.0005_demo_tesouro_titles_are_the_providers")


def tesouro_down(source) -> None:
    source.route(TESOURO_CSV, "<html>502 Bad Gateway</html>", status=502, content_type="text/html")


def run_command() -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("refresh_bonds", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def listed_tesouro(api_client, key: str) -> list[dict]:
    bonds = api_client.get("/bonds/api/?product=td", **bearer(key)).json()["bonds"]
    return [bond for bond in bonds if bond["bank"] == 0]


# --- Exit codes and failed sources ---------------------------------------------------------------------


def test_a_full_refresh_exits_0_and_names_no_failed_source(live_sources):
    output, errors = run_command()  # no CommandError: exit status 0
    assert "ok: 6/6 provider(s) ok" in output and "failed" not in output + errors
    assert RefreshRun.objects.get().failed_sources == []


def test_a_partial_refresh_exits_3_and_names_the_sources_that_failed(live_sources):
    tesouro_down(live_sources)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("refresh_bonds", stdout=out, stderr=err)
    assert raised.value.returncode == 3
    assert "Partial refresh: tesouro failed" in str(raised.value)
    assert "Failed: tesouro." in err.getvalue() and "  tesouro: " in err.getvalue()
    assert "HTTP 502" in err.getvalue()
    assert "tesouro: FAILED" in out.getvalue() and "focus: ok" in out.getvalue()
    run = RefreshRun.objects.get()
    assert run.status == RefreshRun.Status.PARTIAL and run.failed_sources == ["tesouro"]


def test_the_command_line_exit_status_of_a_partial_refresh_is_3(live_sources, capsys):
    tesouro_down(live_sources)
    live_sources.route(
        "/olinda/odata/ExpectativasMercadoSelic", "nope", status=500, content_type="text/plain"
    )
    command = load_command_class("bonds", "refresh_bonds")
    with pytest.raises(SystemExit) as exited:
        command.run_from_argv(["manage.py", "refresh_bonds"])
    assert exited.value.code == 3
    assert "focus-copom, tesouro failed" in capsys.readouterr().err


def test_a_refresh_where_every_source_failed_exits_1_and_names_them_all(fake_source, settings):
    settings.BONDS_FOCUS_BASE_URL = fake_source.base + "/none"
    settings.BONDS_SGS_BASE_URL = fake_source.base + "/none"
    settings.BONDS_TESOURO_CSV_URL = fake_source.base + "/none.csv"
    settings.BONDS_COPOM_CALENDAR_URL = fake_source.base + "/none.ics"
    with pytest.raises(CommandError) as raised:
        run_command()
    assert raised.value.returncode == 1
    assert "copom-calendar, focus, focus-copom, sgs, sgs-tr, tesouro" in str(raised.value)
    failed = ["copom-calendar", "focus", "focus-copom", "sgs", "sgs-tr", "tesouro"]
    assert RefreshRun.objects.get().failed_sources == failed


def test_the_admin_lists_the_failed_sources_of_each_run(live_sources, admin_client):
    tesouro_down(live_sources)
    run = bonds_refresh()
    page = admin_client.get("/admin/bonds/refreshrun/").content.decode()
    assert "Failed sources" in page and "tesouro" in page
    detail = admin_client.get(f"/admin/bonds/refreshrun/{run.pk}/change/").content.decode()
    assert "Failed sources" in detail and "HTTP 502" in detail


def test_the_admins_refresh_now_names_the_failed_sources(live_sources, admin_client):
    tesouro_down(live_sources)
    response = admin_client.post("/admin/bonds/refreshrun/refresh-now/", follow=True)
    messages = [str(message) for message in response.context["messages"]]
    assert any("partial" in message and "Failed: tesouro." in message for message in messages), messages


def test_the_scheduled_task_logs_a_partial_refresh_with_its_failed_sources(live_sources, caplog):
    from bonds.tasks import refresh_bonds

    tesouro_down(live_sources)
    with caplog.at_level(logging.WARNING, logger="bonds.tasks"):
        run_id = refresh_bonds.apply(kwargs={"trigger": "beat"}).get()
    run = RefreshRun.objects.get(pk=run_id)
    assert (run.trigger, run.status, run.failed_sources) == ("beat", RefreshRun.Status.PARTIAL, ["tesouro"])
    warnings = [r for r in caplog.records if r.name == "bonds.tasks" and r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "partial" in warnings[0].getMessage()
    assert "tesouro" in warnings[0].getMessage()


# --- One identity for a Tesouro title ------------------------------------------------------------------


def test_a_real_refresh_after_the_demo_lists_each_tesouro_title_once_keeping_its_id(
    live_sources, api_client, key
):
    demo.load(stdout=io.StringIO(), count=20)
    before = {bond["name"]: bond["id"] for bond in listed_tesouro(api_client, key)}
    assert "Tesouro Selic 2031" in before
    bonds_refresh()
    after = listed_tesouro(api_client, key)
    names = [bond["name"] for bond in after]
    assert len(names) == len(set(names)) == 7  # the Tesouro CSV's titles, once each
    # A title the demo had keeps its id; one the real file lacks is no longer listed.
    assert {bond["name"]: bond["id"] for bond in after}["Tesouro Selic 2031"] == before["Tesouro Selic 2031"]
    assert "Tesouro Reserva" not in names and "Tesouro Reserva" in before
    assert not Bond.objects.filter(product="td", is_active=True).exclude(source="tesouro").exists()


def test_the_demo_loaded_after_a_real_refresh_leaves_the_real_tesouro_titles_alone(
    live_sources, api_client, key
):
    bonds_refresh()
    real = sorted((bond["name"], bond["id"], bond["rate"]) for bond in listed_tesouro(api_client, key))
    demo.load(stdout=io.StringIO(), count=20)
    assert (
        sorted((bond["name"], bond["id"], bond["rate"]) for bond in listed_tesouro(api_client, key)) == real
    )


def test_the_demo_loaded_twice_keeps_its_tesouro_titles_and_their_ids(api_client, key):
    demo.load(stdout=io.StringIO(), count=20)
    first = listed_tesouro(api_client, key)
    demo.load(stdout=io.StringIO(), count=20)
    assert listed_tesouro(api_client, key) == first and len(first) == len(demo.TESOURO)


# --- Stable ids ----------------------------------------------------------------------------------------


def listed_ids(api_client, key: str) -> dict[tuple[str, str], int]:
    bonds = api_client.get("/bonds/api/", **bearer(key)).json()["bonds"]
    return {(bond["name"], bond["maturity_date"]): bond["id"] for bond in bonds}


def test_an_offer_keeps_its_id_across_refreshes(live_sources, api_client, key):
    bonds_refresh()
    first = listed_ids(api_client, key)
    tesouro_down(live_sources)
    bonds_refresh()  # its offers stay as they were
    live_sources.route(TESOURO_CSV, fixture_bytes("tesouro.csv"), content_type="text/csv")
    bonds_refresh()
    assert listed_ids(api_client, key) == first and len(first) == 7


def test_tesouro_titles_an_earlier_demo_loaded_become_the_providers_keeping_their_ids(live_sources):
    old = {
        name: Bond.objects.create(
            source="demo", natural_key=f"demo-td|{label}|{key}", name=name, bank=0,
            bank_name="Tesouro Nacional", product="td", index=index, rate=rate, maturity_date=maturity,
        )
        for name, label, key, index, rate, maturity in (
            ("Tesouro Selic 2031", "Tesouro Selic", "2031-03-01", "selic+", 0.001, date(2031, 3, 1)),
            ("Tesouro Reserva", "Tesouro Reserva", "reserva", "selic*", 1.0, date(2029, 11, 26)),
        )
    }  # fmt: skip
    MIGRATION.demo_titles_to_the_provider(apps, None)
    moved = Bond.objects.get(pk=old["Tesouro Selic 2031"].pk)
    assert (moved.source, moved.natural_key) == ("tesouro", "Tesouro Selic|2031-03-01")
    bonds_refresh()
    selic = Bond.objects.filter(name="Tesouro Selic 2031", is_active=True)
    assert [bond.pk for bond in selic] == [moved.pk]
    assert not Bond.objects.get(pk=old["Tesouro Reserva"].pk).is_active  # not in the real file
    assert not Bond.objects.filter(source="demo", product="td", is_active=True).exists()


def test_after_a_real_refresh_an_earlier_demos_tesouro_titles_are_retired(live_sources):
    bonds_refresh()
    old = Bond.objects.create(
        source="demo", natural_key="demo-td|Tesouro Educa+|2031-12-15", name="Tesouro Educa+ 2027",
        bank=0, bank_name="Tesouro Nacional", product="td", index="ipca+", rate=0.07,
        maturity_date=date(2031, 12, 15),
    )  # fmt: skip
    MIGRATION.demo_titles_to_the_provider(apps, None)
    old.refresh_from_db()
    assert (old.source, old.is_active) == ("demo", False)
    assert Bond.objects.filter(name="Tesouro Educa+ 2027", is_active=True).count() == 1
