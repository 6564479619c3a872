"""`GET /api/contacts/lid`: the two ids of one contact, its linked id (`…@lid`) and its phone JID."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import ValidationFailed
from core.transactions import NoRequestTransaction
from messaging.api.directory import SESSION_QUERY, DirectoryView
from messaging.services.lid_lookup import lid_lookup


@extend_schema_serializer(component_name="LidPair")
class LidPairSerializer(serializers.Serializer):
    lid = serializers.CharField(help_text="The contact's linked id, `<digits>@lid`.")
    pn = serializers.CharField(help_text="The contact's phone JID, `<digits>@s.whatsapp.net`.")


class ContactLidApi(NoRequestTransaction, DirectoryView):
    """The phone number behind a linked id (`…@lid`), or the linked id of a number: from what the
    session's events taught Ponte, else from the engine's own store (WhatsApp: whatsmeow's LID store),
    asked outside any transaction. 404 `LID_NOT_FOUND` when neither knows it; 400
    `OPERATION_NOT_SUPPORTED` on a channel without linked ids (the official channels)."""

    @extend_schema(
        parameters=[
            SESSION_QUERY,
            OpenApiParameter(
                "id",
                OpenApiTypes.STR,
                required=True,
                description="A linked id (`<digits>@lid`), a phone JID or a number with country code.",
            ),
        ],
        responses=LidPairSerializer,
        operation_id="contacts_lid",
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("id", "").strip()
        if not raw:
            raise ValidationFailed("id: required (a linked id <digits>@lid, a phone JID or a number).")
        session = self.query_session(request)
        return Response(lid_lookup(session=session, id_=raw))
