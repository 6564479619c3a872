"""`urlpatterns` is mounted at /api/; `gateway_urlpatterns` at /gateway/ (see config/urls.py)."""

from django.urls import path

from messaging.api import (
    channels,
    chats,
    contacts,
    directory,
    gateway,
    group_admin,
    groups,
    lids,
    media,
    messages,
    polls,
    sandbox,
    session_settings,
    sessions,
)

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
    path(
        "sessions/<str:session_id>/instance-key",
        sessions.SessionInstanceKeyApi.as_view(),
        name="session-instance-key",
    ),
    path("sessions/<str:session_id>/logout", sessions.SessionLogoutApi.as_view(), name="session-logout"),
    path("sessions/<str:session_id>/restart", chats.SessionRestartApi.as_view(), name="session-restart"),
    path(
        "sessions/<str:session_id>/templates",
        channels.SessionTemplatesApi.as_view(),
        name="session-templates",
    ),
    path(
        "sessions/<str:session_id>/templates/sync",
        channels.SessionTemplatesSyncApi.as_view(),
        name="session-templates-sync",
    ),
    path(
        "sessions/<str:session_id>/webhook-fields",
        channels.SessionWebhookFieldsApi.as_view(),
        name="session-webhook-fields",
    ),
    path("messages", messages.MessageListApi.as_view(), name="messages"),
    path("messages/media", media.MessageMediaApi.as_view(), name="messages-media"),
    path("media/<str:token>", media.MediaFileApi.as_view(), name="media-file"),
    path("chats/read", chats.ChatReadApi.as_view(), name="chats-read"),
    path("chats/presence", chats.ChatPresenceApi.as_view(), name="chats-presence"),
    path("messages/send", messages.MessageSendApi.as_view(), name="messages-send"),
    path("messages/reaction", messages.MessageReactionApi.as_view(), name="messages-reaction"),
    path("messages/vcard", messages.MessageVcardApi.as_view(), name="messages-vcard"),
    path("messages/vcards", messages.MessageVcardsApi.as_view(), name="messages-vcards"),
    path("messages/location", messages.MessageLocationApi.as_view(), name="messages-location"),
    path("messages/buttons", messages.MessageButtonsApi.as_view(), name="messages-buttons"),
    path("messages/delete", messages.MessageDeleteApi.as_view(), name="messages-delete"),
    path("messages/poll", polls.MessagePollApi.as_view(), name="messages-poll"),
    path("messages/poll-results", polls.PollResultsApi.as_view(), name="messages-poll-results"),
    path("messages/edit", polls.MessageEditApi.as_view(), name="messages-edit"),
    path("contacts/check", contacts.ContactCheckApi.as_view(), name="contacts-check"),
    path("contacts/profile/picture", contacts.ProfilePictureApi.as_view(), name="profile-picture"),
    path("contacts/profile/status", contacts.ProfileStatusApi.as_view(), name="profile-status"),
    path("contacts/profile/name", contacts.ProfileNameApi.as_view(), name="profile-name"),
    path("groups", groups.GroupCreateApi.as_view(), name="groups"),
    path("groups/list", groups.GroupListApi.as_view(), name="groups-list"),
    path("groups/leave", groups.GroupLeaveApi.as_view(), name="groups-leave"),
    path("groups/participants/promote", groups.GroupPromoteApi.as_view(), name="groups-promote"),
    path("groups/participants/demote", groups.GroupDemoteApi.as_view(), name="groups-demote"),
    # Chats, contacts, group administration and session settings.
    path("chats", directory.ChatListApi.as_view(), name="chats"),
    path("contacts", directory.ContactListApi.as_view(), name="contacts"),
    path("contacts/picture", directory.ContactPictureApi.as_view(), name="contacts-picture"),
    path("groups/participants/add", group_admin.GroupParticipantsAddApi.as_view(), name="groups-add"),
    path(
        "groups/participants/remove", group_admin.GroupParticipantsRemoveApi.as_view(), name="groups-remove"
    ),
    path("groups/subject", group_admin.GroupSubjectApi.as_view(), name="groups-subject"),
    path("groups/description", group_admin.GroupDescriptionApi.as_view(), name="groups-description"),
    path("groups/settings", group_admin.GroupSettingsApi.as_view(), name="groups-settings"),
    path("groups/invite", group_admin.GroupInviteApi.as_view(), name="groups-invite"),
    path("groups/invite/revoke", group_admin.GroupInviteRevokeApi.as_view(), name="groups-invite-revoke"),
    path("groups/join", group_admin.GroupJoinApi.as_view(), name="groups-join"),
    path(
        "sessions/<str:session_id>/settings",
        session_settings.SessionSettingsApi.as_view(),
        name="session-settings",
    ),
    path("sandbox/sessions/<str:session_id>/scan", sandbox.SandboxScanApi.as_view(), name="sandbox-scan"),
    path(
        "sandbox/sessions/<str:session_id>/inbound",
        sandbox.SandboxInboundApi.as_view(),
        name="sandbox-inbound",
    ),
    path("contacts/lid", lids.ContactLidApi.as_view(), name="contacts-lid"),
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
