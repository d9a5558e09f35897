"""Run Celery tasks after the current transaction commits, in either mode.

``enqueue_on_commit(task, **kwargs)`` is the one way views start background work
(``enqueue_chord_on_commit`` for a group of tasks gathered by a chord):

* services mode (``REDIS_URL`` set): on commit, ``task.delay(**kwargs)`` sends it to a
  Celery worker through the Redis broker;
* embedded mode (no broker): on commit, ``task.apply(kwargs=kwargs)`` runs the very
  same task function on a small thread pool inside the server process, so the
  request returns at once. With ``PLAYGROUND_TASKS_SYNC`` on (tests) it runs inline
  at commit time and exceptions propagate.

Code that enqueues the run tasks finds them by their registered names (`task_named`): the
tasks call the run executor, so the web layer never imports them back.

Tasks that push progress to WebSocket clients should use ``group_send`` from here: in
embedded mode the in-memory channel layer lives on the server's event loop, and a
worker thread must hand the send to that loop rather than start a loop of its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from importlib import import_module

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import close_old_connections, connections, transaction

logger = logging.getLogger(__name__)

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()
_pending: set[Future] = set()
_pending_lock = threading.Lock()
_server_loop: asyncio.AbstractEventLoop | None = None
_send_loop: tuple[int, asyncio.AbstractEventLoop] | None = None  # (pid, loop): _kept_loop
_send_lock = threading.Lock()

# Registered names: queued messages carry them, so they must not change (they are the names
# the tasks had in scheduler_core/tasks.py before they moved to playground/runs/tasks.py).
RUN_ADVANCE = "scheduler_core.tasks.run_advance"
RUN_RESET = "scheduler_core.tasks.run_reset"
RUN_RECOVER = "scheduler_core.tasks.run_recover"
PING = "scheduler_core.tasks.ping"


def services_mode() -> bool:
    return settings.PLAYGROUND_TASK_MODE == "services"


def task_named(name: str):
    """The task registered as `name`, its module imported on first use (by name: the tasks
    call the run executor, which must not import them back)."""
    from playground.celery import app

    for module in app.conf.include:
        import_module(module)
    return app.tasks[name]


def enqueue_on_commit(task, *, using: str | None = None, **kwargs) -> None:
    """Start ``task`` with keyword arguments ``kwargs`` once the transaction commits.

    Outside a transaction (autocommit) it starts at once. If the transaction rolls
    back, the task never starts.
    """
    if services_mode():
        transaction.on_commit(lambda: task.delay(**kwargs), using=using)
    elif settings.PLAYGROUND_TASKS_SYNC:
        transaction.on_commit(lambda: _run_inline(task, kwargs), using=using)
    else:
        transaction.on_commit(lambda: _submit(task, kwargs), using=using)


def enqueue_chord_on_commit(header: list[tuple[object, dict]], callback: tuple[object, dict],
                            *, using: str | None = None) -> None:
    """Start every (task, kwargs) of ``header`` once the transaction commits, and ``callback``
    when they have all ended (a Celery chord of immutable signatures: the callback takes ids,
    not the header's results).

    services mode: ``chord(group(...))(callback)`` through the broker, the header spread over
    every worker; embedded mode: the header on the thread pool and the callback submitted by
    the thread that ends the last of it; sync (tests): each inline, in order, then the
    callback. The header tasks must not raise (a failed one would stop a Celery chord).
    """
    if services_mode():
        from celery import chord

        def start():
            chord([task.si(**kw) for task, kw in header])(callback[0].si(**callback[1]))
        transaction.on_commit(start, using=using)
    elif settings.PLAYGROUND_TASKS_SYNC:
        transaction.on_commit(lambda: [_run_inline(t, kw) for t, kw in [*header, callback]],
                              using=using)
    else:
        transaction.on_commit(lambda: _submit_chord(header, callback), using=using)


def _submit_chord(header: list[tuple[object, dict]], callback: tuple[object, dict]) -> None:
    """The callback is submitted by the thread that ends the last header task, before that
    task's future completes (so wait_for_embedded_tasks sees it)."""
    left = [len(header)]
    lock = threading.Lock()

    def one_ended() -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            _submit(*callback)

    if not header:
        _submit(*callback)
    for task, kwargs in header:
        _submit(task, kwargs, then=one_ended)


def _run_inline(task, kwargs: dict) -> None:
    task.apply(kwargs=kwargs, throw=True)


def _get_executor() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=settings.PLAYGROUND_TASK_THREADS,
                thread_name_prefix="playground-task",
            )
        return _executor


def _submit(task, kwargs: dict, then=None) -> Future:
    future = _get_executor().submit(_run_in_thread, task, kwargs, then)
    with _pending_lock:
        _pending.add(future)
    future.add_done_callback(_forget)
    return future


def _forget(future: Future) -> None:
    with _pending_lock:
        _pending.discard(future)


def _run_in_thread(task, kwargs: dict, then=None):
    close_old_connections()
    try:
        result = task.apply(kwargs=kwargs)
        if result.failed():
            logger.error(
                "Task %s(%r) failed:\n%s", task.name, kwargs, result.traceback or result.result
            )
        return result
    finally:
        # This thread's own database connections; the next task opens fresh ones.
        connections.close_all()
        if then is not None:
            then()


def wait_for_embedded_tasks(timeout: float | None = None) -> bool:
    """Block until every embedded task submitted so far, and every task those submit (a
    chord's callback), has finished (tests, shutdown).

    Returns False if some were still running when ``timeout`` ran out.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        with _pending_lock:
            futures = list(_pending)
        if not futures:
            return True
        left = None if deadline is None else max(deadline - time.monotonic(), 0)
        _, not_done = wait(futures, timeout=left)
        if not_done:
            return False


# --- Channel layer access from task code ----------------------------------------------


def remember_server_loop(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Record the ASGI server's event loop (called by playground.asgi on each request)."""
    global _server_loop
    _server_loop = loop or asyncio.get_running_loop()


def group_send(group: str, message: dict, *, timeout: float = 10) -> None:
    """Send ``message`` to a channel-layer group from synchronous task code.

    Works in a Celery worker, in an embedded task thread and in plain sync code. In a process
    without a server loop (a Celery worker), sends to a real layer go through one event loop
    the process keeps (_kept_loop), so that they reuse its connections.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _server_loop
    if isinstance(layer, InMemoryChannelLayer) and loop is not None and loop.is_running():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not loop:
            asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop).result(timeout)
            return
    if loop is None and not isinstance(layer, InMemoryChannelLayer):
        # A worker (no server loop here): through the loop it keeps, whose connections stay.
        asyncio.run_coroutine_threadsafe(layer.group_send(group, message),
                                         _kept_loop()).result(timeout)
        return
    async_to_sync(layer.group_send)(group, message)


def _kept_loop() -> asyncio.AbstractEventLoop:
    """This process's own event loop on a thread, started on first use (in each process: a
    forked worker starts its own). channels-redis keeps its connections per event loop, and
    async_to_sync runs each call on a new loop: a worker's every run step opened new Redis
    connections before its frame could go out."""
    global _send_loop
    with _send_lock:
        if _send_loop is None or _send_loop[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="group-send", daemon=True).start()
            _send_loop = (os.getpid(), loop)
        return _send_loop[1]


class RememberServerLoopMiddleware:
    """ASGI middleware: remember the running loop, then pass the connection on."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        remember_server_loop()
        return await self.inner(scope, receive, send)
