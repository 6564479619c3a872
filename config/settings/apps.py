"""The jobs and the three interfaces: Celery, messaging, webhooks, bonds."""

from __future__ import annotations

import re

from django.core.exceptions import ImproperlyConfigured

from config.settings.core import REDIS_URL, TIME_ZONE
from core.env import VAR_DIR, env_bool, env_float, env_int, env_list, env_str

# --- Celery -------------------------------------------------------------------------------------

if REDIS_URL:
    CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
        # Above the longest retry wait (64 s) plus the delivery timeout, so an unacked delivery is
        # not handed to a second worker while the first is still on it.
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
        # A request that publishes a hint must not wait long on a dead broker (the row is safe anyway).
        "socket_connect_timeout": env_float("REDIS_SOCKET_CONNECT_TIMEOUT", 0.5),
    }
else:
    # A broker that needs no server: messages are files under var/broker/.
    _BROKER_DIR = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "processed_folder": str(_BROKER_DIR / "processed"),
        # Broadcast (pidbox) messages too, or kombu writes them to ./control in the working directory.
        "control_folder": str(_BROKER_DIR / "control"),
        "store_processed": False,
        # kombu polls the folder; its default 1 s pause (taken whenever prefetch is full) would cap
        # a worker at a few tasks per second.
        "polling_interval": 0.02,
    }

CELERY_TIMEZONE = TIME_ZONE
CELERY_ENABLE_UTC = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes every database connection before and after each task unless this is set,
# so each delivery would open a new connection (docs/decisions/0008). With it, the
# fixup closes them only every 2 x this many tasks; config/celery.py recycles them per task the way
# Django does per request (CONN_MAX_AGE, health checks, broken connections).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
# Webhook deliveries have their own queue, so workers can be scaled for I/O apart from other jobs.
CELERY_TASK_ROUTES = {
    "webhooks.deliver": {"queue": "webhooks"},
    "webhooks.stream.drain": {"queue": "webhooks"},
}
# A worker rides out a broker that stops (Redis restarted, a failover): it retries the connection, at
# start and after losing it, for as long as it takes (kombu waits 2, 4, 6 ... up to 30 s between tries),
# so no delivery waits on a person restarting workers. core/kombu_redis.py keeps the lost connection's
# clean-up from ending the worker (docs/operations.md, "Redis outages").
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A delivery under way when the broker goes finishes (its row records the outcome) rather than being cut
# mid-POST and sent again; its hint cannot be acknowledged and is dropped, harmlessly.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# A hint is published once more after a failure, not three times: a request must not wait on a dead
# broker (the row is in the outbox and the sweeper hints it later).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# A hint due now goes on a Redis list that each worker's listener pops (jobs/wakeups.py, decision 0038):
# about a fifth of a Celery message's CPU on each side. Only with the Redis cache; off, every hint is a
# Celery message. The listener runs up to this many wake-ups at once, beside the Celery pool.
PONTE_WAKE_LIST = env_bool("PONTE_WAKE_LIST", True)
PONTE_WAKE_LIST_THREADS = env_int("PONTE_WAKE_LIST_THREADS", 8)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Periodic jobs are rows in django-celery-beat's tables (created by data migrations), so staff can
# edit their schedule in the admin; this dict holds only jobs whose timing is not meant to be edited.
CELERY_BEAT_SCHEDULE: dict = {}

# --- Metrics (core/metrics.py) ------------------------------------------------------------------

# GET /metrics asks for `Authorization: Bearer <this>` when set; open when empty (the embedded default).
# Set it in production.
PONTE_METRICS_TOKEN = env_str("PONTE_METRICS_TOKEN", "")
# Functions read at each scrape, each returning gauges read from the database (core.metrics.Reading).
PONTE_METRICS_COLLECTORS = [
    "webhooks.outbox.deliveries.collect",
    "integrations.chatwoot.jobs.collect",
    "integrations.bots.jobs.collect",
    "messaging.channels.queue.collect",
    "messaging.channels.calls.collect",
    "webhooks.stream.jobs.collect",
    "messaging.metrics.collect",
    "bonds.metrics.collect",
]

# --- Messaging ----------------------------------------------------------------------------------

