"""Services mode: the cache behind the sign-in lockout and the rate throttles is Redis, so a
count kept by one server process holds in every other."""

import subprocess
import sys

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import RequestFactory

from playground.site.throttling import _key, sign_in_wait
from tests.helpers import ROOT

pytestmark = pytest.mark.services

ADDRESS = "198.51.100.77"

RECORD_FAILURES = f"""
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()
from django.conf import settings
from django.test import RequestFactory
from playground.site.throttling import record_sign_in_failure
request = RequestFactory().post("/login/", {{"username": "alice"}}, REMOTE_ADDR="{ADDRESS}")
for _ in range(settings.PLAYGROUND_SIGN_IN_FAILURES):
    record_sign_in_failure(request)
"""


def alice_request():
    return RequestFactory().post("/login/", {"username": "alice"}, REMOTE_ADDR=ADDRESS)


@pytest.fixture
def clean_address():
    cache.delete(_key(alice_request()))
    yield
    cache.delete(_key(alice_request()))


def test_the_default_cache_is_redis():
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"


def test_failures_counted_by_another_process_lock_this_one_out(clean_address):
    request = alice_request()
    assert sign_in_wait(request) == 0
    subprocess.run([sys.executable, "-c", RECORD_FAILURES], cwd=ROOT, check=True)
    assert sign_in_wait(request) > 0
