"""Idempotent sends: the `Idempotency-Key` header of every `POST /api/messages/*`.

The first request with a key claims it (an IdempotencyRecord row, committed at once so every web process
sees it in flight), runs, and stores its reply. Within 24 hours, the same key with the same method, path
and body gets that reply again, with `Idempotent-Replayed: true`, and nothing is sent again; with another
body, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, 409 IDEMPOTENCY_KEY_IN_FLIGHT.
Keys are scoped per API key. Replies that say nothing happened and a retry may succeed (5xx, 429) are not
kept: the key is released, and the next request with it runs afresh.

`IdempotentMixin` goes on the message views' base class, so every route under it takes the header.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import AbstractContextManager, nullcontext
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import ValidationFailed
from core.openapi import AutoSchema
from messaging.errors import IdempotencyKeyInFlight, IdempotencyKeyReused
from messaging.models import IdempotencyRecord

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
#: How long a reply is replayed (and the record kept).
RETENTION = timedelta(hours=24)
#: A claim older than this without a reply belongs to a request that died (a killed process): taken over.
STALE_CLAIM = timedelta(minutes=5)

IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="1 to 255 characters. The same key and body within 24 hours replays the first reply "
    "(header `Idempotent-Replayed: true`) without sending again; another body answers 422 "
    "IDEMPOTENCY_KEY_REUSED; a request still running with the key answers 409 IDEMPOTENCY_KEY_IN_FLIGHT. "
    "Keys are scoped per API key.",
)


def _canonical(value: Any) -> Any:
    """JSON-safe form of parsed request data: uploaded files by their bytes' digest."""
    if hasattr(value, "chunks"):
        digest = hashlib.sha256()
        for chunk in value.chunks():
            digest.update(chunk)
        value.seek(0)
        return {"file": getattr(value, "name", ""), "sha256": digest.hexdigest()}
    if hasattr(value, "lists"):  # a QueryDict (form or multipart body)
        return {k: [_canonical(v) for v in vs] for k, vs in value.lists()}
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def request_digest(method: str, path: str, data: Any) -> str:
    """The hash of what the request asks: the same key on another route or body is another request."""
    body = json.dumps(_canonical(data), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{method} {path}\n{body}".encode()).hexdigest()


def idempotency_key_of(request: Request) -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise ValidationFailed(f"{HEADER}: from 1 to {MAX_KEY_LENGTH} characters.")
    return key


def idempotency_claim(*, api_key_id: int, key: str, digest: str) -> IdempotencyRecord | Response:
    """Claim `key` for a new request (the record, committed), or the stored reply to replay. Raises
    IdempotencyKeyReused or IdempotencyKeyInFlight. The claim is seen by other requests once the
    caller's transaction commits."""
    now = timezone.now()
    IdempotencyRecord.objects.filter(api_key_id=api_key_id, key=key, created_at__lt=now - RETENTION).delete()
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(api_key_id=api_key_id, key=key, body_hash=digest)
    except IntegrityError:
        pass
    record = IdempotencyRecord.objects.filter(api_key_id=api_key_id, key=key).first()
    if record is None:  # released between the insert and this read: the caller may try again
        raise IdempotencyKeyInFlight()
    if record.body_hash != digest:
        raise IdempotencyKeyReused()
    if record.status_code is not None:
        return Response(record.reply, status=record.status_code, headers={REPLAYED_HEADER: "true"})
    stale = IdempotencyRecord.objects.filter(
        pk=record.pk, status_code__isnull=True, created_at__lt=now - STALE_CLAIM
    ).update(created_at=now)
    if stale:
        return record  # its request died without a reply: this one takes the claim over
    raise IdempotencyKeyInFlight()


def idempotency_finish(*, record: IdempotencyRecord, response: Response) -> None:
    """Keep the reply for replays, or release the key when a retry may succeed (5xx, 429)."""
    if response.status_code >= 500 or response.status_code == 429:
        IdempotencyRecord.objects.filter(pk=record.pk).delete()
        return
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        status_code=response.status_code, reply=getattr(response, "data", None)
    )


