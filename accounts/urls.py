"""`urlpatterns` is mounted at /api/ and `gateway_urlpatterns` at /gateway/ (see config/urls.py)."""

from django.urls import path

from accounts import api

urlpatterns = [
    path("me", api.MeApi.as_view(), name="me"),
    path("keys", api.KeyListCreateApi.as_view(), name="keys"),
    path("keys/<int:key_id>", api.KeyRevokeApi.as_view(), name="key-revoke"),
]
gateway_urlpatterns = [
    path("me", api.GatewayMeApi.as_view(), name="gateway-me"),
]
