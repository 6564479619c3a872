"""Django itself, the database, the cache, the web tier, security and the API (logging: logs.py)."""

from __future__ import annotations

import warnings

from django.core.exceptions import ImproperlyConfigured

from core.changelog import current_version
from core.env import (
    BASE_DIR,
    VAR_DIR,
    database_from_url,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    sqlite_database,
)

# --- Core ---------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", True)
_INSECURE_DEV_KEY = "django-insecure-ponte-development-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DEBUG off Ponte refuses to start without it: "
            "set SECRET_KEY to a long random string, e.g. the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )
    SECRET_KEY = _INSECURE_DEV_KEY

# Keys that encrypt secrets at rest (webhook secrets, channel credentials; core.encryption): Fernet
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
    from core.encryption import development_key

    PONTE_SECRET_KEYS = [development_key(SECRET_KEY)]
else:
    from core.encryption import key_problem

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
    # django.contrib.admin, with a site whose sign-in is rate limited like the account area's.
    "config.apps.PonteAdminConfig",
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
    "jobs",
    "accounts",
    "bonds",
    "messaging",
    "messaging.channels",  # the official channels: an app of their own (label `channels`)
    "webhooks",
    "integrations",
]

MIDDLEWARE = [
    # Outermost: a read whose database connection was lost runs once more, the whole stack included.
    "core.db_outage.DatabaseOutageRetry",
    "core.badinput.BadInputMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's LocaleMiddleware for the pages only: the machine interfaces stay English (core/locale.py).
    "core.locale.PageLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # The pages' own 404 and 405 pages, even under DEBUG (portal/error_pages.py); the machine interfaces
    # keep their JSON.
    "portal.error_pages.PageErrorsMiddleware",
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
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL", "")
DATABASES = {
    "default": database_from_url(DATABASE_URL) if DATABASE_URL else sqlite_database(VAR_DIR / "ponte.sqlite3")
}
# Every request runs in one transaction, so an error rolls back everything the request wrote.
DATABASES["default"]["ATOMIC_REQUESTS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The outbox's hot statements are prepared once per PostgreSQL connection (webhooks.outbox.store_pg).
# Off behind a pooler in transaction mode that cannot keep prepared statements (PgBouncer before 1.21).
PONTE_DB_PREPARE = env_bool("DB_PREPARE", True)
# A full bond list missing from the reply cache is streamed from a server-side cursor (bonds.replies),
# which a pooler in transaction mode cannot keep between fetches: there, DB_SERVER_SIDE_CURSORS=false
# (Django then reads every row at once; only the text is still made a piece at a time).
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = not env_bool("DB_SERVER_SIDE_CURSORS", True)

# --- Web tier (config/asgi.py) ---------------------------------------------------------------------

# Threads per web process that run Django; each keeps its own database connection, so this is also the
# most database connections one web process opens. Requests beyond it wait in the process's queue.
PONTE_WEB_THREADS = env_int("PONTE_WEB_THREADS", 8)
if PONTE_WEB_THREADS < 1:
    raise ImproperlyConfigured(f"PONTE_WEB_THREADS must be at least 1; got {PONTE_WEB_THREADS}.")

# --- Cache (rate limits, the 5-second rule, bond list replies) ------------------------------------

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "core.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "ponte"),
            # Short socket timeouts: a Redis that stops answering must not hold requests (core/cache.py
            # then serves from a per-process fallback).
            "OPTIONS": {
                "socket_connect_timeout": env_float("REDIS_SOCKET_CONNECT_TIMEOUT", 0.5),
                "socket_timeout": env_float("REDIS_SOCKET_TIMEOUT", 2.0),
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
PONTE_REDIS_RETRY_SECONDS = env_float("PONTE_REDIS_RETRY_SECONDS", 2.0)
PONTE_REDIS_FALLBACK_TTL_SECONDS = env_float("PONTE_REDIS_FALLBACK_TTL_SECONDS", 5.0)
PONTE_RATELIMIT_DEGRADED_SHARE = env_float("PONTE_RATELIMIT_DEGRADED_SHARE", 0.25)
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.E003", "django_ratelimit.W001"]

# --- Internationalisation -----------------------------------------------------------------------

# The landing page, the account area and its e-mails speak English and Brazilian Portuguese: the
# visitor's choice (the header's switch, kept in a cookie), else Accept-Language, else LANGUAGE_CODE.
# The API, the gateway, the bonds API and MCP, the instance webhooks and the admin always answer in
# English, whatever is asked (core/locale.py).
LANGUAGES = [("en", "English"), ("pt-br", "Português (Brasil)")]
LANGUAGE_CODE = env_str("LANGUAGE_CODE", "en").lower()
if LANGUAGE_CODE not in dict(LANGUAGES):
    raise ImproperlyConfigured(
        f"LANGUAGE_CODE must be one of {', '.join(dict(LANGUAGES))}; got {LANGUAGE_CODE!r}."
    )
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates on the pages go through format names (SHORT_DATE_FORMAT...); config/formats keeps English
# pages on ISO dates and gives Brazilian pages dd/mm/aaaa.
FORMAT_MODULE_PATH = ["core.formats"]
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = env_str("TIME_ZONE", "America/Sao_Paulo")
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
# Served over HTTPS by a TLS proxy in front. The proxy sets X-Forwarded-Proto itself,
# overwriting what a client sent, so Django may believe it; the proxy also redirects HTTP to HTTPS, so
# Django does not (SECURE_SSL_REDIRECT stays off). Cookies are then sent over HTTPS only, and browsers
# are told to use HTTPS for a year (HSTS).
PONTE_HTTPS = env_bool("PONTE_HTTPS", False)
if PONTE_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = False
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if PONTE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", PONTE_HTTPS or not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", PONTE_HTTPS or not DEBUG)
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE

# --- Bad input (core/badinput.py) ---------------------------------------------------------------

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
    "DEFAULT_PARSER_CLASSES": ["core.badinput.JSONParser"],
    "DEFAULT_FILTER_BACKENDS": ["core.filters.FilterBackend"],
    "DEFAULT_METADATA_CLASS": "core.metadata.ViewMetadata",
    "DEFAULT_SCHEMA_CLASS": "core.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Ponte API",
    "DESCRIPTION": (
        "Bonds (fixed-income offers with net and real returns), messaging sessions, and webhooks. "
        "See docs/ in the repository for the guide of each interface. "
        "Authentication: an API key in `X-API-Key` (`/api/`, `/gateway/`) or as a bearer token "
        "(`/bonds/`). Customers issue their keys in the account area at `/account/keys/`; staff issue "
        "them in the admin at `/admin/`."
    ),
    # The newest released section of CHANGELOG.md: every version a client reads has its notes.
    "VERSION": current_version(BASE_DIR / "CHANGELOG.md"),
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # OpenAPI 3.1's `webhooks`: every event's body, from the typed event contract.
        "webhooks.openapi.event_webhooks_hook",
    ],
    "ENUM_NAME_OVERRIDES": {
        "KeyRoleEnum": "accounts.models.ApiKey.Role",
        "BondListStatusEnum": "bonds.statuses.REPLY_STATUSES",
        "WebhookStatusEnum": "webhooks.models.Webhook.Status",
        "DeliveryStatusEnum": "webhooks.models.Delivery.Status",
        "DisconnectReasonEnum": "messaging.api.sandbox_inbound.DISCONNECT_REASONS",
        "BotKindEnum": "integrations.bots.models.Bot.Kind",
        "BotTriggerEnum": "integrations.bots.models.Bot.Trigger",
        "BotKeywordOperatorEnum": "integrations.bots.models.Bot.Operator",
    },
}

