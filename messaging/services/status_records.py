"""What a `status` event records (messaging.services.events): a contact's status seen by the session, or
one posted from the session's phone; a `revoked` one marks its status deleted. Kept apart from
messaging.services.status, which imports the sending services (they import the event recorders)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from messaging.engines.status_events import StatusEvent
from messaging.models import Session
from messaging.status_models import STATUS_CHAT, StatusPost


def status_record(session: Session, event: StatusEvent) -> str:
    """A `status` event (messaging.services.events): the status recorded, or marked deleted (`revoked`).
    Returns its chat, `status@broadcast`."""
    if event.type == "revoked":
        StatusPost.objects.filter(session=session, sender=event.sender, status_id=event.id).update(
            deleted_at=timezone.now()
        )
        return STATUS_CHAT
    media = {
        key: value
        for key, value in (
            ("mediaUrl", event.media_url),
            ("mimeType", event.mime_type),
            ("sha256", event.sha256),
            ("size", event.size),
        )
        if value is not None
    }
    posted = datetime.fromtimestamp(event.timestamp, tz=UTC) if event.timestamp else timezone.now()
    StatusPost.objects.update_or_create(
        session=session,
        sender=event.sender,
        status_id=event.id,
        defaults={
            "push_name": event.push_name[:100],
            "from_me": event.from_me,
            "type": event.type,
            "text": event.caption if event.type != "text" and event.caption is not None else event.text,
            "background_color": (event.background_color or "")[:7],
            "font": event.font,
            "media": media,
            "posted_at": posted,
        },
    )
    return STATUS_CHAT