MESSAGING_ENGINE = env_str("MESSAGING_ENGINE", "messaging.engines.sandbox.SandboxEngine")
# Where the messaging app hands every engine event (resolved once at app start): the outbox's emit, then
# the support-platform mirror (comma-separated dotted paths, called in order in the event's transaction).
MESSAGING_EVENT_SINK = env_str(
    "MESSAGING_EVENT_SINK",
    "webhooks.services.emit,integrations.chatwoot.sink.event_received,integrations.bots.sink.event_received",
)
# Engine processes (`manage.py run_engine`, used by messaging.engines.remote.RemoteEngine; need REDIS_URL).
ENGINE_DRIVER = env_str("ENGINE_DRIVER", "sandbox")
ENGINE_REDIS_URL = env_str("ENGINE_REDIS_URL", REDIS_URL)
ENGINE_COMMAND_TIMEOUT_SECONDS = env_float("ENGINE_COMMAND_TIMEOUT_SECONDS", 10.0)
ENGINE_MAX_SESSIONS = env_int("ENGINE_MAX_SESSIONS", 1000)
# A session's lease lasts this long unless its owner renews it (every ENGINE_HEARTBEAT_SECONDS).
ENGINE_LEASE_SECONDS = env_float("ENGINE_LEASE_SECONDS", 15.0)
ENGINE_HEARTBEAT_SECONDS = env_float("ENGINE_HEARTBEAT_SECONDS", 3.0)
# The WhatsApp driver (ENGINE_DRIVER=whatsapp, messaging/engines/whatsapp): a socks5:// or http:// proxy
# for every session's connection (a session's own `proxy` overrides it), the store of device keys
# (default: Ponte's database, or var/whatsapp.sqlite3 on the embedded default), how long connect waits
# for the first QR code, and whether buttons are sent as numbered text instead of reply buttons.
WHATSAPP_PROXY = env_str("WHATSAPP_PROXY", "")
WHATSAPP_STORE = env_str("WHATSAPP_STORE", "")
WHATSAPP_QR_WAIT_SECONDS = env_float("WHATSAPP_QR_WAIT_SECONDS", 5.0)
WHATSAPP_BUTTONS_AS_TEXT = env_bool("WHATSAPP_BUTTONS_AS_TEXT", False)
# Fixed domain parts of JIDs: individuals `<digits>@<user>`, groups `<digits>@<group>`.
MESSAGING_USER_SUFFIX = env_str("MESSAGING_USER_SUFFIX", "s.whatsapp.net")
MESSAGING_GROUP_SUFFIX = env_str("MESSAGING_GROUP_SUFFIX", "g.us")
MESSAGING_QR_TTL_SECONDS = env_int("MESSAGING_QR_TTL_SECONDS", 60)
# An official channel's inbound rows (messaging.channels.queue) and the Graph API calls they leave for
# after commit (messaging.channels.calls): a claim's lease (seconds), renewed every quarter lease while a
# worker holds the row, so a row held by a killed worker is taken again this long after its last heartbeat.
PONTE_CHANNEL_INBOUND_CLAIM_LEASE_SECONDS = env_int("PONTE_CHANNEL_INBOUND_CLAIM_LEASE_SECONDS", 8)
# "Delete for everyone" is refused after this long (WhatsApp allows about two and a half days).
MESSAGING_DELETE_WINDOW_SECONDS = env_int("MESSAGING_DELETE_WINDOW_SECONDS", 60 * 60 * 60)
# The plan's messages/day quota counts per calendar day in this time zone.
MESSAGING_QUOTA_TIME_ZONE = env_str("MESSAGING_QUOTA_TIME_ZONE", "America/Sao_Paulo")
MESSAGING_PROFILE_PICTURE_MAX_BYTES = env_int("MESSAGING_PROFILE_PICTURE_MAX_BYTES", 5 * 1024 * 1024)
MESSAGING_PROFILE_PICTURE_FETCH_TIMEOUT = env_int("MESSAGING_PROFILE_PICTURE_FETCH_TIMEOUT", 10)
# Media sent through POST /api/messages/media (base64 or a URL fetched through net.transport): at most
# this many bytes (WhatsApp's own limit for photos, videos and audio is 16 MB).
MESSAGING_MEDIA_MAX_BYTES = env_int("MESSAGING_MEDIA_MAX_BYTES", 16 * 1024 * 1024)
MESSAGING_MEDIA_FETCH_TIMEOUT = env_int("MESSAGING_MEDIA_FETCH_TIMEOUT", 30)
# Voice notes (`type: "voice"`) are converted to OGG/Opus on the web process (messaging.services.audio):
# audio decoding to more than this many seconds is refused (400) before it costs more CPU.
MESSAGING_VOICE_MAX_SECONDS = env_int("MESSAGING_VOICE_MAX_SECONDS", 30 * 60)
# Links to stored media (`mediaUrl` of message events) stop working this long after they were made.
MESSAGING_MEDIA_URL_TTL_SECONDS = env_int("MESSAGING_MEDIA_URL_TTL_SECONDS", 24 * 60 * 60)
# Where media bytes are kept (messaging.media): files under the var dir, or any Django storage backend,
# e.g. "storages.backends.s3.S3Storage" (pip install django-storages[s3]) with its AWS_* settings.
MESSAGING_MEDIA_STORAGE_BACKEND = env_str(
    "MESSAGING_MEDIA_STORAGE_BACKEND", "django.core.files.storage.FileSystemStorage"
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "messaging_media": {
        "BACKEND": MESSAGING_MEDIA_STORAGE_BACKEND,
        "OPTIONS": {"location": str(VAR_DIR / "media")}
        if MESSAGING_MEDIA_STORAGE_BACKEND.endswith("FileSystemStorage")
        else {"bucket_name": env_str("MESSAGING_MEDIA_BUCKET", ""), "default_acl": "private"},
    },
}

