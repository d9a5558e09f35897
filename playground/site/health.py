"""The checks behind /healthz: database, channel layer and task broker."""

from __future__ import annotations

import asyncio
import time
import uuid

import redis.asyncio as aioredis
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection

CHECK_TIMEOUT = 3.0  # seconds, per check


def _error(exc: BaseException) -> str:
    text = str(exc) or "no detail"
    return f"{type(exc).__name__}: {text}"[:300]


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def check_database() -> dict:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row = cursor.fetchone()
        ok = row is not None and row[0] == 1
        result = {"ok": ok, "vendor": connection.vendor}
        if not ok:
            result["error"] = f"SELECT 1 returned {row!r}"
    except Exception as exc:
        result = {"ok": False, "vendor": connection.vendor, "error": _error(exc)}
    result["latency_ms"] = _elapsed_ms(started)
    return result


async def check_channel_layer() -> dict:
    started = time.perf_counter()
    layer = get_channel_layer()
    if layer is None:
        return {"ok": False, "error": "CHANNEL_LAYERS has no default layer"}
    result = {"backend": f"{type(layer).__module__}.{type(layer).__name__}"}
    try:
        channel = await layer.new_channel("healthz.")
        nonce = uuid.uuid4().hex
        await layer.send(channel, {"type": "healthz.ping", "nonce": nonce})
        message = await layer.receive(channel)
        result["ok"] = message.get("nonce") == nonce
        if not result["ok"]:
            result["error"] = "received a different message than was sent"
    except Exception as exc:
        result.update(ok=False, error=_error(exc))
    result["latency_ms"] = _elapsed_ms(started)
    return result


async def check_broker() -> dict:
    if settings.PLAYGROUND_TASK_MODE != "services":
        return {"ok": True, "mode": "embedded", "detail": "tasks run inside the server process"}
    started = time.perf_counter()
    result = {"mode": "services"}
    client = aioredis.from_url(
        settings.CELERY_BROKER_URL,
        socket_connect_timeout=CHECK_TIMEOUT,
        socket_timeout=CHECK_TIMEOUT,
    )
    try:
        result["ok"] = bool(await client.ping())
    except Exception as exc:
        result.update(ok=False, error=_error(exc))
    finally:
        await client.aclose()
    result["latency_ms"] = _elapsed_ms(started)
    return result


async def _bounded(name: str, awaitable) -> dict:
    try:
        return await asyncio.wait_for(awaitable, CHECK_TIMEOUT + 1)
    except TimeoutError:
        return {"ok": False, "error": f"{name} check timed out after {CHECK_TIMEOUT + 1:g}s"}


async def run_checks() -> dict:
    database, channel_layer, broker = await asyncio.gather(
        _bounded("database", sync_to_async(check_database)()),
        _bounded("channel layer", check_channel_layer()),
        _bounded("broker", check_broker()),
    )
    report = {"database": database, "channel_layer": channel_layer, "broker": broker}
    report["ok"] = all(part["ok"] for part in report.values())
    return report
