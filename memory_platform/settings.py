"""Settings for the memory platform, read from the environment with defaults that just work.

Importing them starts nothing and writes nothing: paths of the local install are computed
(memory_platform.local), and `memory_platform.local.prepare` creates them and starts the
embedded servers for the commands that need them.

With no environment variable at all the service runs on an embedded PostgreSQL (data under
`.data/`), a local-memory cache with rate limits counted in files, eager Celery tasks, the
local ONNX embedder and the offline extractor. `make run` adds an embedded Valkey
(`MEMORY_EMBEDDED_REDIS`) with a Celery worker and beat. `DATABASE_URL` and `REDIS_URL`
switch to real servers.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from memory_platform import local
from memory_platform.embedded import postgres_socket_dir, valkey_socket_path

BASE_DIR = Path(__file__).resolve().parent.parent


# --- typed environment helpers -------------------------------------------------------------


def env_str(name: str, default: str = "") -> str:
    """Return a string variable, stripped; empty counts as unset."""
    value = os.environ.get(name, "").strip()
    return value or default


def env_bool(name: str, default: bool = False) -> bool:
    """Return a boolean variable written as 1/0, true/false, yes/no or on/off."""
    raw = env_str(name).lower()
    if not raw:
        return default
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use true or false.")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """Return an integer variable, optionally bounded below."""
    raw = env_str(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}.")
    return value


def env_float(name: str, default: float) -> float:
    """Return a float variable."""
    raw = env_str(name)
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """Return a variable that must be one of `choices`."""
    value = env_str(name, default).lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of: {', '.join(choices)}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """Return a comma-separated list variable."""
    raw = env_str(name)
    if not raw:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# --- local data directory ------------------------------------------------------------------

# Everything the embedded default keeps (database files, the generated secret key, local
# credentials) lives here so that deleting one folder resets a local install.
DATA_DIR = local.data_dir()

# Prometheus metrics (core.metrics). Every process writes its samples under one
# directory that a scrape sums; prometheus_client reads the variable when first imported, so
# it is set here, before any app imports it (`local.prepare` creates the directory). `make
# run` empties it at start.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(local.metrics_dir()))
# /metrics is off until one of these is set: a bearer token, or the scrapers' addresses.
METRICS_TOKEN = env_str("METRICS_TOKEN")
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS", [])
for _network in METRICS_ALLOWED_IPS:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"METRICS_ALLOWED_IPS: {_network!r} is neither an IP address nor a network "
            "(e.g. 10.0.0.5 or 10.0.0.0/8)"
        ) from None


def _local_secret_key() -> str:
    """Return the secret key `local.prepare` generated once and keeps under DATA_DIR."""
    try:
        return local.secret_key_file().read_text().strip() or secrets.token_urlsafe(50)
    except OSError:
        # A process that needs no shared key (`manage.py check`, `makemigrations`) before
        # any `prepare`: a key of its own, since settings write nothing.
        return secrets.token_urlsafe(50)


SECRET_KEY = env_str("DJANGO_SECRET_KEY") or _local_secret_key()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Production behind a TLS-terminating proxy: one switch. The proxy must set X-Forwarded-Proto
# (and strip it from clients); plain HTTP is redirected to HTTPS, cookies are sent over HTTPS
# only, and browsers are told to use HTTPS for a year (HSTS). Health and metrics stay reachable
# over plain HTTP inside the network, for probes and scrapers.
HTTPS = env_bool("DJANGO_HTTPS", False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^health$", r"^metrics$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)

INSTALLED_APPS = [
    # django.contrib.admin, with the "Memory platform" site and its dashboard.
    "memory_platform.apps.MemoryAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_api_key",
    "drf_spectacular",
    # Swagger UI's files, served by this service (no CDN): /api/docs/ works offline.
    "drf_spectacular_sidecar",
    # Failed admin logins, counted per account and per address (the guarded login).
    "axes",
    "memory_platform",
    "tenants",
    "memories",
    "extraction",
    "recall",
    "agents",
]

MIDDLEWARE = [
    # First: every response, a 413 of the body limit included, carries the X-Request-ID.
    "core.requests.RequestIdMiddleware",
    "core.middleware.BodyLimitMiddleware",
    "core.middleware.QueryStringMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Row-level security: the request sees no tenant until its key (or the admin's operator)
    # names one; after AuthenticationMiddleware, whose user it reads.
    "tenants.middleware.TenantWallMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: answers a locked-out login with the lockout page.
    "axes.middleware.AxesMiddleware",
]

# The admin login is guarded: after ADMIN_LOGIN_FAILURE_LIMIT failed attempts for one account,
# or from one address, further attempts are refused for ADMIN_LOGIN_LOCKOUT_MINUTES (a
# success before the limit clears the count). Unlock early: manage.py axes_reset_username NAME
# or axes_reset_ip ADDRESS. The API's keys are not Django logins and are never locked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ADMIN_LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "admin/login_locked.html"
# Failed attempts are kept as a log for operators; successful logins are not logged again.
AXES_ENABLE_ACCESS_FAILURE_LOG = True
AXES_DISABLE_ACCESS_LOG = True
# Behind the TLS proxy (DJANGO_HTTPS) every connection comes from a proxy: the client is the
# address the outermost of DJANGO_PROXY_COUNT proxies appended to X-Forwarded-For.
PROXY_COUNT = env_int("DJANGO_PROXY_COUNT", 1, minimum=1) if HTTPS else 0
AXES_CLIENT_IP_CALLABLE = "core.requests.client_address"

ROOT_URLCONF = "memory_platform.urls"
WSGI_APPLICATION = "memory_platform.wsgi.application"
# The API's paths are a contract without trailing slashes; never redirect them.
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The root templates/, through the symlink memory_platform/templates: the same path in a
        # checkout and in an installed wheel, which carries the files there (pyproject.toml).
        "DIRS": [Path(__file__).resolve().parent / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # The admin index shows how many conflicts wait (lazy: no query unless shown).
                "memories.context_processors.review_queue_summary",
            ],
        },
    },
]

# --- database ------------------------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL")
EMBEDDED_POSTGRES = not DATABASE_URL
EMBEDDED_DATABASE_NAME = local.EMBEDDED_DATABASE_NAME

if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": EMBEDDED_DATABASE_NAME,
            "USER": "postgres",
            "PASSWORD": "",
            # Where the server that `local.prepare` starts listens (a pure function of the path).
            "HOST": str(postgres_socket_dir(DATA_DIR / "pg")),
            "PORT": "",
            "CONN_MAX_AGE": 60,
        }
    }
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Django's PostgreSQL backend that runs each query under the tenant walls of its context (row
# level security, tenants.rls): whatever the URL's scheme, the database is PostgreSQL.
DATABASES["default"]["ENGINE"] = "tenants.backend"
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env_int(
    "DATABASE_CONNECT_TIMEOUT", 5, minimum=1
)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache, rate limits, Celery ------------------------------------------------------------

REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_URL = REDIS_URL or "memory://"
# `make run` asks for an embedded Valkey under DATA_DIR when REDIS_URL names no server, so
# that its web workers, Celery worker and beat share one cache, rate limit and queue. If it
# could not start, `local.prepare` left the reason in MEMORY_EMBEDDED_REDIS_ERROR (a system
# check and `run_local` show it) and the service falls back to the stores below that need no
# server.
EMBEDDED_REDIS = False
EMBEDDED_REDIS_ERROR = ""
if not REDIS_URL and env_bool("MEMORY_EMBEDDED_REDIS", False):
    EMBEDDED_REDIS_ERROR = env_str(local.VALKEY_ERROR_VARIABLE)
    if not EMBEDDED_REDIS_ERROR:
        _valkey_socket = valkey_socket_path(DATA_DIR / "valkey")
        EMBEDDED_REDIS = True
        REDIS_URL = f"unix://{_valkey_socket}"
        CELERY_BROKER_URL = f"redis+socket://{_valkey_socket}"

CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "memory",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "memory-platform",
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        },
        # The rate limit must count every process's requests (gunicorn runs several): without
        # Redis its counters live in files under the data directory, shared by all of them.
        "ratelimit": {
            "BACKEND": "core.filecache.LockedFileBasedCache",
            "LOCATION": str(DATA_DIR / "ratelimit"),
            # Each set lists the directory to cull: keep it small (counters live a minute).
            "OPTIONS": {"MAX_ENTRIES": 5_000, "CULL_FREQUENCY": 2},
        },
    }
# django-ratelimit's counter store: one that every process shares.
RATELIMIT_USE_CACHE = "default" if REDIS_URL else "ratelimit"

CELERY_RESULT_BACKEND = None
# Beat's record of when each schedule last ran, kept with the local data, not in the clone.
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
# Without a broker the embedded default runs tasks in the request; with Redis a worker does.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
# The worker logs through LOGGING above (JSON lines with the request id), not its own format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A broker outage of any length: the worker keeps reconnecting (every 30 s at most) instead of
# exiting after 100 tries; `run_local` restarts one that exits anyway.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A channel error while the broker restarts (a reply to a half-closed connection, Valkey still
# loading its data) is retried like a lost connection, not an "Unrecoverable error" exit.
CELERY_BROKER_CHANNEL_ERROR_RETRY = True
# A task running when the broker goes away finishes (its job is saved); its message, which
# could not be acknowledged, is delivered again later and finds the job done. True (Celery 6's
# default) would kill it and leave the job `running` for the stalled-job replay.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Without gossip, mingle and heartbeats, which a broker restart can crash
# (memory_platform.celery_worker).
CELERY_WORKER_CONSUMER = "memory_platform.celery_worker:Consumer"

# --- the memory service --------------------------------------------------------------------

OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
MEMORY_LLM_MODEL = env_str("MEMORY_LLM_MODEL", "gpt-4o-mini")
MEMORY_LLM_TIMEOUT = env_float("MEMORY_LLM_TIMEOUT", 30.0)
MEMORY_LLM_MAX_RETRIES = env_int("MEMORY_LLM_MAX_RETRIES", 2, minimum=0)
# Base of the exponential backoff between LLM retries when the server gives no Retry-After.
MEMORY_LLM_BACKOFF = env_float("MEMORY_LLM_BACKOFF", 0.5)
# The longest one synchronous extraction may wait on the LLM: its calls (two tries at the
# extraction, one decision call), each with every retry, its timeout and the backoff between
# retries. The web server's request timeout follows it (memory_platform.gunicorn_conf), so a
# slow model answers a 502 with the job or the memories, never a worker killed mid-request (a
# 500).
MEMORY_LLM_CALLS_PER_EXTRACTION = 3
_LLM_CALL_BUDGET = (MEMORY_LLM_MAX_RETRIES + 1) * MEMORY_LLM_TIMEOUT + MEMORY_LLM_BACKOFF * (
    2 ** (MEMORY_LLM_MAX_RETRIES + 1)
)
WEB_TIMEOUT = env_int(
    "WEB_TIMEOUT", int(MEMORY_LLM_CALLS_PER_EXTRACTION * _LLM_CALL_BUDGET) + 30, minimum=30
)
# Tokens of conversation sent to the LLM; older turns beyond it are dropped (and counted).
MEMORY_LLM_INPUT_BUDGET = env_int("MEMORY_LLM_INPUT_BUDGET", 6000, minimum=500)
# Questions (linked pairs of a new fact and a stored memory) in the one decision call of an
# extraction; the nearest first, the rest left to the rules.
MEMORY_DECISION_MAX_QUESTIONS = env_int("MEMORY_DECISION_MAX_QUESTIONS", 12, minimum=1)
MEMORY_EXTRACTOR = env_choice(
    "MEMORY_EXTRACTOR", "llm" if OPENAI_API_KEY else "rules", ("llm", "rules")
)
MEMORY_EMBEDDER = env_choice("MEMORY_EMBEDDER", "local", ("local", "openai", "hashing"))
# A new memory that contradicts stored ones: `review` holds it for an operator; `supersede`
# lets an announced change (moved, switched, quit) replace them at once, filed as resolved.
# Tenants may override it in the admin.
MEMORY_CONFLICT_POLICY = env_choice("MEMORY_CONFLICT_POLICY", "review", ("review", "supersede"))
MEMORY_USER_CAP = env_int("MEMORY_USER_CAP", 100, minimum=1)
# Scheduled pruning (Celery beat): how often, and which rules (0 days = that rule is off).
MEMORY_PRUNE_EVERY_HOURS = env_int("MEMORY_PRUNE_EVERY_HOURS", 24, minimum=1)
MEMORY_PRUNE_SUPERSEDED_DAYS = env_int("MEMORY_PRUNE_SUPERSEDED_DAYS", 0, minimum=0)
MEMORY_PRUNE_UNUSED_DAYS = env_int("MEMORY_PRUNE_UNUSED_DAYS", 0, minimum=0)
# A job queued or running this long has lost its process (a killed worker): beat and
# `retry_failed_jobs` replay it from its kept conversation.
MEMORY_JOB_STALE_MINUTES = env_int("MEMORY_JOB_STALE_MINUTES", 10, minimum=1)
# A job tried this many times (each run counted as it starts, task retries included) is given
# up: beat and `retry_failed_jobs` no longer replay it, and report it.
MEMORY_JOB_MAX_ATTEMPTS = env_int("MEMORY_JOB_MAX_ATTEMPTS", 10, minimum=1)
# The store's audit filed for review as proposals (memories.services.audit): how often.
MEMORY_AUDIT_EVERY_HOURS = env_int("MEMORY_AUDIT_EVERY_HOURS", 24, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "prune-memories": {
        "task": "memories.prune_memories",
        "schedule": timedelta(hours=MEMORY_PRUNE_EVERY_HOURS),
    },
    "audit-proposals": {
        "task": "memories.audit_proposals",
        "schedule": timedelta(hours=MEMORY_AUDIT_EVERY_HOURS),
    },
    "retry-stalled-jobs": {
        "task": "extraction.retry_stalled_jobs",
        "schedule": timedelta(minutes=max(1, MEMORY_JOB_STALE_MINUTES // 2)),
    },
}
MEMORY_RATE_LIMIT = env_int("MEMORY_RATE_LIMIT", 60, minimum=1)
MEMORY_ASYNC_EXTRACTION = env_bool("MEMORY_ASYNC_EXTRACTION", False)
# A queued extraction whose LLM is down is retried this often, the wait doubling each time.
MEMORY_TASK_MAX_RETRIES = env_int("MEMORY_TASK_MAX_RETRIES", 5, minimum=0)
MEMORY_TASK_RETRY_BACKOFF = env_float("MEMORY_TASK_RETRY_BACKOFF", 10.0)
RECALL_MODE = env_choice(
    "RECALL_MODE", "hybrid", ("vector", "lexical", "hybrid", "llm", "hybrid+llm")
)
# Access statistics of recalled memories are written in the background every this many
# seconds (0: during the request).
RECALL_ACCESS_FLUSH_SECONDS = env_float("RECALL_ACCESS_FLUSH_SECONDS", 2.0)

# --- Django REST framework and the API schema ----------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["tenants.authentication.TenantAPIKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        # A read-only key's write is a 403 `read_only_key`.
        "tenants.permissions.KeyScopePermission",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's, bounded in nesting depth and refusing lone surrogates (a 400, never a 500).
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    # drf-spectacular's, telling per operation whether a read-only key may call it.
    "DEFAULT_SCHEMA_CLASS": "tenants.schema.AutoSchema",
    "EXCEPTION_HANDLER": "core.exceptions.exception_handler",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Memory platform API",
    "DESCRIPTION": "Extract, store and recall durable facts about the end users of AI agents.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from drf-spectacular-sidecar's static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
}

# --- the rest of Django --------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = local.static_root()
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Serve admin assets straight from the apps so `make run` needs no collectstatic step.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MEMORY_MAX_BODY_BYTES", 1_048_576, minimum=1024)
# A body over the limit is still read (and discarded) up to this size, so that clients which
# send it all before reading get their 413 instead of a broken pipe.
MEMORY_MAX_DRAIN_BYTES = env_int("MEMORY_MAX_DRAIN_BYTES", 64 * 1_048_576, minimum=0)
# The deepest nesting a JSON body may have (the API's bodies need 3 levels); deeper is a 400
# before anything walks it (core.parsers).
MEMORY_MAX_JSON_DEPTH = 32

# json: one JSON object per line with the request id (core.jsonlog); plain: for humans.
LOG_FORMAT = env_choice("LOG_FORMAT", "json", ("json", "plain"))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"()": "core.jsonlog.PlainFormatter"},
        "json": {"()": "core.jsonlog.JsonFormatter"},
    },
    # A StreamHandler writes to stderr: the MCP stdio server keeps stdout for its protocol.
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
    "loggers": {
        "embedded_postgres": {"level": "WARNING"},
        # The MCP SDK logs three INFO lines per stateless HTTP request (manager up, down...).
        "mcp.server": {"level": "WARNING"},
        # django-axes announces itself at every start; its lockouts are logged as warnings.
        "axes": {"level": "WARNING"},
    },
}