# Official channels (messaging.channels): Meta's Graph API, base without version, and the pinned version.
PONTE_GRAPH_API_URL = (env_str("PONTE_GRAPH_API_URL", "") or "https://graph.facebook.com").rstrip("/")
PONTE_GRAPH_API_VERSION = env_str("PONTE_GRAPH_API_VERSION", "") or "v21.0"
PONTE_GRAPH_API_TIMEOUT_SECONDS = env_float("PONTE_GRAPH_API_TIMEOUT_SECONDS", 10.0)

# --- Webhooks ----------------------------------------------------------------------------------

# Unknown instance keys one client address may present before the instance interface answers it 429
# until the window ends (guessing keys; webhooks.instance.guard): "<count>/<period>", period s, m, h or d.
PONTE_INSTANCE_KEY_FAILURE_RATE = env_str("PONTE_INSTANCE_KEY_FAILURE_RATE", "10/m").strip()
if not re.fullmatch(r"[1-9]\d*/\d*[smhd]", PONTE_INSTANCE_KEY_FAILURE_RATE):
    raise ImproperlyConfigured(
        "PONTE_INSTANCE_KEY_FAILURE_RATE must look like 10/m (a count, a slash, a period s, m, h or d); "
        f"got {PONTE_INSTANCE_KEY_FAILURE_RATE!r}."
    )

# An outbound HTTP request started inside a database transaction raises instead of holding the transaction
# (and its row locks) for as long as the other side takes (net.guard, docs/decisions/0021). On in the test
# suite (tests/isolation.py); off by default in production, where it would turn a slow path into a failure.
PONTE_REFUSE_OUTSIDE_CALLS_IN_TRANSACTION = env_bool("PONTE_REFUSE_OUTSIDE_CALLS_IN_TRANSACTION", False)

