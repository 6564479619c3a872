"""OpenAPI generation tweaks shared by every interface.

Error replies are declared here, once, for every operation: each view's mount gives the error body
shape (core.errors renders the same shapes), and its permissions, throttles, method and module give
which statuses it can answer. Views only declare their success replies.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import django_filters
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.drainage import get_override
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent, force_instance, is_field
from drf_spectacular.utils import Direction, OpenApiResponse, PolymorphicProxySerializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny

from core.errors import interface_of


class MessagingErrorSerializer(serializers.Serializer):
    """The messaging error body (`/api/...`)."""

    statusCode = serializers.IntegerField()
    error = serializers.CharField(help_text="Machine-readable code, e.g. SESSION_NOT_FOUND.")
    message = serializers.CharField()
    details = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="One line per invalid field."
    )
    retryAfter = serializers.IntegerField(required=False, help_text="On 429: seconds to wait.")
    limit = serializers.IntegerField(required=False, help_text="On PLAN_LIMIT_REACHED: the plan's cap.")

    class Meta:
        ref_name = "MessagingError"


class GatewayErrorSerializer(serializers.Serializer):
    """The gateway error body (`/gateway/...`)."""

    error = serializers.CharField(help_text="English text, e.g. `Session not found`.")

    class Meta:
        ref_name = "GatewayError"


class InstanceErrorSerializer(serializers.Serializer):
    """The instance interface error body (`/instances/...`)."""

    status = serializers.IntegerField()
    error = serializers.CharField(help_text="Machine-readable code, e.g. INSTANCE_NOT_FOUND.")
    message = serializers.CharField()

    class Meta:
        ref_name = "InstanceError"


# Mount -> error body. Bonds has none: it always answers 200 with the outcome in `response.status`.
ERROR_SERIALIZERS: dict[str, type[serializers.Serializer]] = {
    "/api/": MessagingErrorSerializer,
    "/gateway/": GatewayErrorSerializer,
    "/instances/": InstanceErrorSerializer,
}
_BODY_METHODS = {"POST", "PUT", "PATCH"}
# Views that reach a session engine can find the session unpaired (409) or the engine down (502).
_ENGINE_MODULES = ("messaging.api.",)

_RATELIMIT_HEADER_MOUNTS = ("/api/", "/gateway/")
RATELIMIT_HEADERS = {
    "X-RateLimit-Limit": "Calls allowed in the window.",
    "X-RateLimit-Remaining": "Calls left in the window.",
    "X-RateLimit-Reset": "Unix time when the window resets.",
}

# Where a key comes from, in every key scheme's description (accounts.schema's X-API-Key scheme too).
KEY_ORIGIN = (
    "An API key (`ponte_<prefix>_<secret>`). Customers issue their own in the account area at "
    "`/account/keys/` (shown once, at issue); staff issue keys for any account in the admin "
    "(`/admin/`, API keys) or with `manage.py issue_key`; an admin key can issue more with `POST /api/keys`."
)

# Bonds accepts a key as a bearer token or as `?key=` (or none: a preview).
BONDS_SECURITY_SCHEMES = {
    "BondsBearer": {
        "type": "http",
        "scheme": "bearer",
        "description": f"`Authorization: Bearer <API key>` (recommended). {KEY_ORIGIN}",
    },
    "BondsQueryKey": {
        "type": "apiKey",
        "in": "query",
        "name": "key",
        "description": f"`?key=<API key>`, for browsers and spreadsheets. {KEY_ORIGIN}",
    },
}


def filterset_parameters(
    auto_schema: SpectacularAutoSchema, filterset_class: type[django_filters.FilterSet]
) -> list[dict[str, Any]]:
    """The query parameters of a FilterSet, one per filter, typed as spectacular's django-filter support
    types them (a filter's `extend_schema_field` annotation first). For views that are not generic
    list views (an APIView with an envelope, a cached reply), which spectacular does not introspect."""
    extension = DjangoFilterExtension(DjangoFilterBackend())
    model = filterset_class._meta.model
    refusing = blank_refusing_filters(filterset_class)
    parameters = []
    for name, filter_field in filterset_class.base_filters.items():
        annotation = get_override(filter_field, "field")
        resolved = extension.resolve_filter_field(auto_schema, model, filterset_class, name, filter_field)
        for parameter in resolved:
            if is_field(annotation):
                # A filter checked by a serializer field has that field's limits (maxLength...).
                auto_schema._insert_field_validators(force_instance(annotation), parameter["schema"])
            if name in refusing:
                parameter["schema"]["minLength"] = max(parameter["schema"].get("minLength", 0), 1)
            parameters.append(parameter)
    return parameters


def blank_refusing_filters(filterset_class: type[django_filters.FilterSet]) -> set[str]:
    """The query names of a FilterSet's filters checked by a text field that refuses "" (`?status=`
    answers 400), which the schema must declare non-empty."""
    names = set()
    for name, filter_field in filterset_class.base_filters.items():
        field = get_override(filter_field, "field")
        if isinstance(field, serializers.CharField) and not field.allow_blank:
            names.add(name)
    return names


class AutoSchema(SpectacularAutoSchema):
    """Name nested serializers after their view, so the house style's `InputSerializer` and
    `OutputSerializer` inside each `<Entity><Action>Api` become distinct components
    (`KeyListCreateApiInput`, `WebhookListCreateApiInput`, …) instead of colliding; declare every
    operation's error replies; describe the bonds credentials."""

    def get_serializer_name(self, serializer: serializers.Serializer, direction: Direction) -> str:
        cls = serializer.__class__
        return cls.__qualname__.replace(".", "") if "." in cls.__qualname__ else cls.__name__

    def _get_request_for_media_type(self, serializer: Any, direction: Direction = "request") -> tuple:
        schema, required = super()._get_request_for_media_type(serializer, direction)
        # A `oneOf` body lists no required properties of its own, yet one of its variants must be sent.
        return schema, required or isinstance(serializer, PolymorphicProxySerializer)

    @property
    def mount(self) -> str:
        return interface_of(self.path)

    def error_statuses(self) -> list[int]:
        """The error statuses this operation can answer, from its mount, permissions and throttles."""
        if self.mount not in ERROR_SERIALIZERS:
            return []
        # 400: a malformed body or query, NUL characters, too-deep JSON; 404: an unknown resource
        # (in the path or referenced from the body).
        codes = {400, 404}
        if self.method in _BODY_METHODS:
            codes.add(413)
        if not any(isinstance(p, AllowAny) for p in self.view.get_permissions()):
            codes |= {401, 403}
        if getattr(self.view, "throttle_classes", None):
            codes.add(429)
        if type(self.view).__module__.startswith(_ENGINE_MODULES) and getattr(
            self.view, "reaches_engine", True
        ):
            codes |= {409, 502}
        # A view may answer a status no rule above derives (a media link that expired: 410).
        codes |= set(getattr(self.view, "extra_error_statuses", ()))
        return sorted(codes)

    def _get_filter_parameters(self) -> list[dict[str, Any]]:
        # A view's `filterset_class` filters its GET (the list); its other methods take no filters.
        filterset_class = getattr(self.view, "filterset_class", None)
        if filterset_class is None or self.method != "GET":
            return super()._get_filter_parameters()
        return filterset_parameters(self, filterset_class)

    def _get_parameters(self) -> list[dict[str, Any]]:
        parameters = super()._get_parameters()
        # A list's filters are declared as the server reads them (filterset_parameters, "" included).
        filterset_class = getattr(self.view, "filterset_class", None)
        filters = set(filterset_class.base_filters) if filterset_class and self.method == "GET" else set()
        for parameter in parameters:
            # DRF reads another empty optional query value as an absent one, so "" is accepted.
            schema = parameter.get("schema", {})
            optional_query = parameter.get("in") == "query" and not parameter.get("required")
            if optional_query and schema.get("minLength") == 1 and parameter.get("name") not in filters:
                del schema["minLength"]
        return parameters

    def _get_response_headers_for_code(self, status_code: str, direction: Direction = "response") -> dict:
        headers = dict(super()._get_response_headers_for_code(status_code, direction))
        if self.mount in _RATELIMIT_HEADER_MOUNTS and getattr(self.view, "throttle_classes", None):
            # Rate-limited views report the tightest counter on every reply (not on one refused before
            # it is counted, e.g. a body over the size limit, hence optional).
            for name, meaning in RATELIMIT_HEADERS.items():
                headers[name] = {"schema": {"type": "integer"}, "description": meaning}
        if status_code == "429":
            headers["Retry-After"] = {
                "schema": {"type": "integer"},
                "required": True,
                "description": "Seconds to wait before retrying.",
            }
        return headers

    def _get_response_bodies(self, direction: Direction = "response") -> dict[str, Any]:
        declared = self.get_response_serializers()
        if self.method == "DELETE" and declared is not None and not isinstance(declared, dict):
            # A DELETE that answers a body is a 200 (spectacular would declare a bodiless 204).
            bodies = {"200": self._get_response_for_code(declared, "200", direction=direction)}
        else:
            bodies = super()._get_response_bodies(direction)
        error_serializer = ERROR_SERIALIZERS.get(self.mount)
        for code in self.error_statuses():
            if str(code) not in bodies:
                reply = OpenApiResponse(error_serializer, description=HTTPStatus(code).phrase)
                bodies[str(code)] = self._get_response_for_code(reply, str(code), direction=direction)
        return dict(sorted(bodies.items()))

    def get_auth(self) -> list[dict[str, list]]:
        if self.mount != "/bonds/":
            return super().get_auth()
        for name, definition in BONDS_SECURITY_SCHEMES.items():
            self.registry.register_on_missing(
                ResolvedComponent(
                    name=name, type=ResolvedComponent.SECURITY_SCHEMA, object=name, schema=definition
                )
            )
        return [{name: []} for name in BONDS_SECURITY_SCHEMES] + [{}]
