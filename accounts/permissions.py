"""Roles as DRF permission classes.

viewer reads; operator also sends messages and manages webhooks; admin does everything (create and
delete sessions, manage keys). `request.auth` is the caller's ApiKey.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from accounts.models import ApiKey
from core.errors import Forbidden, NotAuthenticated

if TYPE_CHECKING:  # rest_framework.views imports this module through DEFAULT_PERMISSION_CLASSES
    from rest_framework.views import APIView

_RANK = {ApiKey.Role.VIEWER: 0, ApiKey.Role.OPERATOR: 1, ApiKey.Role.ADMIN: 2}


def role_at_least(key: ApiKey | None, role: str) -> bool:
    return key is not None and _RANK.get(key.role, -1) >= _RANK[role]


class _RolePermission(BasePermission):
    read_role: str = ApiKey.Role.VIEWER
    write_role: str = ApiKey.Role.VIEWER

    def has_permission(self, request: Request, view: APIView) -> bool:
        key = request.auth
        if not isinstance(key, ApiKey):
            # Imported here: accounts.authentication imports DRF, which loads this module.
            from accounts.authentication import header_key_hint

            raise NotAuthenticated(hint=header_key_hint(request._request))
        needed = self.read_role if request.method in SAFE_METHODS else self.write_role
        if not role_at_least(key, needed):
            raise Forbidden(f"This API key's role ({key.role}) cannot do this; it needs {needed} or above.")
        return True


class IsViewer(_RolePermission):
    """Any valid key, any method (use the stricter classes for writes)."""


class ReadOrOperate(_RolePermission):
    """Viewers read; operators and admins write (messages, webhooks)."""

    write_role = ApiKey.Role.OPERATOR


class ReadOrAdmin(_RolePermission):
    """Viewers read; only admins write (create or delete sessions, manage keys)."""

    write_role = ApiKey.Role.ADMIN


class IsOperator(_RolePermission):
    read_role = write_role = ApiKey.Role.OPERATOR


class IsAdmin(_RolePermission):
    read_role = write_role = ApiKey.Role.ADMIN


def require_session_allowed(key: ApiKey, session_id: UUID | str) -> None:
    """A key restricted to some sessions may not touch any other (403)."""
    if not key.allows_session(session_id):
        raise Forbidden("This API key is not allowed to use this session.")
