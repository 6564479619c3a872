"""`urlpatterns` (receiving URLs) is mounted at /integrations/; `api_urlpatterns` at /api/;
`instance_urlpatterns` at /instances/."""

from django.urls import URLPattern, path

from integrations.bots import api as bots_api
from integrations.chatwoot import api

urlpatterns: list[URLPattern] = [
    path("chatwoot/<str:token>", api.ChatwootWebhookApi.as_view(), name="chatwoot-webhook"),
]
api_urlpatterns: list[URLPattern] = [
    path("bots", bots_api.BotsApi.as_view(), name="bots"),
    path("bots/<str:bot_id>", bots_api.BotApi.as_view(), name="bot"),
    path("bots/<str:bot_id>/conversations", bots_api.BotConversationsApi.as_view(), name="bot-conversations"),
    path(
        "bots/<str:bot_id>/conversations/pause",
        bots_api.BotConversationPauseApi.as_view(),
        name="bot-conversation-pause",
    ),
    path(
        "bots/<str:bot_id>/conversations/resume",
        bots_api.BotConversationResumeApi.as_view(),
        name="bot-conversation-resume",
    ),
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
