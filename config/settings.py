"""Ponte's one settings file.

Driven by the environment, and it runs with no environment at all: an SQLite file, the local-memory
cache, a filesystem Celery broker and the sandbox messaging engine. Set DATABASE_URL and REDIS_URL to
run on PostgreSQL and Redis instead (CI and production).
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PONTE_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}.")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {raw!r}.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(url: str) -> dict:
    """Turn postgres://user:pass@host:port/name or sqlite:///path into a DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme in {"postgres", "postgresql", "pgsql"}:
        options = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")) or "ponte",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "OPTIONS": options,
            # Persistent connections: a worker delivering many small tasks must not reconnect for each.
            "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 60),
            "CONN_HEALTH_CHECKS": True,
            "TEST": {"NAME": "test_" + (unquote(parsed.path.lstrip("/")) or "ponte")},
        }
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path)
        return _sqlite(Path(path[1:] if path.startswith("//") else path))
    raise ImproperlyConfigured(
        f"DATABASE_URL must start with postgres:// or sqlite://; got scheme {parsed.scheme!r}."
    )


def _sqlite(path: Path) -> dict:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        # WAL and a busy timeout let web, worker and beat share one file without "database is locked".
        # Kept open like PostgreSQL's: reopening runs the PRAGMAs below again for every task.
        "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 60),
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
        # A file, not :memory:, so a Celery worker started by a test sees the test database.
        "TEST": {"NAME": str(VAR_DIR / f"test_ponte_{os.getpid()}.sqlite3")},
    }


# --- Core ---------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", True)
_INSECURE_DEV_KEY = "django-insecure-ponte-development-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DEBUG off Ponte refuses to start without it: "
            "set SECRET_KEY to a long random string, e.g. the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )
    SECRET_KEY = _INSECURE_DEV_KEY

# Keys that encrypt secrets at rest (webhook secrets, channel credentials; config.encryption): Fernet
# keys, comma-separated. The first encrypts, all decrypt, so a new key goes first and the old one stays
# until `manage.py rotate_secret_keys` has re-encrypted everything. Lose them and those secrets are lost.
PONTE_SECRET_KEYS = env_list("PONTE_SECRET_KEYS", [])
if not PONTE_SECRET_KEYS:
    if not DEBUG:
        raise ImproperlyConfigured(
            "PONTE_SECRET_KEYS is not set. With DEBUG off Ponte refuses to start without it: it encrypts "
            "webhook secrets and channel credentials in the database. Set it to one Fernet key (several, "
            "comma-separated, while rotating), e.g. the output of python -c 'from cryptography.fernet "
            "import Fernet; print(Fernet.generate_key().decode())', and back it up apart from the database."
        )
    from config.encryption import development_key

    PONTE_SECRET_KEYS = [development_key(SECRET_KEY)]
else:
    from config.encryption import key_problem

    for _index, _key in enumerate(PONTE_SECRET_KEYS, start=1):
        if key_problem(_key):
            raise ImproperlyConfigured(
                f"PONTE_SECRET_KEYS: key {_index} is not a Fernet key ({key_problem(_key)}); generate "
                "one with python -c 'from cryptography.fernet import Fernet; "
                "print(Fernet.generate_key().decode())'."
            )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "config.apps.PonteConfig",
    "accounts",
    "bonds",
    "messaging",
    "webhooks",
]

MIDDLEWARE = [
    "config.badinput.BadInputMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------------

DATABASE_URL = os.environ.get("DATABASE_URL", "")
DATABASES = {
    "default": database_from_url(DATABASE_URL) if DATABASE_URL else _sqlite(VAR_DIR / "ponte.sqlite3")
}
# Every request runs in one transaction, so an error rolls back everything the request wrote.
DATABASES["default"]["ATOMIC_REQUESTS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Web tier (config/asgi.py, docs/operations.md "Web tier") -------------------------------------

# Threads per web process that run Django; each keeps its own database connection, so this is also the
# most database connections one web process opens. Requests beyond it wait in the process's queue.
PONTE_WEB_THREADS = env_int("PONTE_WEB_THREADS", 8)
if PONTE_WEB_THREADS < 1:
    raise ImproperlyConfigured(f"PONTE_WEB_THREADS must be at least 1; got {PONTE_WEB_THREADS}.")

# --- Cache (rate limits, the 5-second rule, bond list replies) ------------------------------------

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "ponte"),
            # Short socket timeouts: a Redis that stops answering must not hold requests (config/cache.py
            # then serves from a per-process fallback; docs/operations.md, "Redis outages").
            "OPTIONS": {
                "socket_connect_timeout": float(os.environ.get("REDIS_SOCKET_CONNECT_TIMEOUT") or 0.5),
                "socket_timeout": float(os.environ.get("REDIS_SOCKET_TIMEOUT") or 2),
            },
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "ponte",
            "OPTIONS": {"MAX_ENTRIES": 10_000},
        }
    }

