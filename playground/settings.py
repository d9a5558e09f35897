"""Django settings for the scheduling playground.

Two ways to run, chosen by the environment alone:

* Embedded (no variables set): SQLite file ``db.sqlite3`` in the repository root, an
  in-memory channel layer, and Celery tasks run inside the server process on a small
  thread pool (see ``playground.tasking``). Meant for one person on 127.0.0.1.
* Services: ``DATABASE_URL`` (PostgreSQL) and/or ``REDIS_URL`` (Celery broker and
  result backend, and the channels-redis layer). Each works on its own.

Every variable is read through the strict helpers in ``playground.env``: a bad value
stops start-up with an ``ImproperlyConfigured`` error naming the variable.
"""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from playground.env import env_bool, env_choice, env_int, env_list, env_str, env_url

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Mode -----------------------------------------------------------------------------

DATABASE_URL = env_url("DATABASE_URL", schemes={"postgres", "postgresql", "pgsql", "sqlite"})
REDIS_URL = env_url("REDIS_URL", schemes={"redis", "rediss", "unix"})
# "embedded": tasks run in-process; "services": tasks go to Celery workers via Redis.
PLAYGROUND_TASK_MODE = "services" if REDIS_URL else "embedded"
EMBEDDED = not (DATABASE_URL or REDIS_URL)

# --- Core -----------------------------------------------------------------------------

# DEBUG defaults to on only in the fully embedded mode (one person on 127.0.0.1).
DEBUG = env_bool("DJANGO_DEBUG", default=EMBEDDED)

SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "Environment variable DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off "
            '(for example: python3 -c "import secrets; print(secrets.token_urlsafe(64))").'
        )
    SECRET_KEY = "django-insecure-playground-development-key-do-not-use-in-production"

if DEBUG:
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
else:
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "Environment variable DJANGO_ALLOWED_HOSTS must be set when DJANGO_DEBUG is off "
            "(a comma-separated list of host names, e.g. playground.example.com)."
        )
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
for _origin in CSRF_TRUSTED_ORIGINS:
    if not _origin.startswith(("http://", "https://")):
        raise ImproperlyConfigured(
            f"Environment variable DJANGO_CSRF_TRUSTED_ORIGINS={','.join(CSRF_TRUSTED_ORIGINS)!r}"
            f" is invalid: {_origin!r} must start with http:// or https://."
        )

INSTALLED_APPS = [
    "daphne",  # first: its runserver (ASGI) replaces Django's
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "playground",
    "playground.workshops",
    "playground.whatif",
]

MIDDLEWARE = [
    # Outermost: JSON for every answer under /api/, the body limit checked first.
    "playground.api.errors.ApiJsonErrorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Serves collected static files when DEBUG is off (runserver does it when DEBUG is on).
    *([] if DEBUG else ["whitenoise.middleware.WhiteNoiseMiddleware"]),
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "playground.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
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

WSGI_APPLICATION = "playground.wsgi.application"
ASGI_APPLICATION = "playground.asgi.application"

# --- Database -------------------------------------------------------------------------

if DATABASE_URL:
    try:
        _database = dj_database_url.parse(
            DATABASE_URL,
            # Persistent connections are not safe under ASGI (each HTTP request's sync code
            # runs on a thread of its own and would leave its connection behind): the
            # PostgreSQL pool below keeps connections instead.
            conn_max_age=env_int("DJANGO_CONN_MAX_AGE", 0, minimum=0),
            conn_health_checks=True,
        )
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"Environment variable DATABASE_URL is invalid: {exc}."
        ) from None
    # PostgreSQL: a pool of kept connections in every process (psycopg_pool, Django's
    # OPTIONS["pool"]); closing a connection gives it back. Without it every trip to the
    # database opened a new connection, a server's socket checks and a worker's every task
    # included (Celery's Django fixup closes them before and after each task): a new backend,
    # forked, then reading its catalogs afresh, 40 to 100 ms of a workshop step at load 12.
    # A connection is checked as it leaves the pool (CONN_HEALTH_CHECKS), so one the server
    # dropped is replaced, not handed out. DJANGO_CONN_MAX_AGE above 0 asks for persistent
    # connections instead (Django refuses both at once).
    if _database["ENGINE"] == "django.db.backends.postgresql" and not _database["CONN_MAX_AGE"]:
        # A thread waits up to psycopg's 30 s for a free connection (or a new one, after the
        # server dropped them: a niced test at load 25 once needed more than 10 s).
        _database.setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": env_int("DJANGO_DB_POOL_MAX", 10, minimum=1),
        }
