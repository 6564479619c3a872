"""The messaging interface's domain errors (sessions, messages, channels); rendered by core.errors."""

from __future__ import annotations

from core.errors import ApplicationError, BadRequest, Conflict, NotFound, ValidationFailed


class InvalidPhoneNumber(ValidationFailed):
    gateway_text = "Invalid phone number"
    default_message = "Invalid phone number: use the international format without '+', or a JID."


class SessionNotInQrState(BadRequest):
    code = "SESSION_NOT_IN_QR_STATE"
    gateway_text = "Session not in QR state"
    default_message = "The session is not waiting for a QR scan; call connect first."


class OperationNotSupported(BadRequest):
    code = "OPERATION_NOT_SUPPORTED"
    gateway_text = "Operation not supported"
    default_message = "The session's channel does not support this operation."


class SessionNotFound(NotFound):
    code = "SESSION_NOT_FOUND"
    gateway_text = "Session not found"
    default_message = "Session not found."


class MessageNotFound(NotFound):
    code = "MESSAGE_NOT_FOUND"
    gateway_text = "Message not found"
    default_message = "Message not found in this chat."


class SessionNotConnected(Conflict):
    code = "SESSION_NOT_CONNECTED"
    gateway_text = "Session not connected"
    default_message = "The session is not connected; pair it by QR code or phone code first."


class OutsideCustomerWindow(Conflict):
    code = "OUTSIDE_CUSTOMER_WINDOW"
    gateway_text = "Outside the customer service window"
    default_message = (
        "More than 24 hours have passed since the customer's last message: only an approved template "
        "may be sent."
    )


class EngineUnavailable(ApplicationError):
    status_code = 502
    code = "ENGINE_UNAVAILABLE"
    gateway_text = "Engine unavailable"
    default_message = "The session engine is unreachable or not answering; try again shortly."


class MessageAlreadyDeleted(Conflict):
    code = "MESSAGE_ALREADY_DELETED"
    gateway_text = "Message already deleted"
    default_message = "This message was already deleted for everyone."


class DeletionWindowExpired(Conflict):
    code = "DELETION_WINDOW_EXPIRED"
    gateway_text = "Deletion window expired"
    default_message = "This message is too old to be deleted for everyone."
