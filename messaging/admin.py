from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from config.errors import ApplicationError
from messaging.models import Group, Message, Session
from messaging.services import sessions as services


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["name", "account", "status", "engine_kind", "phone", "created_at"]
    list_filter = ["status", "provider"]
    search_fields = ["name", "account__name", "phone", "jid", "id"]
    readonly_fields = [
        "id",
        "instance_key",
        "status",
        "jid",
        "phone",
        "qr_code",
        "qr_expires_at",
        "connected_at",
    ]
    actions = ["sandbox_scan"]

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
class GroupAdmin(admin.ModelAdmin):
    list_display = ["subject", "jid", "session", "is_member", "updated_at"]
    search_fields = ["subject", "jid"]


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["message_id", "session", "chat", "direction", "type", "status", "timestamp"]
    list_filter = ["direction", "type", "status"]
    search_fields = ["message_id", "chat"]
