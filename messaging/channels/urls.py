"""Mounted at /channels/ (config/urls.py): inbound webhooks from Meta's Graph API."""

from django.urls import path

from messaging.channels import views

urlpatterns = [
    path("<str:provider>/<str:session_id>/webhook", views.channel_webhook, name="channel-webhook"),
]
