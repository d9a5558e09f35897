"""playground.tasking: tasks start after commit, in-process (embedded) or via Celery."""

import asyncio
import threading
import uuid
from unittest import mock

import pytest
from celery import shared_task
from channels.layers import get_channel_layer
from django.db import transaction

from playground import tasking
from playground.runs import tasks
from playground.runs.tasks import ping

calls = []
release = threading.Event()


@shared_task
def record(value):
    calls.append((value, threading.current_thread().name))
    return value


@shared_task
def wait_then_record(value):
    assert release.wait(10), "the test never released the task"
    calls.append((value, threading.current_thread().name))
    return value


@shared_task
def explode():
    raise RuntimeError("boom")


@pytest.fixture(autouse=True)
def _reset():
    calls.clear()
    release.clear()
    yield
    release.set()
    assert tasking.wait_for_embedded_tasks(timeout=10)


def test_ping_returns_its_value():
    assert ping.apply(kwargs={"value": "hello"}).get() == "hello"
    assert ping.name == "scheduler_core.tasks.ping"


def test_the_run_tasks_are_found_by_the_names_queued_messages_carry():
    advance = tasking.task_named(tasking.RUN_ADVANCE)
    reset = tasking.task_named(tasking.RUN_RESET)
    assert (advance, reset) == (tasks.run_advance, tasks.run_reset)
    assert (advance.name, reset.name, tasks.run_recover.name) == (
        "scheduler_core.tasks.run_advance", "scheduler_core.tasks.run_reset",
        "scheduler_core.tasks.run_recover")


@pytest.mark.django_db
def test_it_runs_the_task_after_commit(embedded_mode, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        tasking.enqueue_on_commit(record, value=1)
        assert calls == []  # not before the commit
    assert [value for value, _ in calls] == [1]


@pytest.mark.django_db(transaction=True)
def test_it_never_runs_the_task_when_the_transaction_rolls_back(embedded_mode):
    with pytest.raises(RuntimeError), transaction.atomic():
        tasking.enqueue_on_commit(record, value=2)
        raise RuntimeError("roll back")
    assert calls == []


@pytest.mark.django_db(transaction=True)
def test_it_runs_at_once_outside_a_transaction(embedded_mode):
    tasking.enqueue_on_commit(record, value=3)
    assert [value for value, _ in calls] == [3]


@pytest.mark.django_db(transaction=True)
def test_sync_mode_propagates_task_errors(embedded_mode):
    with pytest.raises(RuntimeError, match="boom"):
        tasking.enqueue_on_commit(explode)


@pytest.mark.django_db(transaction=True)
def test_embedded_mode_runs_on_a_worker_thread_without_blocking(embedded_mode):
    embedded_mode.PLAYGROUND_TASKS_SYNC = False
    with transaction.atomic():
        tasking.enqueue_on_commit(wait_then_record, value=4)
    # The commit has happened and enqueue returned while the task is still waiting.
    assert calls == []
    release.set()
    assert tasking.wait_for_embedded_tasks(timeout=10)
    assert len(calls) == 1
    value, thread_name = calls[0]
    assert value == 4
    assert thread_name.startswith("playground-task")
    assert thread_name != threading.current_thread().name


@pytest.mark.django_db(transaction=True)
def test_embedded_mode_logs_a_failing_task(embedded_mode, caplog):
    embedded_mode.PLAYGROUND_TASKS_SYNC = False
    tasking.enqueue_on_commit(explode)
    assert tasking.wait_for_embedded_tasks(timeout=10)
    assert "tests.test_tasking.explode" in caplog.text
    assert "boom" in caplog.text


@pytest.mark.django_db
def test_services_mode_calls_delay_after_commit(settings, django_capture_on_commit_callbacks):
    settings.PLAYGROUND_TASK_MODE = "services"
    task = mock.Mock()
    with django_capture_on_commit_callbacks(execute=True):
        tasking.enqueue_on_commit(task, run_id=7, cycles=3)
        task.delay.assert_not_called()
    task.delay.assert_called_once_with(run_id=7, cycles=3)
    task.apply.assert_not_called()


def test_group_send_from_a_task_thread_reaches_the_server_loop(embedded_mode, monkeypatch):
    """Embedded tasks run on threads; their WebSocket pushes must reach the server loop."""
    monkeypatch.setattr(tasking, "_server_loop", None)
    group = f"test-{uuid.uuid4().hex}"

    async def scenario():
        tasking.remember_server_loop()
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        receiving = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0)  # the receiver is now waiting on this loop
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(
            None, tasking.group_send, group, {"type": "run.progress", "cycle": 5}
        )
        return await asyncio.wait_for(receiving, 5)

    message = asyncio.run(scenario())
    assert message == {"type": "run.progress", "cycle": 5}


@pytest.mark.django_db(transaction=True)
def test_an_embedded_chord_runs_its_callback_after_every_header_task(embedded_mode):
    embedded_mode.PLAYGROUND_TASKS_SYNC = False
    with transaction.atomic():
        tasking.enqueue_chord_on_commit(
            [(wait_then_record, {"value": 1}), (wait_then_record, {"value": 2})],
            (record, {"value": "last"}))
    assert calls == []
    release.set()
    assert tasking.wait_for_embedded_tasks(timeout=10)
    assert sorted(str(v) for v, _ in calls[:2]) == ["1", "2"]
    assert calls[2][0] == "last"
    assert all(name.startswith("playground-task") for _, name in calls)


@pytest.mark.django_db(transaction=True)
def test_a_sync_chord_runs_its_header_in_order_then_its_callback(embedded_mode):
    tasking.enqueue_chord_on_commit([(record, {"value": 1}), (record, {"value": 2})],
                                    (record, {"value": "last"}))
    assert [v for v, _ in calls] == [1, 2, "last"]


@pytest.mark.django_db
def test_services_mode_sends_a_celery_chord_of_immutable_signatures(
        settings, django_capture_on_commit_callbacks):
    settings.PLAYGROUND_TASK_MODE = "services"
    header, callback = mock.Mock(), mock.Mock()
    with mock.patch("celery.chord") as chord, django_capture_on_commit_callbacks(execute=True):
        tasking.enqueue_chord_on_commit([(header, {"variant_id": 1}), (header, {"variant_id": 2})],
                                        (callback, {"sweep_id": 9}))
        chord.assert_not_called()
    header.si.assert_has_calls([mock.call(variant_id=1), mock.call(variant_id=2)])
    chord.assert_called_once_with([header.si.return_value, header.si.return_value])
    chord.return_value.assert_called_once_with(callback.si.return_value)
    callback.si.assert_called_once_with(sweep_id=9)


def test_a_worker_sends_every_group_message_through_one_kept_loop(monkeypatch):
    """channels-redis keeps its connections per event loop: a process without a server loop
    (a Celery worker) sends through one loop it keeps, not a new one per message."""
    monkeypatch.setattr(tasking, "_server_loop", None)
    sent = []

    class Layer:
        async def group_send(self, group, message):
            sent.append((group, message, asyncio.get_running_loop()))

    monkeypatch.setattr(tasking, "get_channel_layer", Layer)
    tasking.group_send("run_1", {"n": 1})
    tasking.group_send("run_1", {"n": 2})
    assert [(g, m) for g, m, _ in sent] == [("run_1", {"n": 1}), ("run_1", {"n": 2})]
    assert sent[0][2] is sent[1][2] and sent[0][2].is_running()
