"""Gateway actions on one registered webhook: rotate its secret, send it a test event, replay a window.

Roles as for the webhook itself: admins and operators act, viewers get 403. Errors in the gateway
shape `{"error": "..."}`, naming the field that was refused.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api_bases import KeyedAPIView
from accounts.permissions import ReadOrOperate
from webhooks.models import Webhook
from webhooks.registered import replay, rotation, selectors
from webhooks.registered.api import record
from webhooks.registered.serializers import WebhookOutputSerializer
from webhooks.registered.test_event import TEST_EVENT, webhook_test_send


class _OneWebhookApi(KeyedAPIView):
    permission_classes = [ReadOrOperate]

    def _webhook(self, webhook_id: str) -> Webhook:
        webhook = selectors.webhook_get(key=self.api_key, webhook_id=webhook_id)
        self.require_session(webhook.session_id)
        return webhook


class WebhookSecretRotateApi(_OneWebhookApi):
    """Give the webhook a new signing secret; the old one keeps signing too during the overlap, so
    `webhook-signature` carries one `v1,` signature per secret (new first) and receivers verify with
    either. `x-webhook-signature` uses the new secret. The new secret is in this reply only."""

    class InputSerializer(serializers.Serializer):
        secret = serializers.CharField(
            required=False,
            allow_blank=True,
            max_length=rotation.MAX_SECRET_CHARS,
            help_text="The new secret; omitted or empty: Ponte generates a whsec_ secret (returned once).",
        )
        overlapSeconds = serializers.IntegerField(
            required=False,
            allow_null=True,
            help_text=(
                f"How long the old secret keeps signing too, 0 to {rotation.MAX_OVERLAP_SECONDS} seconds, "
                f"default {rotation.DEFAULT_OVERLAP_SECONDS}."
            ),
        )

        class Meta:
            ref_name = "WebhookSecretRotate"

    @extend_schema(
        operation_id="gateway_webhooks_secret_rotate",
        request=InputSerializer,
        responses=inline_serializer(
            "WebhookSecretRotated",
            {
                "webhook": WebhookOutputSerializer(),
                "secret": serializers.CharField(help_text="The new secret: shown this once, never again."),
            },
        ),
    )
    def post(self, request: Request, webhook_id: str) -> Response:
        webhook = self._webhook(webhook_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        webhook, secret = rotation.webhook_secret_rotate(
            webhook=webhook, secret=values.get("secret"), overlap_seconds=values.get("overlapSeconds")
        )
        reply = Response({"webhook": record(self, webhook), "secret": secret})
        reply["Cache-Control"] = "no-store"
        return reply


class WebhookTestApi(_OneWebhookApi):
    """Send the webhook one `webhook.test` event, delivered like any other (signed, retried, in the
    delivery log); other webhooks of the session do not get it. 409 when the webhook is disabled."""

    @extend_schema(
        operation_id="gateway_webhooks_test",
        request=None,
        responses={
            202: inline_serializer(
                "WebhookTestQueued",
                {
                    "event": serializers.CharField(help_text=f'Always "{TEST_EVENT}".'),
                    "webhookId": serializers.CharField(
                        help_text="The delivery's webhook-id (x-webhook-id), to find it on your side."
                    ),
                },
            )
        },
    )
    def post(self, request: Request, webhook_id: str) -> Response:
        delivery = webhook_test_send(webhook=self._webhook(webhook_id))
        return Response({"event": TEST_EVENT, "webhookId": delivery.dispatch_id}, status=202)


class WebhookReplayApi(_OneWebhookApi):
    """Send the webhook's delivered and dead deliveries whose events happened in [since, until) again, to
    its current URL with its current secret and headers, each with its original `webhook-id`: one attempt
    each. At most 7 days back and 10,000 deliveries; one replay per webhook at a time (409 otherwise)."""

    class InputSerializer(serializers.Serializer):
        since = serializers.DateTimeField(help_text="Start of the window (ISO 8601), inclusive.")
        until = serializers.DateTimeField(
            required=False, allow_null=True, help_text="End of the window, exclusive; default now."
        )
        onlyFailed = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Only dead letters (deliveries whose attempts all failed).",
        )

        class Meta:
            ref_name = "WebhookReplay"

    @extend_schema(
        operation_id="gateway_webhooks_replay",
        request=InputSerializer,
        responses={202: inline_serializer("WebhookReplayQueued", {"queued": serializers.IntegerField()})},
    )
    def post(self, request: Request, webhook_id: str) -> Response:
        webhook = self._webhook(webhook_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        queued = replay.webhook_replay(
            webhook=webhook,
            since=values["since"],
            until=values.get("until"),
            only_failed=values["onlyFailed"],
        )
        return Response({"queued": queued}, status=202)
