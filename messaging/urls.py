"""`urlpatterns` is mounted at /api/; `gateway_urlpatterns` at /gateway/ (see config/urls.py)."""

from django.urls import path

from messaging.api import gateway, sandbox, sessions

urlpatterns = [
    path("sessions", sessions.SessionListCreateApi.as_view(), name="sessions"),
    path("sessions/<str:session_id>", sessions.SessionDetailApi.as_view(), name="session"),
    path("sessions/<str:session_id>/connect", sessions.SessionConnectApi.as_view(), name="session-connect"),
    path("sessions/<str:session_id>/qrcode", sessions.SessionQrCodeApi.as_view(), name="session-qrcode"),
    path(
        "sessions/<str:session_id>/pairing-code",
        sessions.SessionPairingCodeApi.as_view(),
        name="session-pairing-code",
    ),
    path("sessions/<str:session_id>/logout", sessions.SessionLogoutApi.as_view(), name="session-logout"),
    path("sandbox/sessions/<str:session_id>/scan", sandbox.SandboxScanApi.as_view(), name="sandbox-scan"),
    path(
        "sandbox/sessions/<str:session_id>/inbound",
        sandbox.SandboxInboundApi.as_view(),
        name="sandbox-inbound",
    ),
]
gateway_urlpatterns = [
    path("sessions", gateway.GatewaySessionListApi.as_view(), name="gateway-sessions"),
    path("sessions/<str:session_id>/pair/qr", gateway.GatewayPairQrApi.as_view(), name="gateway-pair-qr"),
    path(
        "sessions/<str:session_id>/pair/phone",
        gateway.GatewayPairPhoneApi.as_view(),
        name="gateway-pair-phone",
    ),
]
