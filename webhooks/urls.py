"""`gateway_urlpatterns` is mounted at /gateway/; `instance_urlpatterns` at /instances/."""

from django.urls import URLPattern, path

from webhooks import api

gateway_urlpatterns: list[URLPattern] = [
    path("webhooks", api.WebhookListCreateApi.as_view(), name="gateway-webhooks"),
    path("webhooks/<str:webhook_id>", api.WebhookDetailApi.as_view(), name="gateway-webhook"),
]
instance_urlpatterns: list[URLPattern] = []
