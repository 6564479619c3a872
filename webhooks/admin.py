"""Staff dashboard: webhooks, events, and deliveries with their attempts; dead letters are resent from
here ("Resend selected", or "Resend all matching" the current filters), keeping the x-webhook-id."""

from __future__ import annotations

from datetime import datetime

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import ngettext

from core.admin_once import shown_once
from core.admin_safety import QueryStringGuard, bad_lookup_redirect, has_nul
from webhooks.admin_forms import InstanceWebhookConfigForm, WebhookForm
from webhooks.models import Delivery, DeliveryAttempt, Event, InstanceWebhookConfig, Webhook
from webhooks.outbox.deliveries import deliveries_resend
from webhooks.registered.rotation import webhook_secret_rotate
from webhooks.registered.services import webhook_update
from webhooks.stream import admin as stream_admin  # noqa: F401 (registers the event stream's jobs)

WAITING = (Delivery.Status.PENDING, Delivery.Status.FAILED)


def _short_time(moment: datetime) -> str:
    """A time in few characters for a list column: today's without its date."""
    local = timezone.localtime(moment)
    return local.strftime("%H:%M:%S" if local.date() == timezone.localdate() else "%Y-%m-%d %H:%M")


@admin.register(Webhook)
class WebhookAdmin(QueryStringGuard, admin.ModelAdmin):
    form = WebhookForm
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = [
        "id",
        "account",
        "session",
        "url",
        "events",
        "retry_count",
        "rate_limit",
        "signed",
        "status",
        "created_at",
    ]
    list_filter = ["status", "account", "retry_count"]
    search_fields = ["id", "url", "account__name", "session__name"]
    # The secret is never shown; "Rotate the secret" replaces it (shown once), as the gateway's rotate.
    exclude = ["secret"]
    readonly_fields = [
        "id",
        "account",
        "session",
        "created_at",
        "updated_at",
        "disabled_reason",
        "disabled_at",
        "failing_since",
        "failed_attempts",
        "previous_secret_expires_at",
    ]
    actions = ["rotate_secret"]

    @admin.action(description="Rotate the secret (a new whsec_ secret; the old one signs too for a day)")
    def rotate_secret(self, request: HttpRequest, queryset: QuerySet[Webhook]) -> HttpResponse:
        shown = []
        for webhook in queryset:
            webhook, secret = webhook_secret_rotate(webhook=webhook)
            shown.append((f"New secret of {webhook.pk}", secret))
        back = reverse("admin:webhooks_webhook_changelist")
        return shown_once(request, self, title="Secrets rotated", shown=shown, back=back)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # registered through the gateway, which validates the URL and the plan's cap

    def save_model(self, request: HttpRequest, obj: Webhook, form: WebhookForm, change: bool) -> None:
        """Through the gateway's service, so deliveries still waiting follow a new URL or attempt count."""
        changed = {name: form.cleaned_data[name] for name in form.changed_data if name in form.Meta.fields}
        if "filter" in changed:
            changed["body_filter"] = changed.pop("filter")  # the service's name (filter is a builtin)
        if changed:
            webhook_update(webhook=obj, **changed)

    @admin.display(boolean=True, description="signed")
    def signed(self, webhook: Webhook) -> bool:
        return bool(webhook.secret)


@admin.register(Event)
class EventAdmin(QueryStringGuard, admin.ModelAdmin):
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

    def get_queryset(self, request: HttpRequest) -> QuerySet[DeliveryAttempt]:
        return super().get_queryset(request).select_related("delivery")  # each row's title reads it