# CIDRs that outbound requests to customer URLs may reach although they are not public (tests, LANs).
PONTE_WEBHOOK_ALLOW_NETWORKS = env_list("PONTE_WEBHOOK_ALLOW_NETWORKS", [])
# Deliveries (webhooks.outbox).
# Multiplies every retry delay (0/1/4/16/64 s); tests run the schedule faster with e.g. 0.01.
PONTE_WEBHOOK_RETRY_DELAY_SCALE = env_float("PONTE_WEBHOOK_RETRY_DELAY_SCALE", 1.0)
# Lookups kept per process (a session's webhooks, its Chatwoot integration: webhooks.lookups) check the
# shared version at most this often (seconds). 0: on every use, so a write elsewhere is seen by the next
# event (one Redis GET instead of the database query); more trades that for up to this much staleness.
PONTE_LOOKUP_CHECK_SECONDS = env_float("PONTE_LOOKUP_CHECK_SECONDS", 0.0)
# A claim not renewed for this long (seconds) belongs to a dead worker and may be taken again. A running
# drain renews its claims every quarter of it (jobs.lease), however long a POST takes, so it can be
# short: a killed worker's deliveries are free again within this many seconds.
PONTE_WEBHOOK_CLAIM_LEASE_SECONDS = env_int("PONTE_WEBHOOK_CLAIM_LEASE_SECONDS", 8)
# The sweeper (beat, every 5 s; and each worker as it starts) re-enqueues deliveries due for longer than
# this, or stuck past the lease.
PONTE_WEBHOOK_SWEEP_GRACE_SECONDS = env_int("PONTE_WEBHOOK_SWEEP_GRACE_SECONDS", 15)
PONTE_WEBHOOK_SWEEP_BATCH = env_int("PONTE_WEBHOOK_SWEEP_BATCH", 5000)
# A hint drains its target: up to BATCH_SIZE deliveries claimed at once, sent one after another on the
# keep-alive connection and recorded in one transaction, for up to DRAIN_SECONDS before handing over.
PONTE_WEBHOOK_BATCH_SIZE = env_int("PONTE_WEBHOOK_BATCH_SIZE", 16)
PONTE_WEBHOOK_DRAIN_SECONDS = env_float("PONTE_WEBHOOK_DRAIN_SECONDS", 2.0)
# Drains at once per target URL, so one hanging receiver cannot hold every worker thread: any target
# gets at most MAX_IN_FLIGHT_PER_TARGET, a target whose last send took SLOW_SECONDS or more (remembered
# SLOW_MEMORY_SECONDS) at most MAX_IN_FLIGHT_PER_SLOW_TARGET, one delivery per claim, and its drain hands
# over after BUSY_TARGET_DEFER_SECONDS. 0 disables a cap.
PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET = env_int("PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET", 4)
PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET = env_int("PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET", 2)
PONTE_WEBHOOK_SLOW_SECONDS = env_float("PONTE_WEBHOOK_SLOW_SECONDS", 2.0)
PONTE_WEBHOOK_SLOW_MEMORY_SECONDS = env_int("PONTE_WEBHOOK_SLOW_MEMORY_SECONDS", 300)
PONTE_WEBHOOK_BUSY_TARGET_DEFER_SECONDS = env_float("PONTE_WEBHOOK_BUSY_TARGET_DEFER_SECONDS", 1.0)
# Per-webhook rate limits (`rateLimit`, webhooks.outbox.rate_limit): a drain waits up to this long for a place
# in a webhook's window, and gives the rest of its batch back for later beyond that.
PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS = env_float("PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS", 0.5)
# Replays (webhooks.registered.replay) go below live deliveries: never more than REPLAY_CHUNK of a replay's
# deliveries are on their way at once (topped up every REPLAY_TICK_SECONDS), so at most that many wait
# ahead of its webhook's live events.
PONTE_WEBHOOK_REPLAY_CHUNK = env_int("PONTE_WEBHOOK_REPLAY_CHUNK", 100)
PONTE_WEBHOOK_REPLAY_TICK_SECONDS = env_float("PONTE_WEBHOOK_REPLAY_TICK_SECONDS", 0.25)
# Auto-disable (webhooks.outbox.disable): a registered webhook whose attempts have all failed for this long
# (seconds, default 5 days) and at least this many times is disabled, its waiting deliveries dead-lettered
# and the account told by e-mail.
PONTE_WEBHOOK_DISABLE_AFTER_SECONDS = env_int("PONTE_WEBHOOK_DISABLE_AFTER_SECONDS", 5 * 24 * 60 * 60)
PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS = env_int("PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS", 10)
# Retention (webhooks.outbox.retention): delivered deliveries, their attempts and the events no delivery needs
# any more are purged this many days after delivery (default 7, the statistics window; dead letters keep
# their own 7 days), PURGE_BATCH rows per short transaction.
PONTE_DELIVERY_RETENTION_DAYS = env_int("PONTE_DELIVERY_RETENTION_DAYS", 7)
if PONTE_DELIVERY_RETENTION_DAYS < 1:
    raise ImproperlyConfigured(
        f"PONTE_DELIVERY_RETENTION_DAYS must be 1 or more; got {PONTE_DELIVERY_RETENTION_DAYS}."
    )
PONTE_DELIVERY_PURGE_BATCH = max(1, env_int("PONTE_DELIVERY_PURGE_BATCH", 1000))

# The live event socket (/ws, webhooks.live). Frames waiting for one client beyond
# QUEUE_FRAMES close it as too slow (4008); without Redis each web process polls the outbox every
# POLL_SECONDS for events other processes wrote; a connected key is checked again every
# KEY_CHECK_SECONDS (revoked or expired: closed with 4401). CHANNEL: the Redis pub/sub channel (default
# ponte:events:db<REDIS_URL's database>).
PONTE_WS_QUEUE_FRAMES = env_int("PONTE_WS_QUEUE_FRAMES", 1000)
PONTE_WS_POLL_SECONDS = env_float("PONTE_WS_POLL_SECONDS", 0.5)
PONTE_WS_KEY_CHECK_SECONDS = env_float("PONTE_WS_KEY_CHECK_SECONDS", 60.0)
PONTE_WS_CHANNEL = env_str("PONTE_WS_CHANNEL", "")

