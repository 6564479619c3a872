"""The event stream's jobs in the admin: what waits for the broker, and dead letters to resend."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin_safety import QueryStringGuard
from webhooks.models import StreamJob
from webhooks.stream.jobs import jobs_resend


@admin.register(StreamJob)
class StreamJobAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ["id", "routing_key", "chat", "status", "attempt_count", "created_at", "published_at"]
    list_filter = ["status"]
    search_fields = ["routing_key", "chat"]
    readonly_fields = [f.name for f in StreamJob._meta.fields]
    actions = ["resend"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # written by emit(), with its event

    @admin.action(description="Resend the selected dead letters (one more attempt each)")
    def resend(self, request: HttpRequest, queryset: QuerySet[StreamJob]) -> None:
        queued = jobs_resend(list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{queued} event(s) queued again for the stream.", messages.SUCCESS)
