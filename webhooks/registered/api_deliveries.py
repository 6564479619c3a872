"""Gateway endpoints of the delivery log: a webhook's deliveries, one delivery with its attempts, its
resend, and the dead letters with their bulk resend.

Viewers read; operators and admins resend. A key sees only its account's deliveries, and only those of
its allowed sessions when it has a list: anything else answers 404, as a missing row does. Resends
answer 202: the attempt is queued (to the webhook's current URL, with its current secret and headers,
under the same `webhook-id`), and its outcome shows in the delivery log once it is made.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api_bases import KeyedAPIView, KeyedListAPIView
from accounts.permissions import ReadOrOperate
from messaging.api.common import MetaSerializer, PaginationQuerySerializer
from messaging.selectors import paginate
from webhooks.registered import delivery_log
from webhooks.registered.delivery_filters import DeadLetterFilterSet, DeliveryLogFilterSet
from webhooks.registered.delivery_serializers import DeliveryDetailSerializer, DeliveryRowSerializer

DELIVERY_ID = OpenApiParameter(
    "delivery_id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="The delivery's id, or its webhook-id (`msg_…`, the x-webhook-id header a receiver got).",
)


@extend_schema_serializer(component_name="DeliveryList")
class DeliveryListSerializer(serializers.Serializer):
    data = DeliveryRowSerializer(many=True)
    meta = MetaSerializer()


class _PagedDeliveries(KeyedListAPIView):
    permission_classes = [ReadOrOperate]
    query_serializer_class = PaginationQuerySerializer

    def paged(self, deliveries) -> Response:
        paging = PaginationQuerySerializer(data=self.request.query_params)
        paging.is_valid(raise_exception=True)
        page = paginate(deliveries, page=paging.validated_data["page"], limit=paging.validated_data["limit"])
        return Response({"data": DeliveryRowSerializer(page.items, many=True).data, "meta": page.meta})


class WebhookDeliveryListApi(_PagedDeliveries):
    """The webhook's deliveries, newest first, filtered by state, event and creation time; paged."""

    filterset_class = DeliveryLogFilterSet

    @extend_schema(
        operation_id="gateway_webhooks_deliveries_list",
        parameters=[PaginationQuerySerializer],
        responses=DeliveryListSerializer,
    )
    def get(self, request: Request, webhook_id: str) -> Response:
        webhook = delivery_log.webhook_visible(key=self.api_key, webhook_id=webhook_id)
        return self.paged(self.filter_queryset(delivery_log.deliveries_of_webhook(webhook=webhook)))


class DeadLetterListApi(_PagedDeliveries):
    """The dead letters (deliveries whose every attempt failed, kept 7 days), the most recently dead
    first; of one session or one webhook on request; paged."""

    filterset_class = DeadLetterFilterSet

    @extend_schema(
        operation_id="gateway_dead_letters_list",
        parameters=[PaginationQuerySerializer],
        responses=DeliveryListSerializer,
    )
    def get(self, request: Request) -> Response:
        return self.paged(self.filter_queryset(delivery_log.dead_letters_of_key(key=self.api_key)))


class DeliveryDetailApi(KeyedAPIView):
    """One delivery: its row, the body POSTed, and every attempt (status code, duration, error, the
    first KiB of the answer)."""

    permission_classes = [ReadOrOperate]

    @extend_schema(
        operation_id="gateway_deliveries_get", parameters=[DELIVERY_ID], responses=DeliveryDetailSerializer
    )
    def get(self, request: Request, delivery_id: str) -> Response:
        delivery = delivery_log.delivery_get(key=self.api_key, delivery_id=delivery_id)
        return Response(DeliveryDetailSerializer(delivery).data)


class DeliveryResendApi(KeyedAPIView):
    """Send a delivered or dead delivery once more: one attempt, no new retry chain, the same
    webhook-id. 409 while it is still on its way, or when its webhook is deleted or disabled."""

    permission_classes = [ReadOrOperate]
    extra_error_statuses = (409,)

    @extend_schema(
        operation_id="gateway_deliveries_resend",
        parameters=[DELIVERY_ID],
        request=None,
        responses={202: DeliveryRowSerializer},
    )
    def post(self, request: Request, delivery_id: str) -> Response:
        delivery = delivery_log.delivery_get(key=self.api_key, delivery_id=delivery_id)
        delivery = delivery_log.delivery_resend(delivery=delivery)
        return Response(DeliveryRowSerializer(delivery).data, status=202)


class DeadLetterResendApi(KeyedAPIView):
    """Resend dead letters: the ones named by `ids`, or one webhook's dead letters created since
    `since` (`webhookId` and `since`). Ids the key may not see, or that are no dead letter, or whose
    webhook is deleted or disabled, are skipped; a `webhookId` the key may not see is a 404, a disabled
    one a 409."""

    permission_classes = [ReadOrOperate]
    extra_error_statuses = (409,)

    class InputSerializer(serializers.Serializer):
        ids = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=delivery_log.MAX_DELIVERY_ID),
            required=False,
            max_length=delivery_log.MAX_RESEND_IDS,
            help_text=f"Dead letters' ids, 1 to {delivery_log.MAX_RESEND_IDS}.",
        )
        webhookId = serializers.CharField(required=False, max_length=32, help_text="With `since`.")
        since = serializers.DateTimeField(
            required=False, help_text="With `webhookId`: dead letters created at or after (ISO 8601)."
        )

        class Meta:
            ref_name = "DeadLetterResend"

        def validate(self, attrs: dict) -> dict:
            by_ids = "ids" in attrs
            by_window = "webhookId" in attrs or "since" in attrs
            if by_ids == by_window:
                raise serializers.ValidationError({"ids": "give either ids, or webhookId and since"})
            if by_window and not ("webhookId" in attrs and "since" in attrs):
                missing = "since" if "webhookId" in attrs else "webhookId"
                raise serializers.ValidationError({missing: "This field is required with the other."})
            return attrs

    @extend_schema(
        operation_id="gateway_dead_letters_resend",
        request=InputSerializer,
        responses={
            202: inline_serializer(
                "DeadLettersQueued",
                {
                    "queued": serializers.IntegerField(help_text="Dead letters queued for one more attempt."),
                    "skipped": serializers.IntegerField(
                        help_text="Of the ids given: not found, not dead letters, or their webhook "
                        "deleted or disabled (0 for webhookId and since)."
                    ),
                },
            )
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if "ids" in values:
            queued, skipped = delivery_log.dead_letters_resend_ids(key=self.api_key, ids=values["ids"])
        else:
            queued, skipped = (
                delivery_log.dead_letters_resend_since(
                    key=self.api_key, webhook_id=values["webhookId"], since=values["since"]
                ),
                0,
            )
        return Response({"queued": queued, "skipped": skipped}, status=202)
