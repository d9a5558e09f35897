"""The errors a service raises for input it refuses; the API and the sockets answer them.

`errors` maps a field path to messages (DRF's shape); the status code is the HTTP answer:
`InvalidInput` 400, `QuotaExceeded` 403, `Conflict` 409, `TooLarge` 413.
"""

from django.db import InterfaceError, OperationalError


class ServiceError(Exception):
    """Bad input for a service; `errors` maps a field path to messages (DRF's shape)."""

    status_code = 400

    def __init__(self, errors: dict[str, list[str]] | str, *, field: str = "non_field_errors"):
        self.errors = errors if isinstance(errors, dict) else {field: [errors]}
        super().__init__("; ".join(m for msgs in self.errors.values() for m in msgs))


class InvalidInput(ServiceError):
    status_code = 400


class TooLarge(ServiceError):
    status_code = 413


class QuotaExceeded(ServiceError):
    """Over one of the user's quotas (PLAYGROUND_QUOTA_*), as a ResourceQuota refuses: 403."""

    status_code = 403


class Conflict(ServiceError):
    """The object is in a state that does not allow the request (e.g. a run that is busy)."""

    status_code = 409


def has_nul(text: str) -> bool:
    """Whether the text (or its JSON) holds a NUL character, which PostgreSQL's text and jsonb
    cannot store: the services refuse it as InvalidInput."""
    return "\x00" in text or "\\u0000" in text


# SQLSTATE classes of a connection that went away: 08 (connection exception) and 57P01-03
# (the server terminated it: pg_terminate_backend, a shutdown, a crash recovery).
_CONNECTION_LOST_STATES = ("08", "57P01", "57P02", "57P03")


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a database error (psycopg's, under Django's wrapper), if it has one."""
    while exc is not None:
        code = getattr(exc, "sqlstate", None)
        if code:
            return code
        exc = exc.__cause__
    return None


def connection_lost(exc: BaseException) -> bool:
    """Whether a database error means the connection dropped (retry on a new one), not that
    the statement was refused."""
    if not isinstance(exc, (InterfaceError, OperationalError)):
        return False
    state = sqlstate(exc)
    if state is None:  # psycopg has no SQLSTATE for a socket that closed under it
        return True
    return state.startswith(_CONNECTION_LOST_STATES)
