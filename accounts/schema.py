"""OpenAPI description of Ponte's key authentication (drf-spectacular extension)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from core.openapi import KEY_ORIGIN


class ApiKeyHeaderScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyHeaderAuthentication"
    name = "ApiKeyHeader"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": KEY_ORIGIN,
        }
