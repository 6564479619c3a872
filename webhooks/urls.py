"""`gateway_urlpatterns` is mounted at /gateway/; `instance_urlpatterns` at /instances/."""

from django.urls import URLPattern, path

from webhooks.instance import api as instance_api
from webhooks.registered import api, api_actions, api_deliveries, api_event_types

gateway_urlpatterns: list[URLPattern] = [
    path("webhooks", api.WebhookListCreateApi.as_view(), name="gateway-webhooks"),
    path("webhooks/<str:webhook_id>", api.WebhookDetailApi.as_view(), name="gateway-webhook"),
    path(
        "webhooks/<str:webhook_id>/secret/rotate",
        api_actions.WebhookSecretRotateApi.as_view(),
        name="gateway-webhook-secret-rotate",
    ),
    path("webhooks/<str:webhook_id>/test", api_actions.WebhookTestApi.as_view(), name="gateway-webhook-test"),
    path(
        "webhooks/<str:webhook_id>/replay",
        api_actions.WebhookReplayApi.as_view(),
        name="gateway-webhook-replay",
    ),
    path(
        "webhooks/<str:webhook_id>/deliveries",
        api_deliveries.WebhookDeliveryListApi.as_view(),
        name="gateway-webhook-deliveries",
    ),
    path("deliveries/<str:delivery_id>", api_deliveries.DeliveryDetailApi.as_view(), name="gateway-delivery"),
    path(
        "deliveries/<str:delivery_id>/resend",
        api_deliveries.DeliveryResendApi.as_view(),
        name="gateway-delivery-resend",
    ),
    path("event-types", api_event_types.EventTypeListApi.as_view(), name="gateway-event-types"),
    path("dead-letters", api_deliveries.DeadLetterListApi.as_view(), name="gateway-dead-letters"),
    path(
        "dead-letters/resend",
        api_deliveries.DeadLetterResendApi.as_view(),
        name="gateway-dead-letters-resend",
    ),
]
instance_urlpatterns: list[URLPattern] = [
    path("<str:instance_key>/instance", instance_api.InstanceConfigApi.as_view(), name="instance-config"),
    path(
        "<str:instance_key>/instance/webhook/statistics",
        instance_api.InstanceWebhookStatisticsApi.as_view(),
        name="instance-webhook-statistics",
    ),
]