def idempotency_purge() -> int:
    """Delete records older than 24 hours (the periodic clean-up); how many."""
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - RETENTION).delete()
    return deleted


class IdempotentSchema(AutoSchema):
    """The `Idempotency-Key` request header and the `Idempotent-Replayed` reply header on POSTs."""

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        return [*parameters, IDEMPOTENCY_KEY_PARAMETER] if self.method == "POST" else parameters

    def _get_response_headers_for_code(self, status_code: str, direction: Any = "response") -> dict:
        headers = dict(super()._get_response_headers_for_code(status_code, direction))
        if self.method == "POST" and status_code.startswith("2"):
            headers[REPLAYED_HEADER] = {
                "schema": {"type": "string", "enum": ["true"]},
                "description": "Present when this is the stored reply of an earlier request with the same "
                "Idempotency-Key and body (nothing was sent again).",
            }
        return headers


class IdempotentMixin:
    """For APIViews: the request's transaction is this view's own (not ATOMIC_REQUESTS'), so that a
    claimed key is committed before the work starts. Without the header, everything runs in one
    transaction exactly as ATOMIC_REQUESTS would; with it, authentication and the claim come first,
    then the handler in its own transaction, then the reply is stored. A view with
    `request_transaction = False` runs its handler in none: its service commits its own steps."""

    schema = IdempotentSchema()
    extra_error_statuses = (409, 422)
    #: False for views whose service runs its own short transactions (the sends: a request-wide one would
    #: hold its row locks across the engine's round trip; messaging.services.messages.message_send).
    request_transaction = True

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        return transaction.non_atomic_requests(super().as_view(**initkwargs))  # type: ignore[misc]

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        # Only sends are idempotent: any other method (OPTIONS, an undeclared TRACE) takes the plain path,
        # where DRF answers it as usual (405 for a method the view has not).
        if HEADER not in request.headers or request.method != "POST":
            with self._transaction():
                return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]
        self.args, self.kwargs = args, kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request = request
        self.headers = self.default_response_headers
        record, response = self._claimed(request, *args, **kwargs)
        if response is None:
            with self._transaction():
                response = self._handled(request, *args, **kwargs)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        if record is not None:
            idempotency_finish(record=record, response=self.response)
        return self.response

    def _transaction(self) -> AbstractContextManager[Any]:
        # No request transaction means none, in a test too (a test case's open block would otherwise make
        # the services take their nested path and call the engine inside a savepoint; net.guard). The
        # error handler then marks nothing for rollback (core.errors).
        return transaction.atomic() if self.request_transaction else nullcontext()

    def _claimed(
        self, request: Request, *args: Any, **kwargs: Any
    ) -> tuple[IdempotencyRecord | None, Response | None]:
        """Authenticate and claim the key: (the claim, None), or (None, the reply to give now)."""
        # One transaction, committed before the handler runs: the claim is then seen by every process.
        # An error is answered inside it, so its rollback is this block's alone.
        with transaction.atomic():
            try:
                self.initial(request, *args, **kwargs)
                key = idempotency_key_of(request)
                digest = request_digest(request.method, request.path, request.data)
                claimed = idempotency_claim(api_key_id=request.auth.pk, key=key, digest=digest)
            except Exception as exc:
                # This block's own rollback: the error handler marks none for views without a request
                # transaction (the sends).
                transaction.set_rollback(True)
                return None, self.handle_exception(exc)
        if isinstance(claimed, Response):
            return None, claimed
        return claimed, None

    def _handled(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        try:
            handler = getattr(self, request.method.lower(), self.http_method_not_allowed)
            return handler(request, *args, **kwargs)
        except Exception as exc:
            return self.handle_exception(exc)
