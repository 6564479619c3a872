"""`GET/PUT /api/sessions/{id}/settings`: how the session behaves on its own (reject calls, ignore
groups, read at once, stay online, full history). Viewers read; operators change."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import ReadOrOperate
from core.api_fields import StrictBooleanField
from core.transactions import NoRequestTransaction
from messaging.api.bases import SessionKeyedView
from messaging.api.common import SESSION_ID_PARAM
from messaging.services import session_settings as services
from messaging.values import SessionBehaviour

MAX_REJECT_MESSAGE = 500
# The API's names for SessionBehaviour's fields.
FIELDS = {
    "rejectCalls": "reject_calls",
    "rejectCallMessage": "reject_call_message",
    "ignoreGroups": "ignore_groups",
    "readMessages": "read_messages",
    "alwaysOnline": "always_online",
    "syncFullHistory": "sync_full_history",
}


@extend_schema_serializer(component_name="SessionSettings")
class SettingsSerializer(serializers.Serializer):
    """Every field optional on PUT: those left out keep their value."""

    rejectCalls = StrictBooleanField(
        required=False, help_text="Reject incoming calls at once (the `call` event says `reject`)."
    )
    rejectCallMessage = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_REJECT_MESSAGE,
        trim_whitespace=False,
        help_text="Text sent to a caller whose call was rejected; empty sends nothing.",
    )
    ignoreGroups = StrictBooleanField(
        required=False, help_text="Group messages raise no event and are not stored."
    )
    readMessages = StrictBooleanField(
        required=False, help_text="Mark every received message read as it arrives."
    )
    alwaysOnline = StrictBooleanField(
        required=False, help_text="Keep the account's presence `available` while connected."
    )
    syncFullHistory = StrictBooleanField(
        required=False, help_text="Ask the phone for the full history at the next pairing (WhatsApp driver)."
    )


def settings_body(behaviour: SessionBehaviour) -> dict:
    return {name: getattr(behaviour, field) for name, field in FIELDS.items()}


class SessionSettingsApi(NoRequestTransaction, SessionKeyedView):
    """GET: how the session behaves on its own. PUT: change some of it (the fields left out keep their
    value); stored first, then a connected session's engine is told (when telling it fails, the change
    stays stored and applies at the next connection)."""

    permission_classes = [ReadOrOperate]

    @extend_schema(
        parameters=[SESSION_ID_PARAM], responses=SettingsSerializer, operation_id="sessions_settings"
    )
    def get(self, request: Request, session_id: str) -> Response:
        return Response(settings_body(services.session_settings_get(session=self.session(session_id))))

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=SettingsSerializer,
        responses=SettingsSerializer,
        operation_id="sessions_settings_update",
    )
    def put(self, request: Request, session_id: str) -> Response:
        data = SettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = {FIELDS[name]: value for name, value in data.validated_data.items()}
        session = self.session(session_id)
        return Response(settings_body(services.session_settings_update(session=session, changes=changes)))
