"""The messaging interface's domain errors (sessions, messages, channels); rendered by core.errors."""

from __future__ import annotations

from core.errors import ApplicationError, BadRequest, Conflict, Forbidden, NotFound, ValidationFailed


class InvalidPhoneNumber(ValidationFailed):
    gateway_text = "Invalid phone number"
    gateway_shows_message = False
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
    #: The id of the text recorded as a failed message, when the channel refused to send it at all.
    unsent_id: str = ""
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


class NotMessageAuthor(Forbidden):
    code = "NOT_MESSAGE_AUTHOR"
    gateway_text = "Not the message author"
    default_message = "Only messages sent by this session can be edited."


class EditWindowExpired(Conflict):
    code = "EDIT_WINDOW_EXPIRED"
    gateway_text = "Edit window expired"
    default_message = "Messages can be edited only within 15 minutes of sending."


class MessageNotEditable(BadRequest):
    code = "MESSAGE_NOT_EDITABLE"
    gateway_text = "Message not editable"
    default_message = "Only text messages can be edited."


class IdempotencyKeyReused(ApplicationError):
    status_code = 422
    code = "IDEMPOTENCY_KEY_REUSED"
    gateway_text = "Idempotency key reused"
    default_message = "This Idempotency-Key was used with another request body within the last 24 hours."


class IdempotencyKeyInFlight(Conflict):
    code = "IDEMPOTENCY_KEY_IN_FLIGHT"
    gateway_text = "Idempotency key in flight"
    default_message = "A request with this Idempotency-Key is still being processed; retry in a moment."


class InviteNotFound(NotFound):
    code = "INVITE_NOT_FOUND"
    gateway_text = "Invite not found"
    default_message = "No group has this invite code (unknown or revoked)."


class ContactBlocked(Conflict):
    code = "CONTACT_BLOCKED"
    gateway_text = "Contact blocked"
    default_message = "The contact is blocked by this session; unblock it first."


class LabelNotFound(NotFound):
    code = "LABEL_NOT_FOUND"
    gateway_text = "Label not found"
    default_message = "No label with this id in the session."


class LidNotFound(NotFound):
    code = "LID_NOT_FOUND"
    gateway_text = "LID not found"
    default_message = "Neither Ponte nor the session's engine knows the other id of this contact."