else:
    _database = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": BASE_DIR / "db.sqlite3",
        "OPTIONS": {
            # The embedded task threads write while requests read: wait instead of failing.
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }
DATABASES = {"default": _database}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

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

# --- Static files (frontend/ holds the JS and CSS) ------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "frontend"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed, compressed files (after collectstatic) when DEBUG is off, ES module imports
        # rewritten to the hashed names (playground.site.storage).
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "playground.site.storage.ModuleManifestStorage",
    },
}

# --- Security (all on when DEBUG is off; `manage.py check --deploy` passes) -----------

SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# --- Channels -------------------------------------------------------------------------

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 reads with a 5 s socket timeout by default, which ends the layer's
            # blocking receive (BZPOPMIN) on any socket idle that long: no read timeout.
            "CONFIG": {
                "hosts": [{
                    "address": REDIS_URL, "socket_timeout": None,
                    # A Redis restart leaves every pooled connection dead: the first command
                    # on each would fail (a websocket refused per process) without a retry
                    # on a new connection.
                    "retry": Retry(ExponentialBackoff(cap=1.0, base=0.05), 5),
                    "retry_on_error": [RedisConnectionError, RedisTimeoutError],
                }],
                # Messages waiting for one socket before the layer drops more (default 100):
                # a room of followers of a fast run must not lose cycles to a slow reader. A
                # consumer that still misses some refills them from the store
                # (runs.consumer.refill).
                "capacity": env_int("PLAYGROUND_CHANNEL_CAPACITY", 2000, minimum=100),
                "expiry": 60,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Cache -----------------------------------------------------------------------------

# The sign-in lockout and DRF's rate throttles count in the cache. With several server
# processes (services mode) the count must be one for all of them, so it lives in Redis;
# embedded mode has one process and keeps Django's per-process default.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "playground",
        }
    }

# --- Celery (read by playground/celery.py, namespace CELERY_) ------------------------

CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_RESULT_EXPIRES = 24 * 3600
else:
    # No broker at all: playground.tasking runs tasks with task.apply() in-process.
    # A stray task.delay() runs inline rather than looking for a broker on localhost.
    CELERY_BROKER_URL = "memory://"
    # In-process results, so task code may call self.update_state() in either mode.
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_STORE_EAGER_RESULT = False

# Embedded mode: threads that run tasks in the server process.
PLAYGROUND_TASK_THREADS = env_int("PLAYGROUND_TASK_THREADS", 3, minimum=1, maximum=32)
# The most variants one sweep's grid may have (playground.whatif.sweeps; the engine's default).
PLAYGROUND_SWEEP_MAX_VARIANTS = env_int("PLAYGROUND_SWEEP_MAX_VARIANTS", 500, minimum=1,
                                        maximum=10_000)
# Run embedded tasks inline when the transaction commits (tests switch this on).
PLAYGROUND_TASKS_SYNC = env_bool("PLAYGROUND_TASKS_SYNC", False)

