"""Admin: bots (the secret is never shown: a blank field keeps it), their conversations, and their jobs
with dead letters (resendable: one more attempt each, in their chat's order)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from integrations.bots.jobs import jobs_resend
from integrations.bots.models import Bot, BotJob, Conversation
from integrations.bots.serializers import SETTINGS, BotRulesSerializer


class BotForm(forms.ModelForm):
    secret = forms.CharField(
        required=False, widget=forms.PasswordInput, help_text="Leave empty to keep the current secret."
    )

    class Meta:
        model = Bot
        fields = [
            "session",
            "name",
            "kind",
            "enabled",
            "priority",
            "settings",
            "secret",
            "trigger",
            "trigger_operator",
            "trigger_value",
            "ignore_groups",
            "stop_keyword",
            "expire_minutes",
            "pause_minutes",
            "debounce_seconds",
        ]

    def clean_secret(self) -> str:
        return self.cleaned_data.get("secret") or (self.instance.secret if self.instance.pk else "")

    def clean(self) -> dict:
        """The same checks as the API: the kind's settings, a keyword trigger's value, the http secret."""
        data = super().clean()
        kind = data.get("kind")
        if kind in SETTINGS:
            checked = SETTINGS[kind](data=data.get("settings") or {})
            if not checked.is_valid():
                raise forms.ValidationError(f"settings: {dict(checked.errors)}")
            data["settings"] = dict(checked.validated_data)
        rules = BotRulesSerializer(
            data={
                "trigger": data.get("trigger"),
                "operator": data.get("trigger_operator"),
                "value": data.get("trigger_value") or "",
            }
        )
        if not rules.is_valid():
            raise forms.ValidationError(f"rules: {dict(rules.errors)}")
        if kind == Bot.Kind.HTTP and len(data.get("secret") or "") < 16:
            raise forms.ValidationError("The http kind needs a signing secret of 16+ characters.")
        if data.get("enabled") and self.instance.pk and not self.instance.enabled:
            self.instance.consecutive_failures, self.instance.disabled_reason = 0, ""
        return data


class ConversationInline(admin.TabularInline):
    model = Conversation
    fields = ["chat", "status", "paused_until", "started_at", "last_activity_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False
    ordering = ["-last_activity_at"]


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    form = BotForm
    list_display = ["name", "session", "kind", "enabled", "priority", "disabled_reason", "last_error_at"]
    list_filter = ["kind", "enabled"]
    search_fields = ["name"]
    readonly_fields = ["consecutive_failures", "disabled_reason", "last_error", "last_error_at"]
    raw_id_fields = ["session"]
    inlines = [ConversationInline]


@admin.register(BotJob)
class BotJobAdmin(admin.ModelAdmin):
    list_display = ["id", "bot", "chat", "kind", "status", "attempt_count", "next_attempt_at", "last_error"]
    list_filter = ["status", "kind"]
    readonly_fields = [field.name for field in BotJob._meta.fields]
    actions = ["resend"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Resend the selected dead letters (one more attempt each)")
    def resend(self, request: HttpRequest, queryset: QuerySet[BotJob]) -> None:
        queued = jobs_resend(list(queryset.filter(status=BotJob.Status.DEAD).values_list("pk", flat=True)))
        self.message_user(request, f"{queued} dead letter(s) queued again.", messages.SUCCESS)
