"""Strict readers for settings taken from environment variables.

Each helper either returns a well-formed value or raises ``ImproperlyConfigured``
with a message that names the variable, shows the offending value and says what
would have been accepted. An unset variable, or one set to the empty string,
means "use the default".
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def _refuse(name: str, value: str, expected: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"Environment variable {name}={value!r} is invalid: {expected}.")


def env_str(name: str, default: str | None = None, *, required: bool = False) -> str | None:
    """A string; ``required=True`` refuses an unset or empty variable."""
    value = _raw(name)
    if value is None:
        if required:
            raise ImproperlyConfigured(f"Environment variable {name} must be set.")
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    """A boolean written as 1/0, true/false, yes/no or on/off (any case)."""
    value = _raw(name)
    if value is None:
        return default
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise _refuse(name, value, "expected one of 1/0, true/false, yes/no, on/off")


def env_int(
    name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """A base-10 integer, optionally bounded (inclusive)."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value, 10)
    except ValueError:
        raise _refuse(name, value, "expected a whole number") from None
    if minimum is not None and number < minimum:
        raise _refuse(name, value, f"expected a number >= {minimum}")
    if maximum is not None and number > maximum:
        raise _refuse(name, value, f"expected a number <= {maximum}")
    return number


def env_list(name: str, default: Iterable[str] = ()) -> list[str]:
    """A comma-separated list; blank items (``a,,b`` or a trailing comma) are refused."""
    value = _raw(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if any(item == "" for item in items):
        raise _refuse(name, value, "expected a comma-separated list without empty items")
    return items


def env_choice(name: str, choices: Iterable[str], default: str) -> str:
    """One word out of ``choices`` (compared case-insensitively, returned as listed)."""
    value = _raw(name)
    if value is None:
        return default
    by_lower = {choice.lower(): choice for choice in choices}
    if value.lower() not in by_lower:
        raise _refuse(name, value, f"expected one of {', '.join(by_lower.values())}")
    return by_lower[value.lower()]


def env_url(name: str, schemes: Iterable[str], default: str | None = None) -> str | None:
    """A URL whose scheme is one of ``schemes`` and which names a host (or a path for unix)."""
    value = _raw(name)
    if value is None:
        return default
    allowed = sorted(schemes)
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise _refuse(name, value, f"not a URL ({exc})") from None
    if parts.scheme not in allowed:
        raise _refuse(name, value, f"expected a URL starting with one of {', '.join(allowed)}")
    if parts.scheme in {"unix", "sqlite"}:
        if not parts.path:
            raise _refuse(name, value, "expected a path after the scheme")
    elif not parts.hostname:
        raise _refuse(name, value, "expected a host name in the URL")
    return value
