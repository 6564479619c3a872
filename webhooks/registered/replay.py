"""Replay: a registered webhook's deliveries of a time window sent again, to its current target.

Each replayed delivery keeps its original `webhook-id` (receivers deduplicate on it) and is sent to the
webhook's current URL, signed with its current secret and carrying its current headers, like a resend
(webhooks.outbox.deliveries.deliveries_resend): one new attempt each, no new retry chain; one that
fails is a dead letter again. Deliveries still on their way are left to it.

Bounded so one request cannot queue an unbounded backlog: a window of at most 7 days, chosen by the
events' own time (`Event.event_ms`) and never reaching further back than what the outbox keeps (an
earlier `since` is taken as 7 days ago), and at most 10,000 deliveries; the error names the limit.

Below live deliveries: a replay (`WebhookReplay`) hands its deliveries to the worker in their events'
order, never more than PONTE_WEBHOOK_REPLAY_CHUNK on their way at once (a feeder task tops them up every
PONTE_WEBHOOK_REPLAY_TICK_SECONDS; the sweeper restarts a lost one), and a drain of resends recruits no
helper threads (webhooks.outbox.deliveries). So a replay holds at most one chunk ahead of its webhook's
live events and one worker thread against other webhooks. One replay per
webhook runs at a time: another one meanwhile is refused (409) naming it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import signature
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.errors import Conflict, ValidationFailed
from webhooks.models import Delivery, Webhook, WebhookReplay
from webhooks.outbox.deliveries import DEAD_LETTER_RETENTION, RESENDABLE, deliveries_resend
from webhooks.registered.test_event import require_active

logger = logging.getLogger(__name__)

MAX_WINDOW = timedelta(days=7)
RETENTION = DEAD_LETTER_RETENTION  # what the outbox keeps of a dead letter or a held delivery
MAX_DELIVERIES = 10_000
FEED_TASK = "webhooks.replay_feed"  # webhooks.tasks, published by name


class ReplayRunning(Conflict):
    code = "REPLAY_RUNNING"
    gateway_text = "Replay running"
    gateway_shows_message = True
    default_message = "A replay of this webhook is still running."


def _window_clean(since: datetime, until: datetime | None, now: datetime) -> tuple[datetime, datetime]:
    until = until or now
    if until <= since:
        raise ValidationFailed("until: must be after since")
    if until - since > MAX_WINDOW:
        raise ValidationFailed("since: the replay window (since to until) is at most 7 days")
    return max(since, now - RETENTION), until


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _chosen(replay: WebhookReplay, now: datetime) -> QuerySet[Delivery]:
    """The window's finished deliveries written before the replay was asked, by their event's own time,
    never older than the retention, in that order."""
    statuses = [Delivery.Status.DEAD] if replay.only_failed else RESENDABLE
    floor = max(replay.since, now - RETENTION)
    return Delivery.objects.filter(
        webhook_id=replay.webhook_id,
        status__in=statuses,
        event__event_ms__gte=_ms(floor),
        event__event_ms__lt=_ms(replay.until),
        created_at__lt=replay.requested_at,
    ).order_by("event__event_ms", "pk")


def _on_their_way(webhook: Webhook) -> int:
    """How many resends of the webhook are still to be sent: the replay's last chunks (or resends from
    the dashboard). They go to its current URL, so each count reads one of the outbox's small partial
    indexes of waiting and of sending rows by target (one condition on all three statuses would match
    neither, and walk the webhook's whole history instead)."""
    mine = Delivery.objects.filter(target_url=webhook.url, webhook=webhook, resend_pending=True)
    waiting = mine.filter(status__in=[Delivery.Status.PENDING, Delivery.Status.FAILED]).count()
    return waiting + mine.filter(status=Delivery.Status.SENDING).count()


def _step(replay: WebhookReplay, now: datetime) -> bool:
    """One step of a replay: top the webhook's resends on their way up to a chunk with the next
    deliveries of the window, or finish when none is left and none is on its way; whether there is more
    to do. The replay is saved."""
    replay.ticked_at = now
    on_their_way = _on_their_way(replay.webhook)
    room = int(settings.PONTE_WEBHOOK_REPLAY_CHUNK) - on_their_way
    ids = replay.deliveries[replay.taken : replay.taken + max(room, 0)]
    if not ids:
        if not on_their_way and replay.taken >= len(replay.deliveries):  # all sent
            replay.finished_at = now
        replay.save(update_fields=["ticked_at", "finished_at"])
        return replay.finished_at is None
    # A delivery purged or on its way again since the replay was asked is skipped (deliveries_resend).
    queued, _skipped = deliveries_resend(deliveries=Delivery.objects.filter(pk__in=ids), requested_by=None)
    replay.taken += len(ids)
    replay.released += queued
    replay.save(update_fields=["ticked_at", "taken", "released"])
    return True


def _running_text(replay: WebhookReplay) -> str:
    return (
        f"replay {replay.id} of this webhook is still running (asked at "
        f"{replay.requested_at.isoformat(timespec='seconds')} for since {replay.since.isoformat()} until "
        f"{replay.until.isoformat()}; {replay.released} of {replay.selected} deliveries handed over): "
        "one replay per webhook at a time, ask again once it has finished"
    )


def tick_seconds() -> float:
    return float(settings.PONTE_WEBHOOK_REPLAY_TICK_SECONDS)


def _feed_later(replay_id: str) -> None:
    """Publish the replay's next step once the transaction commits; a failed publish is logged, and the
    sweeper (replays_resume) restarts it."""
    countdown = tick_seconds()

    def publish() -> None:
        try:
            signature(FEED_TASK, args=[replay_id]).apply_async(countdown=countdown)
        except Exception:  # the broker is away: the sweeper restarts the feeder
            logger.warning("Could not publish the next step of replay %s; the sweeper will", replay_id)

    transaction.on_commit(publish, robust=True)


@transaction.atomic
def webhook_replay(
    *, webhook: Webhook, since: datetime, until: datetime | None = None, only_failed: bool = False
) -> int:
    """Replay the webhook's finished deliveries whose events happened in [since, until) (`only_failed`:
    dead letters only); how many it will send. The first chunk is handed to the worker at once, the rest
    by the feeder. Raises ReplayRunning while another replay of the webhook has deliveries to send."""
    webhook = Webhook.objects.select_for_update().get(pk=webhook.pk)  # one request at a time per webhook
    require_active(webhook)
    now = timezone.now()
    since, until = _window_clean(since, until, now)
    running = (
        WebhookReplay.objects.select_for_update().filter(webhook=webhook, finished_at__isnull=True).first()
    )
    if running is not None and _step(running, now):  # a step finishes one whose feeder was lost
        raise ReplayRunning(_running_text(running))
    replay = WebhookReplay(
        webhook=webhook, since=since, until=until, only_failed=only_failed, requested_at=now, ticked_at=now
    )
    chosen = _chosen(replay, now)
    replay.deliveries = list(chosen.values_list("pk", flat=True)[: MAX_DELIVERIES + 1])
    if len(replay.deliveries) > MAX_DELIVERIES:
        raise ValidationFailed(
            f"since: {chosen.count()} deliveries in the window, at most {MAX_DELIVERIES} per replay; "
            "narrow since and until"
        )
    replay.selected = len(replay.deliveries)
    replay.save(force_insert=True)
    if _step(replay, now):
        _feed_later(replay.pk)
    return replay.selected


def replay_feed(*, replay_id: str) -> bool:
    """The feeder's step (webhooks.tasks): whether the replay goes on (the task publishes its next step).
    A replay whose webhook was disabled or deleted meanwhile stops."""
    with transaction.atomic():
        replay = (
            WebhookReplay.objects.select_for_update()
            .select_related("webhook")
            .filter(pk=replay_id, finished_at__isnull=True)
            .first()
        )
        if replay is None:
            return False
        now = timezone.now()
        if replay.webhook.status != Webhook.Status.ACTIVE:
            replay.finished_at = now
            replay.save(update_fields=["finished_at"])
            return False
        return _step(replay, now)


def replays_resume() -> int:
    """Restart the feeders of unfinished replays that have not stepped for three ticks (a lost message, a
    killed worker); how many (called with the sweeper)."""
    stale = timezone.now() - timedelta(seconds=3 * tick_seconds())
    stalled = WebhookReplay.objects.filter(finished_at__isnull=True, ticked_at__lt=stale)
    ids = list(stalled.values_list("pk", flat=True))
    for replay_id in ids:
        try:
            signature(FEED_TASK, args=[replay_id]).apply_async()
        except Exception:
            logger.warning("Could not restart the feeder of replay %s", replay_id)
            break
    return len(ids)
