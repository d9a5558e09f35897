"""Sign-in lockout: failed attempts are counted in the cache per account and client address
together, and once PLAYGROUND_SIGN_IN_FAILURES of them fall within
PLAYGROUND_SIGN_IN_WINDOW_SECONDS, sign-in to that account from that address answers 429 with
Retry-After until the oldest one leaves the window. Counting by address alone let one client
lock out everyone behind the same address (a classroom's NAT); counting by account alone would
let anyone lock out any account. Successful sign-ins are not counted, so a class signing in
together is never locked out."""

from __future__ import annotations

import functools
import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from rest_framework.throttling import BaseThrottle

CACHE_KEY = "playground-sign-in-failures:{address}:{account}"


def client_address(request) -> str:
    """The address DRF's throttles identify a client by (X-Forwarded-For and NUM_PROXIES)."""
    return BaseThrottle().get_ident(request)


def _key(request) -> str:
    """The counter of this request's account (the username it signs in as, case-folded and
    hashed to keep the key short and clean) at its client's address."""
    data = getattr(request, "data", None) or request.POST
    account = str(data.get("username") or "")[:150].casefold()
    digest = hashlib.sha256(account.encode("utf-8", "replace")).hexdigest()[:32]
    return CACHE_KEY.format(address=client_address(request), account=digest)


@dataclass(frozen=True)
class SlidingWindow:
    """Attempts counted in the cache under `key`: at most `limit` within the last `seconds`
    (the sign-in lockout's, a workshop's joins)."""

    key: str
    limit: int
    seconds: int

    def recent(self, now: float) -> list[float]:
        return [t for t in cache.get(self.key, []) if t > now - self.seconds]

    def wait(self, now: float) -> int:
        """Seconds until one more attempt fits, 0 when it fits now."""
        times = self.recent(now)
        if len(times) < self.limit:
            return 0
        return max(1, math.ceil(times[-self.limit] + self.seconds - now))

    def record(self, now: float) -> None:
        cache.set(self.key, [*self.recent(now), now], self.seconds)


def _failures(request) -> SlidingWindow:
    return SlidingWindow(_key(request), settings.PLAYGROUND_SIGN_IN_FAILURES,
                         settings.PLAYGROUND_SIGN_IN_WINDOW_SECONDS)


def sign_in_wait(request) -> int:
    """Seconds until this client may try this account again, 0 when it may now."""
    return _failures(request).wait(time.time())


def record_sign_in_failure(request) -> None:
    _failures(request).record(time.time())


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