# The event stream (webhooks.stream): with an AMQP URL every event is published, from the outbox, to
# the durable topic exchange EXCHANGE with routing key `<sessionId>.<event>`; TIMEOUT_SECONDS bounds a
# connect and a publisher confirm; a publish's claim lease as for the mirror's jobs.
PONTE_EVENT_STREAM_URL = env_str("PONTE_EVENT_STREAM_URL", "")
PONTE_EVENT_STREAM_EXCHANGE = env_str("PONTE_EVENT_STREAM_EXCHANGE", "") or "ponte.events"
PONTE_EVENT_STREAM_TIMEOUT_SECONDS = env_float("PONTE_EVENT_STREAM_TIMEOUT_SECONDS", 5)
PONTE_EVENT_STREAM_CLAIM_LEASE_SECONDS = env_int("PONTE_EVENT_STREAM_CLAIM_LEASE_SECONDS", 8)

# --- Integrations ---------------------------------------------------------------------------------

# A Chatwoot mirror job's claim lease (seconds): renewed every quarter lease while the job runs, so a
# job held by a killed worker is taken again (by the sweeper or a starting worker's sweep) this long
# after the worker's last heartbeat, and a slow job is never run twice.
PONTE_CHATWOOT_CLAIM_LEASE_SECONDS = env_int("PONTE_CHATWOOT_CLAIM_LEASE_SECONDS", 8)

# --- Bots (integrations.bots) ----------------------------------------------------------------------

# A bot job's claim, renewed while its call runs (an LLM may take its time: the lease is not the limit).
PONTE_BOT_CLAIM_LEASE_SECONDS = env_int("PONTE_BOT_CLAIM_LEASE_SECONDS", 8)
# Failed attempts in a row after which a bot is disabled with the reason (as webhooks are).
PONTE_BOT_DISABLE_AFTER = env_int("PONTE_BOT_DISABLE_AFTER", 10)

# --- Bonds --------------------------------------------------------------------------------------

# Provider addresses are settings so tests (and mirrors) can point them elsewhere.
BONDS_TESOURO_CSV_URL = env_str(
    "BONDS_TESOURO_CSV_URL",
    "https://www.tesourotransparente.gov.br/ckan/dataset/df56aa42-484a-4a59-8184-7676580c81e3/resource/"
    "796d2059-14e9-44e3-80c9-2d9e30b405c1/download/PrecoTaxaTesouroDireto.csv",
)
BONDS_FOCUS_BASE_URL = env_str(
    "BONDS_FOCUS_BASE_URL", "https://olinda.bcb.gov.br/olinda/servico/Expectativas/versao/v1/odata"
)
BONDS_SGS_BASE_URL = env_str("BONDS_SGS_BASE_URL", "https://api.bcb.gov.br/dados/serie")
# BCB's "Reuniões do Copom" agenda as iCalendar: the meeting dates the Focus medians are placed at.
BONDS_COPOM_CALENDAR_URL = env_str(
    "BONDS_COPOM_CALENDAR_URL",
    "https://www.bcb.gov.br/api/exportarics/sitebcb/agendaics?lista=Reuni%C3%B5es%20do%20Copom",
)
BONDS_HTTP_TIMEOUT = env_int("BONDS_HTTP_TIMEOUT", 30)  # seconds, per provider request
BONDS_KEY_INTERVAL_SECONDS = env_int("BONDS_KEY_INTERVAL_SECONDS", 5)  # keyed calls 5 s apart
BONDS_PREVIEW_LIMIT = env_int("BONDS_PREVIEW_LIMIT", 5)  # bonds in a keyless preview
BONDS_REPLY_CACHE_SECONDS = env_int("BONDS_REPLY_CACHE_SECONDS", 300)
# Rows per rendered piece of a full list on a cache miss: a list longer than this is streamed (pieces
# pulled from a database cursor as the client takes them), a shorter one is answered whole.
BONDS_STREAM_ROWS = env_int("BONDS_STREAM_ROWS", 500)
# The deliveries' job store (webhooks.outbox.store): "orm" (any database) or "postgresql" (its three
# hottest operations as one statement each); empty picks "postgresql" on PostgreSQL, "orm" elsewhere.
PONTE_OUTBOX_STORE = env_str("PONTE_OUTBOX_STORE", "")
if PONTE_OUTBOX_STORE not in ("", "orm", "postgresql"):
    raise ImproperlyConfigured(
        f'PONTE_OUTBOX_STORE must be "orm" or "postgresql"; got {PONTE_OUTBOX_STORE!r}.'
    )

# Link previews read from a page (`linkPreview: true` on a text send): the page and its Open Graph image
# together, through net.transport, within this time and size; past either, the text goes without one.
MESSAGING_LINK_PREVIEW_TIMEOUT = env_int("MESSAGING_LINK_PREVIEW_TIMEOUT", 5)
MESSAGING_LINK_PREVIEW_MAX_BYTES = env_int("MESSAGING_LINK_PREVIEW_MAX_BYTES", 1024 * 1024)
