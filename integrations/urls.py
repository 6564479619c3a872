"""`urlpatterns` (receiving URLs) is mounted at /integrations/; `api_urlpatterns` at /api/;
`instance_urlpatterns` at /instances/."""

from django.urls import URLPattern, path

from integrations.chatwoot import api

urlpatterns: list[URLPattern] = [
    path("chatwoot/<str:token>", api.ChatwootWebhookApi.as_view(), name="chatwoot-webhook"),
]
api_urlpatterns: list[URLPattern] = [
    path(
        "sessions/<str:session_id>/integrations/chatwoot",
        api.ChatwootConfigApi.as_view(),
        name="chatwoot-config",
    ),
    path(
        "sessions/<str:session_id>/integrations/chatwoot/webhook-token",
        api.ChatwootWebhookTokenApi.as_view(),
        name="chatwoot-webhook-token",
    ),
    path(
        "sessions/<str:session_id>/integrations/chatwoot/templates/sync",
        api.ChatwootTemplatesSyncApi.as_view(),
        name="chatwoot-templates-sync",
    ),
]
instance_urlpatterns: list[URLPattern] = [
    path("<str:instance_key>/chatwoot", api.InstanceChatwootApi.as_view(), name="instance-chatwoot"),
    path(
        "<str:instance_key>/chatwoot/webhook-token",
        api.InstanceChatwootWebhookTokenApi.as_view(),
        name="instance-chatwoot-webhook-token",
    ),
    path(
        "<str:instance_key>/chatwoot/templates/sync",
        api.InstanceChatwootTemplatesSyncApi.as_view(),
        name="instance-chatwoot-templates-sync",
    ),
]