# django-ratelimit warns that LocMemCache is per process; the embedded default runs one web process,
# where it is exact. With REDIS_URL set the shared Redis cache is used.
RATELIMIT_USE_CACHE = "default"
# While Redis is unreachable: seconds before it is tried again (meanwhile nothing waits on it), how long
# the per-process fallback keeps cached values, and the share of each rate limit one process allows on
# its own counters (4 web processes at 0.25 stay within the plan's limit).
PONTE_REDIS_RETRY_SECONDS = float(os.environ.get("PONTE_REDIS_RETRY_SECONDS") or 2)
PONTE_REDIS_FALLBACK_TTL_SECONDS = float(os.environ.get("PONTE_REDIS_FALLBACK_TTL_SECONDS") or 5)
PONTE_RATELIMIT_DEGRADED_SHARE = float(os.environ.get("PONTE_RATELIMIT_DEGRADED_SHARE") or 0.25)
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.E003", "django_ratelimit.W001"]

# --- Internationalisation -----------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "America/Sao_Paulo")
USE_I18N = True
USE_TZ = True

# --- Static files -------------------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Serve static files straight from the apps, so `make run` needs no collectstatic step.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- Security -----------------------------------------------------------------------------------

SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)

# --- Bad input (config/badinput.py) ---------------------------------------------------------------

# A request body declared larger than this is refused with 413 before it is read. Above a 5 MB
# profile picture sent as base64 (MESSAGING_PROFILE_PICTURE_MAX_BYTES).
PONTE_MAX_BODY_BYTES = env_int("PONTE_MAX_BODY_BYTES", 8 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = PONTE_MAX_BODY_BYTES
# JSON bodies nested deeper than this (objects and arrays) are refused with 400.
PONTE_MAX_JSON_DEPTH = env_int("PONTE_MAX_JSON_DEPTH", 32)

# --- REST framework and OpenAPI -----------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.ApiKeyHeaderAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.IsViewer"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.badinput.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "config.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Ponte API",
    "DESCRIPTION": (
        "Bonds (fixed-income offers with net and real returns), messaging sessions, and webhooks. "
        "See docs/ in the repository for the guide of each interface."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.openapi.nullable_refs_hook",
    ],
    "ENUM_NAME_OVERRIDES": {
        "KeyRoleEnum": "accounts.models.ApiKey.Role",
        "BondListStatusEnum": "bonds.statuses.REPLY_STATUSES",
    },
}

# Where this Ponte is reached, for links printed by commands (demo data, docs examples).
PONTE_PORT = env_int("PONTE_PORT", 8000)
PONTE_BASE_URL = os.environ.get(
    "PONTE_BASE_URL", f"http://{os.environ.get('PONTE_HOST', '127.0.0.1')}:{PONTE_PORT}"
).rstrip("/")
# The demo's own webhook receiver at /demo/ (webhooks.demo_receiver); 404 when off.
PONTE_DEMO_RECEIVER = env_bool("PONTE_DEMO_RECEIVER", DEBUG)

# --- API keys and rate limits -------------------------------------------------------------------

# Client addresses behind these proxies (CIDRs) are read from X-Forwarded-For; otherwise REMOTE_ADDR.
# The customer account area (/account/, docs/account.md).
PONTE_SIGNUP_PLAN = os.environ.get("PONTE_SIGNUP_PLAN", "Free")
# On: a new user stays inactive until the link mailed at sign-up is followed.
PONTE_ACCOUNT_EMAIL_VERIFICATION = env_bool("PONTE_ACCOUNT_EMAIL_VERIFICATION", False)
# Sign-in attempts allowed per client address and per username, each per minute.
PONTE_SIGNIN_RATE = os.environ.get("PONTE_SIGNIN_RATE", "10/m")
# Sign-ups (valid forms) allowed per client address.
PONTE_SIGNUP_RATE = os.environ.get("PONTE_SIGNUP_RATE", "10/h")
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
LOGIN_URL = "account:login"
LOGIN_REDIRECT_URL = "account:home"
LOGOUT_REDIRECT_URL = "account:login"
# Mail (password reset, sign-up verification): printed to the console unless EMAIL_HOST is set.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Ponte <no-reply@localhost>")

