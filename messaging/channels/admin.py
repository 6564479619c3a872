"""Official channels' inbound jobs in the admin: parts of webhook bodies waiting to be recorded, read
receipts waiting for the Graph API, and dead letters of both to resend (messaging.channels.queue, calls)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin_safety import QueryStringGuard
from messaging.channels.calls import calls_resend
from messaging.channels.models import ChannelCall, ChannelInboundBatch
from messaging.channels.queue import batches_resend


@admin.register(ChannelInboundBatch)
class ChannelInboundBatchAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ["id", "session", "item_count", "status", "attempt_count", "created_at", "finished_at"]
    list_filter = ["status"]
    exclude = ["body"]  # customers' messages: kept in the row only until recorded
    readonly_fields = [f.name for f in ChannelInboundBatch._meta.fields if f.name != "body"]
    actions = ["resend"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # written by the channel webhook's view

    @admin.action(description="Resend the selected dead letters (one more attempt each)")
    def resend(self, request: HttpRequest, queryset: QuerySet[ChannelInboundBatch]) -> None:
        queued = batches_resend(list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{queued} part(s) queued again to be recorded.", messages.SUCCESS)


@admin.register(ChannelCall)
class ChannelCallAdmin(QueryStringGuard, admin.ModelAdmin):
    list_display = ["id", "session", "kind", "chat", "status", "attempt_count", "created_at", "finished_at"]
    list_filter = ["status", "kind"]
    readonly_fields = [f.name for f in ChannelCall._meta.fields]
    actions = ["resend"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # written while an inbound message is recorded

    @admin.action(description="Resend the selected dead letters (one more attempt each)")
    def resend(self, request: HttpRequest, queryset: QuerySet[ChannelCall]) -> None:
        queued = calls_resend(list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{queued} call(s) queued again for the Graph API.", messages.SUCCESS)