# --- REST framework and OpenAPI -------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "playground.api.pagination.PlaygroundPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Request bodies go through the engine's safe reader (depth, size, lone surrogates).
    "DEFAULT_PARSER_CLASSES": [
        "playground.api.errors.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Scoped throttles answer 429 with Retry-After; run start is the expensive request.
    "DEFAULT_THROTTLE_RATES": {
        "run_start": env_str("PLAYGROUND_THROTTLE_RUN_START", "30/min"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Scheduling Playground API",
    "DESCRIPTION": "Explore the Kubernetes scheduling framework: clusters, pods, plugins, runs.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc assets come from drf-spectacular-sidecar, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Data limits: bigger imports are refused with 413 ------------------------

PLAYGROUND_MAX_NODES = env_int("PLAYGROUND_MAX_NODES", 10_000, minimum=1)
PLAYGROUND_MAX_PODS = env_int("PLAYGROUND_MAX_PODS", 100_000, minimum=1)
# One limit for what a request may carry (an upload's files, a JSON body, form fields): 64 MiB,
# the safe reader's own limit on a document (scheduler_core.safe_read); a request's body may
# add 1 MiB of envelope (multipart boundaries, other fields) to it.
PLAYGROUND_MAX_UPLOAD_BYTES = env_int("PLAYGROUND_MAX_UPLOAD_BYTES", 64 * 1024 * 1024, minimum=1)
UPLOAD_ENVELOPE_BYTES = 1 << 20
DATA_UPLOAD_MAX_MEMORY_SIZE = PLAYGROUND_MAX_UPLOAD_BYTES + UPLOAD_ENVELOPE_BYTES

# --- Per-user quotas: checked by playground.services, refused with 403 ----------
# PLAYGROUND_MAX_NODES above is the nodes-per-cluster quota.

PLAYGROUND_QUOTA_CLUSTERS = env_int("PLAYGROUND_QUOTA_CLUSTERS", 100, minimum=1)
PLAYGROUND_QUOTA_CONCURRENT_RUNS = env_int("PLAYGROUND_QUOTA_CONCURRENT_RUNS", 3, minimum=1)
# Manifests, run snapshots and recorded cycles of everything a user owns.
PLAYGROUND_QUOTA_STORED_BYTES = env_int("PLAYGROUND_QUOTA_STORED_BYTES", 1 << 30, minimum=1)
# Sign-in lockout: this many failed attempts from one address within the window answer 429.
PLAYGROUND_SIGN_IN_FAILURES = env_int("PLAYGROUND_SIGN_IN_FAILURES", 10, minimum=1)
PLAYGROUND_SIGN_IN_WINDOW_SECONDS = env_int("PLAYGROUND_SIGN_IN_WINDOW_SECONDS", 300, minimum=1)
# Joining a workshop (playground.workshops.join_throttle), per window: refused joins (wrong
# codes) per client address, joins per address (a room behind one NAT address), joins per
# workshop.
PLAYGROUND_JOIN_WINDOW_SECONDS = env_int("PLAYGROUND_JOIN_WINDOW_SECONDS", 60, minimum=1)
PLAYGROUND_JOIN_FAILURES = env_int("PLAYGROUND_JOIN_FAILURES", 10, minimum=1)
PLAYGROUND_JOIN_PER_ADDRESS = env_int("PLAYGROUND_JOIN_PER_ADDRESS", 40, minimum=1)
PLAYGROUND_JOIN_PER_WORKSHOP = env_int("PLAYGROUND_JOIN_PER_WORKSHOP", 60, minimum=1)

# Out-of-tree scheduler plugins (name -> dotted path), registered like app.WithPlugin for
# every profile check and every run; the ones scheduler_core ships are on by default.
SCHEDULER_OUT_OF_TREE_PLUGINS = {
    "Coscheduling": "scheduler_core.outoftree.coscheduling",
    "GPUScorer": "scheduler_core.outoftree.gpu_scorer",
    "BindAudit": "scheduler_core.outoftree.bind_audit",
    "CapacityScheduling": "scheduler_core.outoftree.capacity_scheduling",
}

# --- Logging --------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {
        "playground": {
            "level": env_choice(
                "PLAYGROUND_LOG_LEVEL", ["DEBUG", "INFO", "WARNING", "ERROR"], "INFO"
            ),
            "handlers": ["console"],
            "propagate": False,
        },
    },
}
