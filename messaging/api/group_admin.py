"""Group administration under /api/groups: participants added and removed, subject, description,
settings, invite links, joining by invite. Admin-only operations answer 403 when the session is not a
group admin, as promote and demote do."""

from __future__ import annotations

import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsViewer
from core.errors import ValidationFailed
from messaging.addressing import normalize_group
from messaging.api.bases import EngineCallView, SessionInput
from messaging.api.groups import (
    GroupJidField,
    GroupOutputSerializer,
    ParticipantsInputSerializer,
    ParticipantsOutputSerializer,
    group_body,
)
from messaging.services import group_admin as services
from messaging.values import GroupInvite

MAX_SUBJECT = 100
MAX_DESCRIPTION = 2048
# An invite code, or the link that carries it (https://chat.whatsapp.com/<code>).
_INVITE = re.compile(r"^(?:https?://chat\.whatsapp\.com/(?:invite/)?)?([A-Za-z0-9_-]{6,64})/?$")


def invite_code(value: str, field: str = "code") -> str:
    found = _INVITE.match(value.strip())
    if found is None:
        raise ValidationFailed(f"{field}: an invite code or a https://chat.whatsapp.com/ link.")
    return found.group(1)


class _ParticipantsUpdateApi(EngineCallView):
    add: bool = True

    def post(self, request: Request) -> Response:
        session, data = self.validated(ParticipantsInputSerializer)
        results = services.group_participants_update(
            session=session, group_jid=data["groupJid"], participants=data["participants"], add=self.add
        )
        return Response({"success": True, "results": [{"jid": r.jid, "status": r.status} for r in results]})


class GroupParticipantsAddApi(_ParticipantsUpdateApi):
    """Add participants (the session must be a group admin): per participant `added`,
    `already_a_participant`, `not_on_whatsapp` or `not_allowed`."""

    add = True

    @extend_schema(
        request=ParticipantsInputSerializer, responses=ParticipantsOutputSerializer, operation_id="groups_add"
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class GroupParticipantsRemoveApi(_ParticipantsUpdateApi):
    """Remove participants (the session must be a group admin): per participant `removed`,
    `not_a_participant` or `not_allowed` (the owner; the session itself leaves instead)."""

    add = False

    @extend_schema(
        request=ParticipantsInputSerializer,
        responses=ParticipantsOutputSerializer,
        operation_id="groups_remove",
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class GroupSubjectApi(EngineCallView):
    """Rename the group (any participant; only admins once the group is `locked`)."""

    @extend_schema_serializer(component_name="GroupSubjectInput")
    class InputSerializer(SessionInput):
        groupJid = GroupJidField(max_length=100)
        subject = serializers.CharField(max_length=MAX_SUBJECT)

    @extend_schema(request=InputSerializer, responses=GroupOutputSerializer, operation_id="groups_subject")
    def put(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        info = services.group_subject_set(
            session=session, group_jid=data["groupJid"], subject=data["subject"]
        )
        return Response(group_body(info))


class GroupDescriptionApi(EngineCallView):
    """Set the group's description; an empty string clears it (only admins once the group is `locked`)."""

    @extend_schema_serializer(component_name="GroupDescriptionInput")
    class InputSerializer(SessionInput):
        groupJid = GroupJidField(max_length=100)
        description = serializers.CharField(
            max_length=MAX_DESCRIPTION, allow_blank=True, trim_whitespace=False
        )

    @extend_schema(
        request=InputSerializer, responses=GroupOutputSerializer, operation_id="groups_description"
    )
    def put(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        info = services.group_description_set(
            session=session, group_jid=data["groupJid"], description=data["description"]
        )
        return Response(group_body(info))


class GroupSettingsApi(EngineCallView):
    """`announce`: only admins send messages; `locked`: only admins edit the group's info. Either may
    be left out (unchanged). Admins only."""

    @extend_schema_serializer(component_name="GroupSettingsInput")
    class InputSerializer(SessionInput):
        groupJid = GroupJidField(max_length=100)
        announce = serializers.BooleanField(required=False, allow_null=True, default=None)
        locked = serializers.BooleanField(required=False, allow_null=True, default=None)

        def validate(self, attrs: dict) -> dict:
            if attrs.get("announce") is None and attrs.get("locked") is None:
                raise ValidationFailed("announce, locked: give at least one (booleans).")
            return attrs

    @extend_schema(request=InputSerializer, responses=GroupOutputSerializer, operation_id="groups_settings")
    def put(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        info = services.group_settings_set(
            session=session, group_jid=data["groupJid"], announce=data["announce"], locked=data["locked"]
        )
        return Response(group_body(info))


@extend_schema_serializer(component_name="GroupInvite")
class InviteOutputSerializer(serializers.Serializer):
    code = serializers.CharField()
    url = serializers.CharField()


def invite_body(invite: GroupInvite) -> dict:
    return {"code": invite.code, "url": invite.url}


class GroupInviteApi(EngineCallView):
    """The group's invite code and link (the session must be a group admin)."""

    permission_classes = [IsViewer]

    @extend_schema(
        parameters=[
            OpenApiParameter("sessionId", OpenApiTypes.UUID, required=True),
            OpenApiParameter("groupJid", OpenApiTypes.STR, required=True),
        ],
        responses=InviteOutputSerializer,
        operation_id="groups_invite",
    )
    def get(self, request: Request) -> Response:
        session_id = request.query_params.get("sessionId", "").strip()
        if not session_id:
            raise ValidationFailed("sessionId: required.")
        group_jid = normalize_group(request.query_params.get("groupJid", ""), field="groupJid")
        invite = services.group_invite_get(session=self.session(session_id), group_jid=group_jid)
        return Response(invite_body(invite))


class GroupInviteRevokeApi(EngineCallView):
    """Replace the invite code: the old one stops working at once (admins only). Replies the new one."""

    @extend_schema_serializer(component_name="GroupInviteRevokeInput")
    class InputSerializer(SessionInput):
        groupJid = GroupJidField(max_length=100)

    @extend_schema(
        request=InputSerializer, responses=InviteOutputSerializer, operation_id="groups_invite_revoke"
    )
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        invite = services.group_invite_get(session=session, group_jid=data["groupJid"], revoke=True)
        return Response(invite_body(invite))


class GroupJoinApi(EngineCallView):
    """Join a group by invite code (or link); 404 INVITE_NOT_FOUND for an unknown or revoked code."""

    @extend_schema_serializer(component_name="GroupJoinInput")
    class InputSerializer(SessionInput):
        code = serializers.CharField(
            max_length=200, help_text="The invite code, or its chat.whatsapp.com link."
        )

    @extend_schema(request=InputSerializer, responses=GroupOutputSerializer, operation_id="groups_join")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        info = services.group_join(session=session, code=invite_code(data["code"]))
        return Response(group_body(info))
