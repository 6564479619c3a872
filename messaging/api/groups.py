"""Groups under /api/groups."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsViewer
from core.errors import ValidationFailed
from messaging.addressing import normalize_group
from messaging.api.bases import EngineCallView, RecipientField, SessionInput
from messaging.services import groups as services
from messaging.values import GroupInfo

MAX_PARTICIPANTS = 256


class GroupJidField(serializers.CharField):
    def to_internal_value(self, data: object) -> str:
        return normalize_group(super().to_internal_value(data), field=self.field_name)


@extend_schema_serializer(component_name="GroupParticipant")
class ParticipantSerializer(serializers.Serializer):
    jid = serializers.CharField()
    admin = serializers.BooleanField()


@extend_schema_serializer(component_name="Group")
class GroupOutputSerializer(serializers.Serializer):
    id = serializers.CharField()
    subject = serializers.CharField()
    subjectTime = serializers.IntegerField()
    creation = serializers.IntegerField()
    owner = serializers.CharField()
    size = serializers.IntegerField()
    participants = ParticipantSerializer(many=True)
    description = serializers.CharField()
    announce = serializers.BooleanField(help_text="Only admins send messages.")
    locked = serializers.BooleanField(help_text="Only admins edit the group's subject and description.")


def group_body(info: GroupInfo) -> dict:
    return {
        "id": info.jid,
        "subject": info.subject,
        "subjectTime": info.subject_time,
        "creation": info.creation,
        "owner": info.owner,
        "size": info.size,
        "participants": [{"jid": p.jid, "admin": p.admin} for p in info.participants],
        "description": info.description,
        "announce": info.announce,
        "locked": info.locked,
    }


def _participants_field() -> serializers.ListField:
    return serializers.ListField(
        child=RecipientField(allow_group=False), min_length=1, max_length=MAX_PARTICIPANTS
    )


class GroupCreateApi(EngineCallView):
    """Create a group with the session as owner and admin. 3/min."""

    rate_limits = {"POST": "3/m"}

    @extend_schema_serializer(component_name="GroupCreateInput")
    class InputSerializer(SessionInput):
        subject = serializers.CharField(max_length=100)
        participants = _participants_field()

    @extend_schema_serializer(component_name="GroupCreateOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        group = GroupOutputSerializer()

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer}, operation_id="groups_create")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        info = services.group_create(
            session=session, subject=data["subject"], participants=data["participants"]
        )
        return Response({"success": True, "group": group_body(info)}, status=201)


class GroupListApi(EngineCallView):
    """The groups the session belongs to. Viewers may read it."""

    permission_classes = [IsViewer]

    @extend_schema_serializer(component_name="GroupListOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        groups = GroupOutputSerializer(many=True)

    @extend_schema(
        parameters=[OpenApiParameter("sessionId", OpenApiTypes.UUID, required=True)],
        responses=OutputSerializer,
        operation_id="groups_list",
    )
    def get(self, request: Request) -> Response:
        session_id = request.query_params.get("sessionId", "")
        if not session_id:
            raise ValidationFailed("sessionId: required.")
        groups = services.group_list(session=self.session(session_id))
        return Response({"success": True, "groups": [group_body(g) for g in groups]})


class GroupLeaveApi(EngineCallView):
    """Leave a group (a new invitation is needed to rejoin)."""

    @extend_schema_serializer(component_name="GroupLeaveInput")
    class InputSerializer(SessionInput):
        groupJid = GroupJidField(max_length=100)

    @extend_schema_serializer(component_name="GroupLeaveOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        groupJid = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="groups_leave")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        services.group_leave(session=session, group_jid=data["groupJid"])
        return Response({"success": True, "groupJid": data["groupJid"]})


@extend_schema_serializer(component_name="GroupParticipantsInput")
class ParticipantsInputSerializer(SessionInput):
    groupJid = GroupJidField(max_length=100)
    participants = _participants_field()


@extend_schema_serializer(component_name="GroupParticipantsOutput")
class ParticipantsOutputSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    results = serializers.ListField(child=serializers.DictField())


class _ParticipantsApi(EngineCallView):
    promote: bool = True

    def post(self, request: Request) -> Response:
        session, data = self.validated(ParticipantsInputSerializer)
        results = services.group_participants_change(
            session=session,
            group_jid=data["groupJid"],
            participants=data["participants"],
            promote=self.promote,
        )
        return Response({"success": True, "results": [{"jid": r.jid, "status": r.status} for r in results]})


class GroupPromoteApi(_ParticipantsApi):
    """Make participants group admins (the session must be a group admin)."""

    promote = True

    @extend_schema(
        request=ParticipantsInputSerializer,
        responses=ParticipantsOutputSerializer,
        operation_id="groups_promote",
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class GroupDemoteApi(_ParticipantsApi):
    """Remove participants' admin rights (the session must be a group admin)."""

    promote = False

    @extend_schema(
        request=ParticipantsInputSerializer,
        responses=ParticipantsOutputSerializer,
        operation_id="groups_demote",
    )
    def post(self, request: Request) -> Response:
        return super().post(request)
