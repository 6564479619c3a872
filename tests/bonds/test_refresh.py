"""The refresh: providers → upsert by natural key → returns recomputed → cached replies invalidated."""

from __future__ import annotations

import io
import json
from datetime import date

import pytest
from django.core.management import CommandError, call_command
from django_celery_beat.models import PeriodicTask

from bonds.models import Bond, BrokerFeed, ProjectionSnapshot, RefreshRun
from bonds.refresh import bonds_refresh
from bonds.rendering import render_json
from tests.bonds.rows import with_ids

pytestmark = pytest.mark.django_db

FEED_BONDS = [
    ("CDB Inter 110% CDI", 77, "Banco Inter", "cdb", "cdi*", 1.1, True, False, False, 1000.0,
     "2028-11-23", True, "brAA", None, None, None, 0, None, None, None, None),
    ("LCA BB 95% CDI", 1, "Banco do Brasil", "lca", "cdi*", 0.95, True, True, False, 500.0,
     "2028-11-23", False, "brAAA", None, None, None, None, 270, None, None, None),
]  # fmt: skip


def feed_url(source, rows=FEED_BONDS, path="/broker.json") -> str:
    return source.route(path, render_json(status="ok", description="", rows=with_ids(rows)))


def run_command() -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("refresh_bonds", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_refresh_loads_offers_projections_and_returns(live_sources):
    BrokerFeed.objects.create(name="broker", url=feed_url(live_sources))
    output, _ = run_command()
    for provider in ("focus", "focus-copom", "copom-calendar", "sgs", "tesouro", "feed:broker"):
        assert f"{provider}: ok" in output
    assert "ok: 7/7 provider(s) ok; 9 created" in output
    run = RefreshRun.objects.get()
    assert run.status == RefreshRun.Status.OK and run.created == 9 and run.finished_at
    assert set(run.outcomes) == {
        "focus", "focus-copom", "copom-calendar", "sgs", "sgs-tr", "tesouro", "feed:broker"
    }  # fmt: skip
    snapshot = ProjectionSnapshot.objects.get()
    assert snapshot.selic_by_year == {"2026": 14.0, "2027": 12.25, "2028": 10.5}
    # The latest survey's medians per meeting (baseCalculo 0), in meeting order.
    assert snapshot.selic_by_meeting == {"R8/2026": 14.0, "R1/2027": 13.5, "R2/2027": 13.0}
    assert snapshot.meetings_focus_date == date(2026, 11, 13)
    assert (snapshot.selic_current, snapshot.cdi_current, snapshot.ipca_12m) == (14.25, 14.15, 4.68)
    assert snapshot.cdi_gap == pytest.approx(0.10) and snapshot.tr_monthly == pytest.approx(0.1698)
    assert snapshot.tr_date == date(2026, 11, 18)  # the TR in force: the latest month started by today
    # BCB's calendar (the fixture's 2027 dates): R1/2027 decided on 20 January, not estimated.
    assert snapshot.copom_calendar["R1/2027"] == "2027-01-20" and len(snapshot.copom_calendar) == 16
    assert Bond.objects.filter(source="tesouro").count() == 7
    assert not Bond.objects.filter(net_annualized_return__isnull=True).exists()
    lca = Bond.objects.get(name="LCA BB 95% CDI")
    assert lca.payment_probability is not None and lca.real_annualized_return < lca.net_annualized_return
    assert Bond.objects.get(name="Tesouro Selic 2031").payment_probability == 1.0
    assert BrokerFeed.objects.get().last_count == 2
    # Tesouro Direto is a sale at the market price, D+1, not a redemption at the contract rate.
    selic = Bond.objects.get(name="Tesouro Selic 2031")
    assert (selic.liquidity_days, selic.liquidity_kind, selic.early_withdrawal) == (1, "sale", False)
    # Liquidity is taken from the feed where given.
    cdb = Bond.objects.get(name="CDB Inter 110% CDI")
    assert (cdb.liquidity_days, cdb.grace_period_days, lca.liquidity_days, lca.grace_period_days) == (
        0,
        None,
        None,
        270,
    )


def test_running_twice_changes_nothing(live_sources):
    BrokerFeed.objects.create(name="broker", url=feed_url(live_sources))
    bonds_refresh()
    before = list(Bond.objects.order_by("pk").values())
    second = bonds_refresh()
    assert (second.created, second.updated, second.deactivated, second.recomputed) == (0, 0, 0, 0)
    after = list(Bond.objects.order_by("pk").values())
    for row in before + after:
        row.pop("last_seen_at")
    assert before == after
    assert ProjectionSnapshot.objects.count() == 1


def test_offers_missing_from_a_successful_run_become_inactive_and_come_back(live_sources):
    BrokerFeed.objects.create(name="broker", url=feed_url(live_sources))
    bonds_refresh()
    feed_url(live_sources, rows=FEED_BONDS[:1])
    run = bonds_refresh()
    assert run.deactivated == 1
    gone = Bond.objects.get(name="LCA BB 95% CDI")
    assert not gone.is_active  # kept, not deleted
    feed_url(live_sources)
    assert bonds_refresh().updated == 1
    gone.refresh_from_db()
    assert gone.is_active


def test_a_failed_provider_leaves_its_offers_as_they_were(live_sources):
    BrokerFeed.objects.create(name="broker", url=feed_url(live_sources))
    bonds_refresh()
    live_sources.route(
        "/tesouro/PrecoTaxaTesouroDireto.csv", "<html>502</html>", status=502, content_type="text/html"
    )
    live_sources.route("/broker.json", json.dumps({"bonds": [{"name": "broken"}]}))
    run = bonds_refresh()
    assert run.status == RefreshRun.Status.PARTIAL
    assert not run.outcomes["tesouro"]["ok"] and "HTTP 502" in run.outcomes["tesouro"]["error"]
    assert "missing" in run.outcomes["feed:broker"]["error"]
    assert Bond.objects.filter(is_active=True).count() == 9
    assert "missing bank" in BrokerFeed.objects.get().last_error


def test_command_fails_when_every_provider_failed(fake_source, settings):
    settings.BONDS_FOCUS_BASE_URL = fake_source.base + "/none"
    settings.BONDS_SGS_BASE_URL = fake_source.base + "/none"
    settings.BONDS_TESOURO_CSV_URL = fake_source.base + "/none.csv"
    with pytest.raises(CommandError, match="Every provider failed"):
        run_command()
    run = RefreshRun.objects.get()
    assert run.status == RefreshRun.Status.FAILED and "HTTP 404" in run.errors


def test_an_uploaded_feed_file_is_read(live_sources, tmp_path, settings):
    from django.core.files.base import ContentFile

    settings.VAR_DIR = tmp_path
    feed = BrokerFeed(name="upload")
    feed.file.save(
        "offers.json", ContentFile(render_json(status="ok", description="", rows=with_ids(FEED_BONDS)))
    )
    run = bonds_refresh()
    assert run.outcomes["feed:upload"]["created"] == 2


def test_daily_refresh_is_a_periodic_task_at_six_in_sao_paulo():
    task = PeriodicTask.objects.get(task="bonds.tasks.refresh_bonds")
    assert task.enabled
    assert (task.crontab.minute, task.crontab.hour, str(task.crontab.timezone)) == (
        "0",
        "6",
        "America/Sao_Paulo",
    )


def test_refresh_task_runs_the_refresh(live_sources):
    from bonds.tasks import refresh_bonds

    run_id = refresh_bonds.apply(kwargs={"trigger": "beat"}).get()
    assert RefreshRun.objects.get(pk=run_id).trigger == "beat"


def test_a_feed_offer_without_rating_takes_its_issuers_rating(live_sources):
    from bonds.models import Issuer

    Issuer.objects.create(code=77, name="Banco Inter", rating="brA+")
    rows = [(*FEED_BONDS[0][:12], None, None, None, None, 0, None, None, None, None), FEED_BONDS[1]]
    BrokerFeed.objects.create(name="broker", url=feed_url(live_sources, rows=rows))
    bonds_refresh()
    assert Bond.objects.get(name="CDB Inter 110% CDI").rating == "brA+"
    assert Bond.objects.get(name="LCA BB 95% CDI").rating == "brAAA"
