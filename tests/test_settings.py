"""Which mode the environment selects, and how bad values are refused at start-up."""

import pytest

from tests.helpers import ROOT, run_python, settings_summary

POSTGRES = "postgres://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"


def test_no_variables_mean_embedded_mode():
    summary = settings_summary()
    assert summary["DEBUG"] is True
    assert summary["ENGINE"] == "django.db.backends.sqlite3"
    assert summary["NAME"] == str(ROOT / "db.sqlite3")
    assert summary["LAYER"] == "channels.layers.InMemoryChannelLayer"
    assert summary["MODE"] == "embedded"
    assert summary["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost", "[::1]"]
    assert summary["broker_url"] == "memory://"
    assert summary["task_always_eager"] is True


def test_celery_is_configured_for_reliable_delivery():
    summary = settings_summary()
    assert summary["task_acks_late"] is True
    assert summary["worker_prefetch_multiplier"] == 1
    assert summary["task_reject_on_worker_lost"] is True
    assert "playground.runs.tasks" in summary["includes"]


def test_database_url_selects_postgresql_alone():
    summary = settings_summary(DATABASE_URL=POSTGRES, DJANGO_DEBUG="1")
    assert summary["ENGINE"] == "django.db.backends.postgresql"
    assert summary["NAME"] == "test"
    assert summary["HOST"] == "127.0.0.1"
    assert summary["LAYER"] == "channels.layers.InMemoryChannelLayer"
    assert summary["MODE"] == "embedded"


def test_postgresql_connections_are_kept_in_a_pool_in_every_process():
    summary = settings_summary(DATABASE_URL=POSTGRES, DJANGO_DEBUG="1")
    assert summary["CONN_MAX_AGE"] == 0
    assert summary["POOL"] == {"min_size": 1, "max_size": 10}
    assert settings_summary(DATABASE_URL=POSTGRES, DJANGO_DEBUG="1",
                            DJANGO_DB_POOL_MAX="3")["POOL"]["max_size"] == 3


def test_a_connection_age_asks_for_persistent_connections_instead_of_the_pool():
    summary = settings_summary(DATABASE_URL=POSTGRES, DJANGO_DEBUG="1", DJANGO_CONN_MAX_AGE="60")
    assert (summary["CONN_MAX_AGE"], summary["POOL"]) == (60, None)


def test_sqlite_has_no_pool():
    assert settings_summary()["POOL"] is None


def test_redis_url_selects_broker_and_channel_layer_alone():
    summary = settings_summary(REDIS_URL=REDIS, DJANGO_DEBUG="1")
    assert summary["ENGINE"] == "django.db.backends.sqlite3"
    assert summary["LAYER"] == "channels_redis.core.RedisChannelLayer"
    # No read timeout: redis-py 8's 5 s default would end the layer's blocking receive. A
    # retry on a new connection after Redis dropped them; room for a room of followers.
    host = summary["LAYER_CONFIG"]["hosts"][0]
    assert (host["address"], host["socket_timeout"]) == (REDIS, None)
    assert host["retry"].startswith("<redis.asyncio.retry.Retry")
    assert summary["LAYER_CONFIG"]["capacity"] == 2000
    assert summary["MODE"] == "services"
    assert summary["broker_url"] == REDIS
    assert summary["result_backend"] == REDIS
    assert summary["task_always_eager"] is False


def test_services_mode_turns_debug_off_by_default():
    summary = settings_summary(
        DATABASE_URL=POSTGRES,
        REDIS_URL=REDIS,
        DJANGO_SECRET_KEY="x" * 64 + "yz",
        DJANGO_ALLOWED_HOSTS="playground.example.com",
    )
    assert summary["DEBUG"] is False
    assert summary["ALLOWED_HOSTS"] == ["playground.example.com"]


@pytest.mark.parametrize(
    ("env", "named", "hint"),
    [
        ({"DJANGO_DEBUG": "maybe"}, "DJANGO_DEBUG", "true/false"),
        ({"DATABASE_URL": "mysql://root@localhost/test"}, "DATABASE_URL", "postgres"),
        ({"DATABASE_URL": "postgres://"}, "DATABASE_URL", "host"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL", "redis"),
        ({"REDIS_URL": "redis://localhost:port/0"}, "REDIS_URL", "not a URL"),
        ({"DJANGO_DEBUG": "0"}, "DJANGO_SECRET_KEY", "must be set"),
        (
            {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "k" * 60},
            "DJANGO_ALLOWED_HOSTS",
            "must be set",
        ),
        ({"DJANGO_ALLOWED_HOSTS": "a,,b"}, "DJANGO_ALLOWED_HOSTS", "empty items"),
        ({"DJANGO_CSRF_TRUSTED_ORIGINS": "example.com"}, "DJANGO_CSRF_TRUSTED_ORIGINS", "https://"),
        ({"DJANGO_SECURE_HSTS_SECONDS": "-5"}, "DJANGO_SECURE_HSTS_SECONDS", ">= 0"),
        ({"PLAYGROUND_TASK_THREADS": "0"}, "PLAYGROUND_TASK_THREADS", ">= 1"),
        ({"PLAYGROUND_SWEEP_MAX_VARIANTS": "0"}, "PLAYGROUND_SWEEP_MAX_VARIANTS", ">= 1"),
        ({"PLAYGROUND_LOG_LEVEL": "LOUD"}, "PLAYGROUND_LOG_LEVEL", "INFO"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(env, named, hint):
    done = run_python("from django.conf import settings; settings.DEBUG", **env)
    assert done.returncode != 0
    last_line = done.stderr.strip().splitlines()[-1]
    assert last_line.startswith("django.core.exceptions.ImproperlyConfigured:"), done.stderr
    assert named in last_line
    assert hint in last_line