class EventNameFilter(admin.SimpleListFilter):
    title = "event"
    parameter_name = "event"

    def lookups(self, request, model_admin):
        names = Event.objects.order_by().values_list("name", flat=True).distinct()
        return [(name, name) for name in sorted(set(names))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> QuerySet[Delivery]:
        return queryset.filter(event__name=self.value()) if self.value() else queryset


class SessionOfAccountFilter(admin.RelatedFieldListFilter):
    """Sessions named by name and account: two accounts' "demo-sandbox" were two identical choices."""

    def field_choices(self, field, request, model_admin):
        sessions = field.related_model.objects.select_related("account").order_by("name", "account__name")
        return [(session.pk, f"{session.name} · {session.account.name}") for session in sessions]


@admin.register(Delivery)
class DeliveryAdmin(QueryStringGuard, admin.ModelAdmin):
    change_list_template = "admin/webhooks/delivery/change_list.html"
    # Short columns: at 1366 px, with the sidebar and the filters open, all nine fit without a horizontal
    # scroll (tests/e2e/test_page_layout.py; the change list's CSS is in its template). The full id and
    # URL are in each cell's title, searchable, and one click away.
    list_display = [
        "dispatch",
        "status",
        "event_name",
        "session_name",
        "target",
        "attempts",
        "last_status",
        "next_try",
        "created",
    ]
    list_filter = [
        "status",
        "kind",
        EventNameFilter,
        "webhook",
        ("session", SessionOfAccountFilter),
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

    @admin.display(description="dispatch id", ordering="dispatch_id")
    def dispatch(self, delivery: Delivery) -> str:
        return format_html(
            '<span class="dispatch-id" title="{}">{}</span>',
            delivery.dispatch_id,
            Truncator(delivery.dispatch_id).chars(12),
        )

    @admin.display(description="event", ordering="event__name")
    def event_name(self, delivery: Delivery) -> str:
        return delivery.event.name

    @admin.display(description="session", ordering="session__name")
    def session_name(self, delivery: Delivery) -> str:
        return delivery.session.name

    @admin.display(description="target URL", ordering="target_url")
    def target(self, delivery: Delivery) -> str:
        shown = delivery.target_url.split("://", 1)[-1]
        return format_html('<span title="{}">{}</span>', delivery.target_url, Truncator(shown).chars(30))

    @admin.display(description="tries", ordering="attempt_count")
    def attempts(self, delivery: Delivery) -> str:
        return f"{delivery.attempt_count} of {delivery.max_attempts}"

    @admin.display(description="HTTP", ordering="last_status_code")
    def last_status(self, delivery: Delivery) -> str:
        return str(delivery.last_status_code or "-")

    @admin.display(description="next", ordering="next_attempt_at")
    def next_try(self, delivery: Delivery) -> str:
        if delivery.status not in WAITING:
            return "-"
        return _short_time(delivery.next_attempt_at)

    @admin.display(description="created", ordering="created_at")
    def created(self, delivery: Delivery) -> str:
        return _short_time(delivery.created_at)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        # Every field is read-only: a Save button would save nothing (resend from the list instead).
        extra_context = {**(extra_context or {}), "show_save": False, "show_save_and_continue": False}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_fields(self, request: HttpRequest, obj: Delivery | None = None) -> list[str]:
        fields = list(super().get_fields(request, obj))
        if obj is not None and obj.status not in WAITING:
            fields.remove("next_attempt_at")  # nothing is planned for a delivered or dead delivery
        return fields

    def _report(self, request: HttpRequest, queued: int, skipped: int) -> None:
        queued_text = ngettext(
            "Queued %(count)d delivery for a new attempt with the same x-webhook-id.",
            "Queued %(count)d deliveries for a new attempt with the same x-webhook-id.",
            queued,
        ) % {"count": queued}
        self.message_user(
            request,
            queued_text + (f" Skipped {skipped} still on their way or without a webhook." if skipped else ""),
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
        if has_nul(request):
            return bad_lookup_redirect(reverse("admin:webhooks_delivery_changelist"))
        try:
            changelist = self.get_changelist_instance(request)
        except IncorrectLookupParameters:
            return bad_lookup_redirect(reverse("admin:webhooks_delivery_changelist"))
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
class InstanceWebhookConfigAdmin(QueryStringGuard, admin.ModelAdmin):
    form = InstanceWebhookConfigForm
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
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

    def get_readonly_fields(
        self, request: HttpRequest, obj: InstanceWebhookConfig | None = None
    ) -> list[str]:
        return ["session"] if obj else []  # a configuration belongs to its session for good