PONTE_TRUSTED_PROXIES = env_list("PONTE_TRUSTED_PROXIES", [])
# A plan with no per-minute limit ("unlimited") still gets this safety ceiling per key.
PONTE_UNLIMITED_REQUESTS_PER_MINUTE = env_int("PONTE_UNLIMITED_REQUESTS_PER_MINUTE", 6000)
# Requests without a usable key are limited per client address.
PONTE_ANONYMOUS_REQUESTS_PER_MINUTE = env_int("PONTE_ANONYMOUS_REQUESTS_PER_MINUTE", 60)
RATELIMIT_ENABLE = env_bool("RATELIMIT_ENABLE", True)

# --- Celery -------------------------------------------------------------------------------------

if REDIS_URL:
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
        # Above the longest retry wait (64 s) plus the delivery timeout, so an unacked delivery is
        # not handed to a second worker while the first is still on it.
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
        # A request that publishes a hint must not wait long on a dead broker (the row is safe anyway).
        "socket_connect_timeout": float(os.environ.get("REDIS_SOCKET_CONNECT_TIMEOUT") or 0.5),
    }
else:
    # A broker that needs no server: messages are files under var/broker/.
    _BROKER_DIR = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
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
# so each delivery opened a new connection (a third of the worker's time on PostgreSQL). With it, the
# fixup closes them only every 2 x this many tasks; config/celery.py recycles them per task the way
# Django does per request (CONN_MAX_AGE, health checks, broken connections).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
# Webhook deliveries have their own queue, so workers can be scaled for I/O apart from other jobs.
CELERY_TASK_ROUTES = {"webhooks.deliver": {"queue": "webhooks"}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A hint is published once more after a failure, not three times: a request must not wait on a dead
# broker (the row is in the outbox and the sweeper hints it later).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Periodic jobs are rows in django-celery-beat's tables (created by data migrations), so staff can
# edit their schedule in the admin; this dict holds only jobs whose timing is not meant to be edited.
CELERY_BEAT_SCHEDULE: dict = {}

# --- Messaging ----------------------------------------------------------------------------------

MESSAGING_ENGINE = os.environ.get("MESSAGING_ENGINE", "messaging.engines.sandbox.SandboxEngine")
# Where the messaging app hands every engine event (resolved once at app start): the outbox's emit.
MESSAGING_EVENT_SINK = os.environ.get("MESSAGING_EVENT_SINK", "webhooks.services.emit")
# Engine processes (`manage.py run_engine`, used by messaging.engines.remote.RemoteEngine; need REDIS_URL).
ENGINE_DRIVER = os.environ.get("ENGINE_DRIVER", "sandbox")
ENGINE_REDIS_URL = os.environ.get("ENGINE_REDIS_URL", REDIS_URL)
ENGINE_COMMAND_TIMEOUT_SECONDS = float(os.environ.get("ENGINE_COMMAND_TIMEOUT_SECONDS", "10"))
ENGINE_MAX_SESSIONS = env_int("ENGINE_MAX_SESSIONS", 1000)
# A session's lease lasts this long unless its owner renews it (every ENGINE_HEARTBEAT_SECONDS).
ENGINE_LEASE_SECONDS = float(os.environ.get("ENGINE_LEASE_SECONDS", "15"))
ENGINE_HEARTBEAT_SECONDS = float(os.environ.get("ENGINE_HEARTBEAT_SECONDS", "3"))
# The WhatsApp driver (ENGINE_DRIVER=whatsapp, messaging/engines/whatsapp): a socks5:// or http:// proxy
# for every session's connection (a session's own `proxy` overrides it), the store of device keys
# (default: Ponte's database, or var/whatsapp.sqlite3 on the embedded default), how long connect waits
# for the first QR code, and whether buttons are sent as numbered text instead of reply buttons.
WHATSAPP_PROXY = os.environ.get("WHATSAPP_PROXY", "")
WHATSAPP_STORE = os.environ.get("WHATSAPP_STORE", "")
WHATSAPP_QR_WAIT_SECONDS = float(os.environ.get("WHATSAPP_QR_WAIT_SECONDS", "5"))
WHATSAPP_BUTTONS_AS_TEXT = os.environ.get("WHATSAPP_BUTTONS_AS_TEXT", "").lower() in ("1", "true", "yes")
# Fixed domain parts of JIDs: individuals `<digits>@<user>`, groups `<digits>@<group>`.
MESSAGING_USER_SUFFIX = os.environ.get("MESSAGING_USER_SUFFIX", "s.whatsapp.net")
MESSAGING_GROUP_SUFFIX = os.environ.get("MESSAGING_GROUP_SUFFIX", "g.us")
MESSAGING_QR_TTL_SECONDS = env_int("MESSAGING_QR_TTL_SECONDS", 60)
# "Delete for everyone" is refused after this long (WhatsApp allows about two and a half days).
MESSAGING_DELETE_WINDOW_SECONDS = env_int("MESSAGING_DELETE_WINDOW_SECONDS", 60 * 60 * 60)
# The plan's messages/day quota counts per calendar day in this time zone.
MESSAGING_QUOTA_TIME_ZONE = os.environ.get("MESSAGING_QUOTA_TIME_ZONE", "America/Sao_Paulo")
MESSAGING_PROFILE_PICTURE_MAX_BYTES = env_int("MESSAGING_PROFILE_PICTURE_MAX_BYTES", 5 * 1024 * 1024)
MESSAGING_PROFILE_PICTURE_FETCH_TIMEOUT = env_int("MESSAGING_PROFILE_PICTURE_FETCH_TIMEOUT", 10)
# Media sent through POST /api/messages/media (base64 or a URL fetched through net.transport): at most
# this many bytes (WhatsApp's own limit for photos, videos and audio is 16 MB).
MESSAGING_MEDIA_MAX_BYTES = env_int("MESSAGING_MEDIA_MAX_BYTES", 16 * 1024 * 1024)
MESSAGING_MEDIA_FETCH_TIMEOUT = env_int("MESSAGING_MEDIA_FETCH_TIMEOUT", 30)
# Links to stored media (`mediaUrl` of message events) stop working this long after they were made.
MESSAGING_MEDIA_URL_TTL_SECONDS = env_int("MESSAGING_MEDIA_URL_TTL_SECONDS", 24 * 60 * 60)
# Where media bytes are kept (messaging.media): files under the var dir, or any Django storage backend,
# e.g. "storages.backends.s3.S3Storage" (pip install django-storages[s3]) with its AWS_* settings.
MESSAGING_MEDIA_STORAGE_BACKEND = os.environ.get(
    "MESSAGING_MEDIA_STORAGE_BACKEND", "django.core.files.storage.FileSystemStorage"
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "messaging_media": {
        "BACKEND": MESSAGING_MEDIA_STORAGE_BACKEND,
        "OPTIONS": {"location": str(VAR_DIR / "media")}
        if MESSAGING_MEDIA_STORAGE_BACKEND.endswith("FileSystemStorage")
        else {"bucket_name": os.environ.get("MESSAGING_MEDIA_BUCKET", ""), "default_acl": "private"},
    },
}

# Official channels (messaging.channels): Meta's Graph API, base without version, and the pinned version.
PONTE_GRAPH_API_URL = (os.environ.get("PONTE_GRAPH_API_URL") or "https://graph.facebook.com").rstrip("/")
PONTE_GRAPH_API_VERSION = os.environ.get("PONTE_GRAPH_API_VERSION") or "v21.0"
PONTE_GRAPH_API_TIMEOUT_SECONDS = float(os.environ.get("PONTE_GRAPH_API_TIMEOUT_SECONDS") or 10)

# --- Webhooks ----------------------------------------------------------------------------------

# Unknown instance keys one client address may present before the instance interface answers it 429
# until the window ends (guessing keys; webhooks.instance_guard): "<count>/<period>", period s, m, h or d.
PONTE_INSTANCE_KEY_FAILURE_RATE = os.environ.get("PONTE_INSTANCE_KEY_FAILURE_RATE", "10/m").strip()
if not re.fullmatch(r"[1-9]\d*/\d*[smhd]", PONTE_INSTANCE_KEY_FAILURE_RATE):
    raise ImproperlyConfigured(
        "PONTE_INSTANCE_KEY_FAILURE_RATE must look like 10/m (a count, a slash, a period s, m, h or d); "
        f"got {PONTE_INSTANCE_KEY_FAILURE_RATE!r}."
    )

# CIDRs that outbound requests to customer URLs may reach although they are not public (tests, LANs).
PONTE_WEBHOOK_ALLOW_NETWORKS = env_list("PONTE_WEBHOOK_ALLOW_NETWORKS", [])
# Deliveries (webhooks.outbox, docs/webhooks.md).
# Multiplies every retry delay (0/1/4/16/64 s); tests run the schedule faster with e.g. 0.01.
PONTE_WEBHOOK_RETRY_DELAY_SCALE = float(os.environ.get("PONTE_WEBHOOK_RETRY_DELAY_SCALE") or 1)
# A claim not renewed for this long (seconds) belongs to a dead worker and may be taken again. A running
# drain renews its claims every quarter of it (webhooks.lease), however long a POST takes, so it can be
# short: a killed worker's deliveries are free again within this many seconds.
PONTE_WEBHOOK_CLAIM_LEASE_SECONDS = env_int("PONTE_WEBHOOK_CLAIM_LEASE_SECONDS", 8)
# The sweeper (beat, every 5 s; and each worker as it starts) re-enqueues deliveries due for longer than
# this, or stuck past the lease.
PONTE_WEBHOOK_SWEEP_GRACE_SECONDS = env_int("PONTE_WEBHOOK_SWEEP_GRACE_SECONDS", 15)
PONTE_WEBHOOK_SWEEP_BATCH = env_int("PONTE_WEBHOOK_SWEEP_BATCH", 5000)
# A hint drains its target: up to BATCH_SIZE deliveries claimed at once, sent one after another on the
# keep-alive connection and recorded in one transaction, for up to DRAIN_SECONDS before handing over.
PONTE_WEBHOOK_BATCH_SIZE = env_int("PONTE_WEBHOOK_BATCH_SIZE", 16)
PONTE_WEBHOOK_DRAIN_SECONDS = float(os.environ.get("PONTE_WEBHOOK_DRAIN_SECONDS") or 2)
# Drains at once per target URL, so one hanging receiver cannot hold every worker thread: any target
# gets at most MAX_IN_FLIGHT_PER_TARGET, a target whose last send took SLOW_SECONDS or more (remembered
# SLOW_MEMORY_SECONDS) at most MAX_IN_FLIGHT_PER_SLOW_TARGET, one delivery per claim, and its drain hands
# over after BUSY_TARGET_DEFER_SECONDS. 0 disables a cap.
PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET = env_int("PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET", 4)
PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET = env_int("PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET", 2)
PONTE_WEBHOOK_SLOW_SECONDS = float(os.environ.get("PONTE_WEBHOOK_SLOW_SECONDS") or 2)
PONTE_WEBHOOK_SLOW_MEMORY_SECONDS = env_int("PONTE_WEBHOOK_SLOW_MEMORY_SECONDS", 300)
PONTE_WEBHOOK_BUSY_TARGET_DEFER_SECONDS = float(
    os.environ.get("PONTE_WEBHOOK_BUSY_TARGET_DEFER_SECONDS") or 1
)

# --- Bonds --------------------------------------------------------------------------------------

# Provider addresses are settings so tests (and mirrors) can point them elsewhere.
BONDS_TESOURO_CSV_URL = os.environ.get(
    "BONDS_TESOURO_CSV_URL",
    "https://www.tesourotransparente.gov.br/ckan/dataset/df56aa42-484a-4a59-8184-7676580c81e3/resource/"
    "796d2059-14e9-44e3-80c9-2d9e30b405c1/download/PrecoTaxaTesouroDireto.csv",
)
BONDS_FOCUS_BASE_URL = os.environ.get(
    "BONDS_FOCUS_BASE_URL", "https://olinda.bcb.gov.br/olinda/servico/Expectativas/versao/v1/odata"
)
BONDS_SGS_BASE_URL = os.environ.get("BONDS_SGS_BASE_URL", "https://api.bcb.gov.br/dados/serie")
BONDS_HTTP_TIMEOUT = env_int("BONDS_HTTP_TIMEOUT", 30)  # seconds, per provider request
BONDS_KEY_INTERVAL_SECONDS = env_int("BONDS_KEY_INTERVAL_SECONDS", 5)  # keyed calls 5 s apart
BONDS_PREVIEW_LIMIT = env_int("BONDS_PREVIEW_LIMIT", 5)  # bonds in a keyless preview
BONDS_REPLY_CACHE_SECONDS = env_int("BONDS_REPLY_CACHE_SECONDS", 300)

# --- Logging ------------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"routine_tasks": {"()": "config.logfilters.RoutineTasks"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's default config gives `django` a console handler of its own (with DEBUG on), so each
        # line (every 404) came out twice: once there and once at the root. Only the root prints.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        "celery.beat": {"filters": ["routine_tasks"]},
        "celery.worker.strategy": {"filters": ["routine_tasks"]},
        "celery.app.trace": {"filters": ["routine_tasks"]},
        # The MCP SDK logs "Terminating session: None" at INFO for every stateless /bonds/mcp call.
        "mcp.server.streamable_http": {"level": "WARNING"},
    },
}

# Under uvicorn, Django's ASGI handler warns once per static file that whitenoise's file iterator is
# synchronous (it is then read in a worker thread, which is fine for these small files).
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators", category=Warning
)