# Where this Ponte is reached, for links printed by commands (demo data, docs examples).
PONTE_PORT = env_int("PONTE_PORT", 8000)
PONTE_HOST = env_str("PONTE_HOST", "127.0.0.1")
PONTE_BASE_URL = env_str("PONTE_BASE_URL", f"http://{PONTE_HOST}:{PONTE_PORT}").rstrip("/")
# Set by `make run` for one start: /healthz echoes it, so the banner is printed only once this run's own
# web process answers, never another server on the same port.
PONTE_RUN_TOKEN = env_str("PONTE_RUN_TOKEN", "")
# The demo's own webhook receiver at /demo/ (webhooks.demo.receiver); 404 when off.
PONTE_DEMO_RECEIVER = env_bool("PONTE_DEMO_RECEIVER", DEBUG)

# --- API keys and rate limits -------------------------------------------------------------------

# Client addresses behind these proxies (CIDRs) are read from X-Forwarded-For; otherwise REMOTE_ADDR.
# The customer account area (/account/, portal).
PONTE_SIGNUP_PLAN = env_str("PONTE_SIGNUP_PLAN", "Free")
# On: a new user stays inactive until the link mailed at sign-up is followed.
PONTE_ACCOUNT_EMAIL_VERIFICATION = env_bool("PONTE_ACCOUNT_EMAIL_VERIFICATION", False)
# Sign-in attempts allowed per (username, client address): a stranger elsewhere cannot lock a customer
# out. Per client address across usernames, a looser limit against password spraying.
PONTE_SIGNIN_RATE = env_str("PONTE_SIGNIN_RATE", "10/m")
PONTE_SIGNIN_CLIENT_RATE = env_str("PONTE_SIGNIN_CLIENT_RATE", "30/m")
# Password-reset mails per email address (known or not, so a refusal tells nothing) and per client
# address.
PONTE_PASSWORD_RESET_EMAIL_RATE = env_str("PONTE_PASSWORD_RESET_EMAIL_RATE", "5/h")
PONTE_PASSWORD_RESET_CLIENT_RATE = env_str("PONTE_PASSWORD_RESET_CLIENT_RATE", "20/h")
# Sign-ups (valid forms) allowed per client address.
PONTE_SIGNUP_RATE = env_str("PONTE_SIGNUP_RATE", "10/h")
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
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Ponte <no-reply@localhost>")

PONTE_TRUSTED_PROXIES = env_list("PONTE_TRUSTED_PROXIES", [])
# A plan with no per-minute limit ("unlimited") still gets this safety ceiling per key.
PONTE_UNLIMITED_REQUESTS_PER_MINUTE = env_int("PONTE_UNLIMITED_REQUESTS_PER_MINUTE", 6000)
# Requests without a usable key are limited per client address.
PONTE_ANONYMOUS_REQUESTS_PER_MINUTE = env_int("PONTE_ANONYMOUS_REQUESTS_PER_MINUTE", 60)
RATELIMIT_ENABLE = env_bool("RATELIMIT_ENABLE", True)

# Under uvicorn, Django's ASGI handler warns once per static file that whitenoise's file iterator is
# synchronous (it is then read in a worker thread, which is fine for these small files).
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators", category=Warning
)
