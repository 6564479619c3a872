"""Staff screens: bonds, issuers and ratings, projection snapshots, refresh runs (with each
provider's outcome and a "Refresh now" button), broker feeds."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.db import models, transaction
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from bonds.admin_forms import BondForm, ProjectionSnapshotForm
from bonds.figures import bond_returns_recompute
from bonds.issuers import issuer_rating_apply
from bonds.models import Bond, BrokerFeed, Issuer, ProjectionSnapshot, RefreshRun
from bonds.refresh import bonds_refresh
from core.admin_safety import QueryStringGuard


@admin.register(Bond)
class BondAdmin(QueryStringGuard, admin.ModelAdmin):
    form = BondForm
    list_display = (
        "name",
        "bank_name",
        "product",
        "index",
        "rate",
        "maturity_date",
        "net_annualized_return",
        "real_annualized_return",
        "payment_probability",
        "is_active",
        "source",
    )
    list_filter = ("product", "index", "is_active", "tax_free", "fgc_protection", "bank_name", "source")
    search_fields = ("name", "bank_name", "natural_key")
    readonly_fields = ("first_seen_at", "last_seen_at", "returns_computed_on", "updated_at")
    list_select_related = ("issuer",)
    list_per_page = 100

    def save_model(self, request: HttpRequest, obj: Bond, form, change: bool) -> None:
        """Staff may correct an offer: its returns follow at once. (The next refresh of its provider
        overwrites provider fields again.)"""
        super().save_model(request, obj, form, change)
        bond_returns_recompute(pks=[obj.pk])


@admin.register(Issuer)
class IssuerAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ("code", "name", "rating", "rating_scale", "rating_agency", "sovereign")
    list_filter = ("rating_scale", "sovereign")
    search_fields = ("name", "code")
    list_editable = ("rating",)

    def save_model(self, request: HttpRequest, obj: Issuer, form, change: bool) -> None:
        previous = (
            Issuer.objects.filter(pk=obj.pk).values_list("rating", flat=True).first() if change else None
        )
        super().save_model(request, obj, form, change)
        if change and previous != obj.rating:
            issuer_rating_apply(issuer=obj, previous=previous)


@admin.register(ProjectionSnapshot)
class ProjectionSnapshotAdmin(QueryStringGuard, admin.ModelAdmin):
    form = ProjectionSnapshotForm
    list_display = (
        "date",
        "focus_date",
        "selic_current",
        "cdi_current",
        "ipca_12m",
        "selic_path",
        "ipca_path",
    )
    date_hierarchy = "date"

    @admin.display(description="Selic by year (%)")
    def selic_path(self, snapshot: ProjectionSnapshot) -> str:
        return ", ".join(f"{year}: {value}" for year, value in sorted(snapshot.selic_by_year.items()))

    @admin.display(description="IPCA by year (%)")
    def ipca_path(self, snapshot: ProjectionSnapshot) -> str:
        return ", ".join(f"{year}: {value}" for year, value in sorted(snapshot.ipca_by_year.items()))


@admin.register(RefreshRun)
class RefreshRunAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = (
        "started_at",
        "trigger",
        "status",
        "provider_outcomes",
        "failed_sources_list",
        "created",
        "updated",
        "deactivated",
        "recomputed",
    )
    list_filter = ("status", "trigger")
    readonly_fields = [field.name for field in RefreshRun._meta.fields if field.name != "id"] + [
        "failed_sources_list",
        "outcomes_table",
    ]
    exclude = ("outcomes",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: RefreshRun | None = None) -> bool:
        return False

    @admin.display(description="Providers")
    def provider_outcomes(self, run: RefreshRun) -> str:
        return format_html_join(
            ", ",
            "{} {}",
            ((name, "✔" if outcome.get("ok") else "✘") for name, outcome in run.outcomes.items()),
        )

    @admin.display(description="Failed sources")
    def failed_sources_list(self, run: RefreshRun) -> str:
        return ", ".join(run.failed_sources) or "—"

    @admin.display(description="Outcome per provider")
    def outcomes_table(self, run: RefreshRun) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            (
                (name, "ok" if outcome.get("ok") else "failed", json.dumps(outcome, ensure_ascii=False))
                for name, outcome in run.outcomes.items()
            ),
        )
        return format_html("<table><tr><th>Provider</th><th>Outcome</th><th>Detail</th></tr>{}</table>", rows)

    def get_urls(self):
        # Not one request-wide transaction: providers are fetched over the network, and each one's
        # upsert commits on its own (a long transaction would hold SQLite's write lock meanwhile).
        refresh = transaction.non_atomic_requests(require_POST(self.admin_site.admin_view(self.refresh_now)))
        return [path("refresh-now/", refresh, name="bonds_refreshrun_refresh_now"), *super().get_urls()]

    def refresh_now(self, request: HttpRequest) -> HttpResponseRedirect:
        """Run the refresh in this request, so staff see the outcome at once."""
        if not self.has_view_permission(request):
            messages.error(request, "You may not run a refresh.")
        else:
            run = bonds_refresh(trigger="admin")
            level = {RefreshRun.Status.OK: messages.SUCCESS, RefreshRun.Status.FAILED: messages.ERROR}.get(
                run.status, messages.WARNING
            )
            messages.add_message(request, level, f"{run.summary} {run.errors}".strip())
        return HttpResponseRedirect(reverse("admin:bonds_refreshrun_changelist"))


@admin.register(BrokerFeed)
class BrokerFeedAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = (
        "name",
        "url",
        "file",
        "format",
        "is_active",
        "last_fetched_at",
        "last_count",
        "last_error",
    )
    list_filter = ("is_active", "format")
    readonly_fields = ("last_fetched_at", "last_count", "last_error")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
