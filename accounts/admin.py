from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone

from accounts.models import Account, ApiKey, Plan, Subscription
from accounts.services import api_key_create, api_key_revoke, bonds_subscription_approve
from core.admin_once import shown_once
from core.admin_safety import QueryStringGuard
from core.errors import Conflict


@admin.register(Plan)
class PlanAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ["name", "requests_per_minute", "max_active_sessions", "messages_per_day", "max_webhooks"]


class SubscriptionInline(admin.TabularInline):
    model = Subscription
    extra = 0


@admin.register(Account)
class AccountAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ["name", "customer", "plan", "is_active", "created_at"]
    list_filter = ["plan", "is_active"]
    search_fields = ["name", "customer", "email"]
    raw_id_fields = ["user"]  # the customer's sign-in to /account/
    inlines = [SubscriptionInline]


@admin.register(Subscription)
class SubscriptionAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ["account", "product", "status", "current_period_end", "updated_at"]
    list_filter = ["product", "status"]
    search_fields = ["account__name"]
    actions = ["approve_requests"]

    @admin.action(description="Approve the requested subscriptions (they become active)")
    def approve_requests(self, request: HttpRequest, queryset: QuerySet[Subscription]) -> None:
        approved, skipped = 0, []
        for subscription in queryset:
            try:
                bonds_subscription_approve(subscription=subscription)
            except Conflict:
                skipped.append(str(subscription))
            else:
                approved += 1
        self.message_user(request, f"{approved} subscription(s) approved.", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, "Not requested, left as they are: " + "; ".join(skipped), messages.WARNING
            )


class KeyStatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("active", "Active"), ("expired", "Expired"), ("revoked", "Revoked")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> QuerySet[ApiKey]:
        now = timezone.now()
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        if self.value() == "expired":
            return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True).exclude(expires_at__lte=now)
        return queryset


class ApiKeyAdmin(QueryStringGuard, admin.ModelAdmin):
    """The key admin without its forms: messaging.admin registers it with the forms that pick the
    account's sessions (messaging.admin_keys), so this app needs nothing of messaging."""

    list_display = [
        "prefix",
        "name",
        "account",
        "role",
        "status_label",
        "expires_at",
        "last_used_at",
        "created_at",
    ]
    list_filter = ["role", KeyStatusFilter, "account"]
    search_fields = ["prefix", "name", "account__name"]
    readonly_fields = ["prefix", "last_used_at", "revoked_at", "created_at"]
    issue_form: type[forms.ModelForm]
    actions = ["revoke_selected"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = self.issue_form
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return self.issue_form.Meta.fields
        return [
            "account",
            "name",
            "role",
            "prefix",
            "expires_at",
            "allowed_ips",
            "allowed_sessions",
            "last_used_at",
            "revoked_at",
            "created_at",
        ]

    def get_readonly_fields(self, request, obj=None):
        return ["account", *self.readonly_fields] if obj else []

    def save_model(self, request, obj: ApiKey, form, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        key, plaintext = api_key_create(
            account=obj.account,
            role=obj.role,
            name=obj.name,
            expires_at=obj.expires_at,
            allowed_ips=obj.allowed_ips,
            allowed_sessions=obj.allowed_sessions,
        )
        obj.pk, obj.prefix = key.pk, key.prefix
        obj.plaintext = plaintext  # for response_add, this request only

    def response_add(self, request: HttpRequest, obj: ApiKey, post_url_continue=None) -> HttpResponse:
        """The new key is shown in the reply to the POST that issued it (core.admin_once)."""
        plaintext = getattr(obj, "plaintext", None)
        if plaintext is None:
            return super().response_add(request, obj, post_url_continue)
        return shown_once(
            request,
            self,
            title="New API key",
            shown=[(f"New API key {obj.prefix}… ({obj.role}, {obj.account})", plaintext)],
            back=reverse("admin:accounts_apikey_changelist"),
            links=[
                ("View this key", reverse("admin:accounts_apikey_change", args=[obj.pk])),
                ("Issue another", reverse("admin:accounts_apikey_add")),
                ("All API keys", reverse("admin:accounts_apikey_changelist")),
            ],
        )

    @admin.display(description="status")
    def status_label(self, obj: ApiKey) -> str:
        return obj.status

    @admin.action(description="Revoke selected keys")
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        count = 0
        for key in queryset.filter(revoked_at__isnull=True):
            api_key_revoke(key=key)
            count += 1
        self.message_user(request, f"Revoked {count} key(s).", messages.SUCCESS)
