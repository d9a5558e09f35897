"""Joining a workshop, throttled: a join makes an account, a wrong code is a guess at one.

Three sliding windows of PLAYGROUND_JOIN_WINDOW_SECONDS, counted in the cache (one count for
every server process in services mode, as the sign-in lockout's):
- refused joins (a wrong or closed code, a refused name) per client address: a code is six
  characters of 32, and guessing them is what a flood of wrong codes is;
- joins per client address: a room behind one NAT address joins together, so this limit is
  a room's size, not one person's;
- joins per workshop: whatever addresses they come from, accounts made in one room.
Over a limit, joining answers 429 with Retry-After until the oldest counted attempt leaves
the window.
"""

from __future__ import annotations

import time

from django.conf import settings

from playground.errors import InvalidInput
from playground.site.throttling import SlidingWindow, client_address

KEY = "playground-join:{}:{}"


class JoinThrottled(Exception):
    def __init__(self, wait: int, why: str):
        super().__init__(f"{why}: try again in {wait} s")
        self.wait = wait


def _windows(request, code: str) -> dict[str, SlidingWindow]:
    address, seconds = client_address(request), settings.PLAYGROUND_JOIN_WINDOW_SECONDS
    return {
        "refused": SlidingWindow(KEY.format("refused", address),
                                 settings.PLAYGROUND_JOIN_FAILURES, seconds),
        "address": SlidingWindow(KEY.format("address", address),
                                 settings.PLAYGROUND_JOIN_PER_ADDRESS, seconds),
        "workshop": SlidingWindow(KEY.format("workshop", code),
                                  settings.PLAYGROUND_JOIN_PER_WORKSHOP, seconds),
    }


WHY = {
    "refused": "too many refused joins from your address",
    "address": "too many joins from your address",
    "workshop": "too many people joined this workshop in the last minutes",
}


def check_join(request, code: str) -> None:
    """Raise JoinThrottled if a join attempt for `code` from this client must wait."""
    now = time.time()
    for name, window in _windows(request, code).items():
        wait = window.wait(now)
        if wait:
            raise JoinThrottled(wait, WHY[name])


def record_join(request, code: str, *, joined: bool) -> None:
    """Count an attempt: a new attendee against the address and the workshop, a refused one
    against the address's refusals."""
    now = time.time()
    windows = _windows(request, code)
    for name in (("address", "workshop") if joined else ("refused",)):
        windows[name].record(now)


def throttled_join(request, code: str, join):
    """`join()` (a services.workshop_join call) counted and refused as above: JoinThrottled
    before it when over a limit; its InvalidInput counted as a refusal; a new attendee (not
    a browser coming back to its own) counted as a join."""
    check_join(request, code)
    try:
        attendee = join()
    except InvalidInput:
        record_join(request, code, joined=False)
        raise
    if attendee.user != request.user:
        record_join(request, code, joined=True)
    return attendee
