"""Run Django in a subprocess with a chosen environment (settings are read at import)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Variables settings.py reads; cleared so each subprocess sees only what a test sets.
SETTINGS_VARIABLES = ("DATABASE_URL", "REDIS_URL", "PLAYGROUND_TASKS_SYNC")


def clean_env(**overrides):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in SETTINGS_VARIABLES and not key.startswith("DJANGO_")
    }
    env["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    env.update(overrides)
    return env


def run_python(code, **env):
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_manage(*args, **env):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


SUMMARY = """
import json
from django.conf import settings
from playground import celery_app
conf = celery_app.conf
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "ENGINE": settings.DATABASES["default"]["ENGINE"],
    "NAME": str(settings.DATABASES["default"]["NAME"]),
    "HOST": settings.DATABASES["default"].get("HOST", ""),
    "LAYER": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "LAYER_CONFIG": settings.CHANNEL_LAYERS["default"].get("CONFIG"),
    "MODE": settings.PLAYGROUND_TASK_MODE,
    "ALLOWED_HOSTS": settings.ALLOWED_HOSTS,
    "broker_url": conf.broker_url,
    "result_backend": conf.result_backend,
    "task_always_eager": conf.task_always_eager,
    "task_acks_late": conf.task_acks_late,
    "worker_prefetch_multiplier": conf.worker_prefetch_multiplier,
    "task_reject_on_worker_lost": conf.task_reject_on_worker_lost,
    "includes": list(conf.include),
}))
"""


def settings_summary(**env):
    done = run_python(SUMMARY, **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])
