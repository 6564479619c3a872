"""URLs of the customer account area, mounted at /account/ (namespace `account`)."""

from django.contrib.auth.views import LogoutView
from django.urls import path

from portal import auth, bots, home, keys, sessions, webhooks

app_name = "account"

urlpatterns = [
    path("", home.overview, name="home"),
    path("bonds/request/", home.bonds_request, name="bonds_request"),
    path("signup/", auth.signup, name="signup"),
    path("verify/<str:uidb64>/<str:token>/", auth.verify, name="verify"),
    path("login/", auth.SigninView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("password-reset/", auth.ResetView.as_view(), name="password_reset"),
    path("password-reset/sent/", auth.ResetSentView.as_view(), name="password_reset_sent"),
    path("reset/<uidb64>/<token>/", auth.ResetConfirmView.as_view(), name="password_reset_confirm"),
    path("password-reset/done/", auth.ResetDoneView.as_view(), name="password_reset_done"),
    path("keys/", keys.key_list, name="keys"),
    path("keys/<int:key_id>/revoke/", keys.key_revoke, name="key_revoke"),
    path("sessions/", sessions.session_list, name="sessions"),
    path("sessions/<uuid:session_id>/", sessions.session_detail, name="session"),
    path("sessions/<uuid:session_id>/qr/", sessions.session_qr, name="session_qr"),
    path("sessions/<uuid:session_id>/connect/", sessions.session_connect, name="session_connect"),
    path(
        "sessions/<uuid:session_id>/pairing-code/", sessions.session_pairing_code, name="session_pairing_code"
    ),
    path(
        "sessions/<uuid:session_id>/instance-key/", sessions.session_instance_key, name="session_instance_key"
    ),
    path("sessions/<uuid:session_id>/scan/", sessions.session_scan, name="session_scan"),
    path("sessions/<uuid:session_id>/logout/", sessions.session_logout, name="session_logout"),
    path("sessions/<uuid:session_id>/delete/", sessions.session_delete, name="session_delete"),
    path("webhooks/", webhooks.webhook_list, name="webhooks"),
    path("webhooks/<str:webhook_id>/edit/", webhooks.webhook_edit, name="webhook_edit"),
    path("webhooks/<str:webhook_id>/delete/", webhooks.webhook_delete, name="webhook_delete"),
    path("webhooks/<str:webhook_id>/enable/", webhooks.webhook_enable, name="webhook_enable"),
    path("deliveries/", webhooks.delivery_list, name="deliveries"),
    path("bots/", bots.bot_list, name="bots"),
    path("bots/<int:bot_id>/", bots.bot_detail, name="bot"),
    path("bots/<int:bot_id>/toggle/", bots.bot_toggle, name="bot_toggle"),
    path("bots/<int:bot_id>/delete/", bots.bot_delete, name="bot_delete"),
    path("bots/<int:bot_id>/chat/", bots.bot_chat, name="bot_chat"),
    path("deliveries/resend/", webhooks.delivery_resend, name="delivery_resend"),
]
