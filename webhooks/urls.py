"""`gateway_urlpatterns` is mounted at /gateway/; `instance_urlpatterns` at /instances/."""

from django.urls import URLPattern, path

from webhooks.instance import api as instance_api
from webhooks.registered import api

gateway_urlpatterns: list[URLPattern] = [
    path("webhooks", api.WebhookListCreateApi.as_view(), name="gateway-webhooks"),
    path("webhooks/<str:webhook_id>", api.WebhookDetailApi.as_view(), name="gateway-webhook"),
]
instance_urlpatterns: list[URLPattern] = [
    path("<str:instance_key>/instance", instance_api.InstanceConfigApi.as_view(), name="instance-config"),
    path(
        "<str:instance_key>/instance/webhook/statistics",
        instance_api.InstanceWebhookStatisticsApi.as_view(),
        name="instance-webhook-statistics",
    ),
]
