"""Staff dashboard: webhooks, events, and deliveries with their attempts; dead letters are resent from
here ("Resend selected", or "Resend all matching" the current filters), keeping the x-webhook-id."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from webhooks.models import Delivery, DeliveryAttempt, Event, InstanceWebhookConfig, Webhook
from webhooks.outbox import deliveries_resend


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ["id", "account", "session", "url", "events", "retry_count", "signed", "created_at"]
    list_filter = ["account", "retry_count"]
    search_fields = ["id", "url", "account__name", "session__name"]
    # The secret is never shown; change it through the gateway's PATCH.
    exclude = ["secret"]
    readonly_fields = ["id", "account", "session", "created_at", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # registered through the gateway, which validates the URL and the plan's cap

    @admin.display(boolean=True, description="signed")
    def signed(self, webhook: Webhook) -> bool:
        return bool(webhook.secret)


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["name", "session", "chat", "sequence", "created_at"]
    list_filter = ["name", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["session__name", "chat"]
    readonly_fields = ["id", "session", "name", "data", "chat", "sequence", "event_ms", "received_at_ms"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Event | None = None) -> bool:
        return False


class DeliveryAttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    fields = [
        "number",
        "scheduled_at",
        "started_at",
        "status_code",
        "duration_ms",
        "outcome",
        "error",
        "response_excerpt",
        "requested_by",
    ]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return False


class EventNameFilter(admin.SimpleListFilter):
    title = "event"
    parameter_name = "event"

    def lookups(self, request, model_admin):
        names = Event.objects.order_by().values_list("name", flat=True).distinct()
        return [(name, name) for name in sorted(set(names))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> QuerySet[Delivery]:
        return queryset.filter(event__name=self.value()) if self.value() else queryset


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    change_list_template = "admin/webhooks/delivery/change_list.html"
    list_display = [
        "dispatch_id",
        "status",
        "event_name",
        "webhook",
        "session",
        "target_url",
        "attempt_count",
        "last_status_code",
        "next_attempt_at",
        "created_at",
    ]
    list_filter = [
        "status",
        "kind",
        EventNameFilter,
        "webhook",
        "session",
        ("created_at", admin.DateFieldListFilter),
    ]
    search_fields = ["dispatch_id", "target_url"]
    date_hierarchy = "created_at"
    list_select_related = ["event", "webhook", "session"]
    inlines = [DeliveryAttemptInline]
    actions = ["resend_selected"]
    readonly_fields = [
        "dispatch_id",
        "kind",
        "event",
        "session",
        "webhook",
        "target_url",
        "payload",
        "status",
        "max_attempts",
        "timeout_seconds",
        "attempt_count",
        "next_attempt_at",
        "claimed_at",
        "last_status_code",
        "last_error",
        "delivered_at",
        "dead_at",
        "resend_requested_by",
        "resend_requested_at",
        "created_at",
        "updated_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="event", ordering="event__name")
    def event_name(self, delivery: Delivery) -> str:
        return delivery.event.name

    def _report(self, request: HttpRequest, queued: int, skipped: int) -> None:
        self.message_user(
            request,
            f"Queued {queued} delivery(ies) for a new attempt with the same x-webhook-id."
            + (f" Skipped {skipped} still on their way or without a webhook." if skipped else ""),
            messages.SUCCESS if queued else messages.WARNING,
        )

    @admin.action(description="Resend selected")
    def resend_selected(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        queued, skipped = deliveries_resend(deliveries=queryset, requested_by=request.user)
        self._report(request, queued, skipped)

    def get_urls(self):
        view = self.admin_site.admin_view(self.resend_matching_view)
        return [
            path("resend-matching/", view, name="webhooks_delivery_resend_matching"),
            *super().get_urls(),
        ]

    def resend_matching_view(self, request: HttpRequest) -> HttpResponse:
        """Resend every delivery matching the changelist's current filters, after a confirmation."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        changelist = self.get_changelist_instance(request)
        matching = changelist.get_queryset(request)
        back = reverse("admin:webhooks_delivery_changelist") + (
            f"?{request.GET.urlencode()}" if request.GET else ""
        )
        if request.method == "POST":
            queued, skipped = deliveries_resend(deliveries=matching, requested_by=request.user)
            self._report(request, queued, skipped)
            return HttpResponseRedirect(back)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Resend all matching deliveries",
            "matching": matching.count(),
            "resendable": matching.filter(
                status__in=[Delivery.Status.DEAD, Delivery.Status.DELIVERED]
            ).count(),
            "back": back,
        }
        return TemplateResponse(request, "admin/webhooks/delivery/resend_matching.html", context)

    def resend_matching_link(self, request: HttpRequest) -> str:
        query = request.GET.urlencode()
        url = reverse("admin:webhooks_delivery_resend_matching") + (f"?{query}" if query else "")
        return format_html('<a href="{}" class="resend-matching">Resend all matching</a>', url)

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        extra_context = {**(extra_context or {}), "resend_matching_link": self.resend_matching_link(request)}
        return super().changelist_view(request, extra_context)


@admin.register(InstanceWebhookConfig)
class InstanceWebhookConfigAdmin(admin.ModelAdmin):
    list_display = [
        "session",
        "allow_webhook",
        "webhook_format",
        "allow_number",
        "webhook_message",
        "updated_at",
    ]
    list_filter = ["allow_webhook", "webhook_format"]
    search_fields = ["session__name", "session__id", "webhook_message"]
    raw_id_fields = ["session"]
