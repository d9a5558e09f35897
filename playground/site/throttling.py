"""Sign-in lockout: failed attempts from one client address are counted in the cache, and once
PLAYGROUND_SIGN_IN_FAILURES of them fall within PLAYGROUND_SIGN_IN_WINDOW_SECONDS, sign-in
answers 429 with Retry-After until the oldest one leaves the window. Successful sign-ins are
not counted, so a class signing in together is never locked out."""

from __future__ import annotations

import functools
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from rest_framework.throttling import BaseThrottle

CACHE_KEY = "playground-sign-in-failures:{}"


def client_address(request) -> str:
    """The address DRF's throttles identify a client by (X-Forwarded-For and NUM_PROXIES)."""
    return BaseThrottle().get_ident(request)


def _recent(address: str, now: float) -> list[float]:
    window = settings.PLAYGROUND_SIGN_IN_WINDOW_SECONDS
    return [t for t in cache.get(CACHE_KEY.format(address), []) if t > now - window]


def sign_in_wait(request) -> int:
    """Seconds until this client may try again, 0 when it may now."""
    now = time.time()
    failures = _recent(client_address(request), now)
    if len(failures) < settings.PLAYGROUND_SIGN_IN_FAILURES:
        return 0
    oldest = failures[-settings.PLAYGROUND_SIGN_IN_FAILURES]
    return max(1, math.ceil(oldest + settings.PLAYGROUND_SIGN_IN_WINDOW_SECONDS - now))


def record_sign_in_failure(request) -> None:
    address, now = client_address(request), time.time()
    cache.set(CACHE_KEY.format(address), [*_recent(address, now), now],
              settings.PLAYGROUND_SIGN_IN_WINDOW_SECONDS)


def throttle_sign_in(view):
    """Wraps a Django login view: a POST while locked out gets 429; a POST that does not
    redirect (the form shown again with an error) counts as a failure."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method != "POST":
            return view(request, *args, **kwargs)
        wait = sign_in_wait(request)
        if wait:
            response = HttpResponse(f"Too many failed sign-ins; try again in {wait} s.\n",
                                    status=429, content_type="text/plain; charset=utf-8")
            response["Retry-After"] = str(wait)
            return response
        response = view(request, *args, **kwargs)
        if response.status_code != 302:
            record_sign_in_failure(request)
        return response

    return wrapped
