from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from accounts.admin import ApiKeyAdmin
from accounts.models import ApiKey
from core.admin_once import shown_once
from core.admin_safety import QueryStringGuard, StrictJSONAdmin
from core.errors import ApplicationError
from messaging.admin_keys import ApiKeyForm, ApiKeyIssueForm
from messaging.channels.models import ChannelAccount, ChannelTemplate
from messaging.instance_keys import instance_key_masked
from messaging.models import Group, Message, Session
from messaging.services import sessions as services


class ChannelAccountInline(admin.StackedInline):
    """An official session's channel: who Meta says it is and why it was disconnected; the credentials
    themselves are never shown (stored encrypted, not an editable field)."""

    model = ChannelAccount
    fields = ["display_name", "verified_at", "disconnect_reason"]
    readonly_fields = fields
    can_delete = False
    extra = 0
    max_num = 0
    verbose_name = "official channel"


@admin.register(ChannelTemplate)
class ChannelTemplateAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ["name", "language", "status", "session", "variables", "synced_at"]
    list_filter = ["status"]
    search_fields = ["name", "body"]
    readonly_fields = ["session", "name", "language", "status", "category", "body", "variables", "components"]


class SessionAdminForm(forms.ModelForm):
    """The admin builds it for Session with the admin's fields (no Meta: every field, as by default)."""

    def clean_engine(self) -> str:
        """A path that does not import an engine class is refused here (the API would answer 502)."""
        path = self.cleaned_data.get("engine", "")
        if path and (error := services.session_engine_error(path)):
            raise forms.ValidationError(error)
        return path


@admin.register(Session)
class SessionAdmin(QueryStringGuard, admin.ModelAdmin):
    form = SessionAdminForm
    list_display = ["name", "account", "status", "engine_kind", "phone", "created_at"]
    list_filter = ["status", "provider"]
    search_fields = ["name", "account__name", "phone", "jid", "id"]
    readonly_fields = [
        "id",
        "instance_key_masked",
        "status",
        "jid",
        "phone",
        "qr_code",
        "qr_expires_at",
        "connected_at",
    ]
    actions = ["sandbox_scan", "regenerate_instance_key"]

    def get_inlines(self, request: HttpRequest, obj: Session | None) -> list:
        return [ChannelAccountInline] if obj is not None and obj.official else []

    def get_urls(self) -> list:
        """No request transaction around the list's actions: "scan the QR code" connects the session,
        an engine command that must not run inside one when the engine is reached over the bus
        (docs/decisions/0021); its services write in their own short transactions."""
        urls = super().get_urls()
        for pattern in urls:
            if pattern.name == "messaging_session_changelist":
                transaction.non_atomic_requests(pattern.callback)
        return urls

    @admin.display(description="instance key")
    def instance_key_masked(self, session: Session) -> str:
        # Stored as a digest: only its first characters can be shown (the key is shown once).
        return instance_key_masked(session.instance_key_prefix)

    def response_add(self, request: HttpRequest, obj: Session, post_url_continue=None) -> HttpResponse:
        """A new session's instance key is shown in the reply to the POST that created it, and kept
        nowhere (core.admin_once)."""
        if not obj.instance_key:
            return super().response_add(request, obj, post_url_continue)
        return shown_once(
            request,
            self,
            title="New session",
            shown=[(f"Instance key of {obj}", obj.instance_key)],
            back=reverse("admin:messaging_session_changelist"),
            links=[
                ("View this session", reverse("admin:messaging_session_change", args=[obj.pk])),
                ("All sessions", reverse("admin:messaging_session_changelist")),
            ],
        )

    @admin.action(description="Regenerate the instance key (the old one stops working)")
    def regenerate_instance_key(self, request: HttpRequest, queryset: QuerySet[Session]) -> HttpResponse:
        shown = []
        for session in queryset:
            session = services.session_instance_key_regenerate(session=session)
            shown.append((f"New instance key of {session}", session.instance_key))
        return shown_once(
            request,
            self,
            title="New instance keys",
            shown=shown,
            back=reverse("admin:messaging_session_changelist"),
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Session | None = None) -> list[str]:
        # Moving a session would leave its webhooks, deliveries and keys' allow-lists with the old account.
        return ["account", *self.readonly_fields] if obj else list(self.readonly_fields)

    @admin.display(description="engine")
    def engine_kind(self, session: Session) -> str:
        label = services.session_engine_label(session)
        return "SANDBOX (simulated WhatsApp)" if label == "sandbox" else label

    @admin.action(description="Sandbox: scan the QR code (pair the selected sessions)")
    def sandbox_scan(self, request: HttpRequest, queryset: QuerySet[Session]) -> None:
        for session in queryset:
            # The services refuse (404) sessions on any other engine; the admin never touches one.
            try:
                session = services.sandbox_pair(session=session)
            except ApplicationError as error:
                self.message_user(request, f"{session}: {error.message}", messages.ERROR)
            else:
                self.message_user(request, f"{session}: paired ({session.jid}).", messages.SUCCESS)


@admin.register(Group)
class GroupAdmin(QueryStringGuard, StrictJSONAdmin, admin.ModelAdmin):
    json_shapes = {"participants": list}
    list_display = ["subject", "jid", "session", "is_member", "updated_at"]
    search_fields = ["subject", "jid"]


@admin.register(Message)
class MessageAdmin(QueryStringGuard, StrictJSONAdmin, admin.ModelAdmin):
    json_shapes = {"content": dict, "reactions": dict}
    list_display = ["message_id", "session", "chat", "direction", "type", "status", "timestamp"]
    list_filter = ["direction", "type", "status"]
    search_fields = ["message_id", "chat"]


@admin.register(ApiKey)
class SessionPickingApiKeyAdmin(ApiKeyAdmin):
    """The key admin of accounts with the forms that pick the account's sessions."""

    form = ApiKeyForm
    issue_form = ApiKeyIssueForm
