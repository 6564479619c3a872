"""Admin: integrations (the access token is never shown; the receiving URL only once, in the message
after the save or the regeneration that issued it), and the mirror's jobs with their dead letters
(resendable: one more attempt each, in their chat's order)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from core.errors import ApplicationError
from integrations.chatwoot import config
from integrations.chatwoot.jobs import jobs_resend
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob


class ChatwootIntegrationForm(forms.ModelForm):
    base_url = forms.URLField(max_length=500, assume_scheme="https")
    access_token = forms.CharField(
        required=False, widget=forms.PasswordInput, help_text="Leave empty to keep the current token."
    )

    class Meta:
        model = ChatwootIntegration
        fields = [
            "session",
            "base_url",
            "access_token",
            "inbox_identifier",
            "sign_messages",
            "reopen_conversations",
            "import_contacts",
            "enabled",
        ]

    def clean(self) -> dict:
        """The inbox must be found (as on the API): a miss is shown on the form, nothing is written."""
        data = super().clean()
        if self.errors:
            return data
        try:
            reason = config.inbox_search_reason(
                data.get("base_url") or "", data.get("access_token") or "", data.get("inbox_identifier") or ""
            )
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None
        if reason:
            raise forms.ValidationError(reason)
        return data

    def clean_access_token(self) -> str:
        token = self.cleaned_data.get("access_token") or ""
        if not token and self.instance.pk:
            return self.instance.access_token
        if not token:
            raise forms.ValidationError("Required.")
        return token


@admin.register(ChatwootIntegration)
class ChatwootIntegrationAdmin(admin.ModelAdmin):
    form = ChatwootIntegrationForm
    list_display = ["session", "base_url", "inbox_identifier", "account_id", "inbox_id", "status", "enabled"]
    list_filter = ["status", "enabled"]
    readonly_fields = ["account_id", "inbox_id", "status", "status_reason", "receiving_url"]
    raw_id_fields = ["session"]
    actions = ["regenerate_webhook_token"]

    def get_urls(self) -> list[Any]:
        """No request transaction on this model's admin pages: saving an integration searches its inbox
        and points the inbox's webhook (calls to Chatwoot), which must not hold one open (net.guard);
        the service writes the row in its own (integrations.chatwoot.config.integration_configure)."""
        urls = super().get_urls()
        for pattern in urls:
            transaction.non_atomic_requests(pattern.callback)
        return urls

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        # Django wraps a POST of the form in one transaction, and the form's clean searches the inbox in
        # Chatwoot: the form is run without it (Django's own body of changeform_view), and the save goes
        # through the service, which writes in its own transaction after the search.
        return self._changeform_view(request, object_id, form_url, extra_context)

    @admin.display(description="receiving URL")
    def receiving_url(self, integration: ChatwootIntegration) -> str:
        # Stored as a digest: only its token's first characters can be shown (the URL is shown once).
        if not integration.webhook_token_prefix:
            return ""
        return f"…/integrations/chatwoot/{integration.webhook_token_prefix}…"

    def _url_shown(self, request: HttpRequest, integration: ChatwootIntegration) -> None:
        url = config.webhook_url(integration)
        if url:
            self.message_user(
                request,
                f"Receiving URL of {integration} (shown only this once; Ponte pointed the inbox's webhook "
                f"at it where Chatwoot allowed): {url}",
                messages.WARNING,
            )

    @admin.action(description="Regenerate the receiving URL (the old one stops working)")
    def regenerate_webhook_token(self, request: HttpRequest, queryset: QuerySet[ChatwootIntegration]) -> None:
        for integration in queryset.select_related("session"):
            self._url_shown(request, config.webhook_token_regenerate(session=integration.session))

    def save_model(self, request: HttpRequest, obj: ChatwootIntegration, form: Any, change: bool) -> None:
        """Saved through the same service as the API: the inbox is found, its webhook pointed at Ponte."""
        values = {
            "baseUrl": obj.base_url,
            "accessToken": obj.access_token,
            "inboxIdentifier": obj.inbox_identifier,
            **{wire: getattr(obj, attribute) for wire, attribute in config.OPTIONS.items()},
        }
        saved = config.integration_configure(session=obj.session, values=values)
        obj.pk = saved.pk
        self._url_shown(request, saved)


@admin.register(MirrorJob)
class MirrorJobAdmin(admin.ModelAdmin):
    list_display = ["id", "integration", "direction", "kind", "chat", "status", "attempt_count", "created_at"]
    list_filter = ["status", "direction", "kind"]
    search_fields = ["chat", "dedupe_key"]
    readonly_fields = [f.name for f in MirrorJob._meta.fields]
    actions = ["resend"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Resend the selected dead letters (one more attempt each)")
    def resend(self, request: HttpRequest, queryset: QuerySet[MirrorJob]) -> None:
        queued = jobs_resend(list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{queued} job(s) queued again.", messages.SUCCESS)
