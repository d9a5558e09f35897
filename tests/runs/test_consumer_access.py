"""The run stream rechecks access on every group event and every client message: a watcher
whose access is withdrawn (the cluster unshared, the run deleted) gets a close frame with the
reason and nothing more."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from playground.clusters.models import Cluster
from playground.runs import executor as run_executor
from playground.runs.consumer import ACCESS_WITHDRAWN, CLOSE_REFUSED
from playground.runs.models import Run
from tests.helpers import make_user, new_run
from tests.runs.test_consumer_runs import TIMEOUT, Socket, headers

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("fresh_sessions")]



def _unshare(run):
    Cluster.objects.filter(pk=run.cluster_id).update(shared=False)


async def _watching(run, h) -> Socket:
    """A socket on the run, connected and past its first snapshot."""
    sock = Socket(run.pk, h)
    await sock.connect()
    await sock.snapshot()
    return sock


async def _closed_with(sock) -> dict:
    """The next output after any frames already queued: must be the close."""
    while True:
        message = await sock.ws.receive_output(timeout=TIMEOUT)
        if message["type"] == "websocket.close":
            return message


def test_a_group_event_after_unsharing_closes_with_the_reason():
    alice, bob = make_user("alice"), make_user("bob")
    run = new_run(alice, shared=True)
    h_bob = headers(bob)

    async def scenario():
        sock = Socket(run.pk, h_bob)
        connected, _ = await sock.connect()
        assert connected
        await sock.snapshot()
        await database_sync_to_async(_unshare)(run)
        await get_channel_layer().group_send(run_executor.group_name(run.pk), {
            "type": "run.events", "run": run.pk, "from": 0, "to": 1,
            "events": [{"kind": "progress", "cycles": 1, "status": "running"}]})
        closed = await _closed_with(sock)
        nothing = await sock.ws.receive_nothing(timeout=0.5)
        return closed, nothing

    closed, nothing = async_to_sync(scenario)()
    assert closed == {"type": "websocket.close", "code": CLOSE_REFUSED,
                      "reason": ACCESS_WITHDRAWN}
    assert nothing


@pytest.mark.parametrize("message", [
    {"action": "cycle_detail", "index": 0},
    # A control checks the access on its own trip to the database, not before it.
    {"action": "step", "cycles": 1, "detail": True},
    {"action": "pause"},
], ids=["a request", "a step", "a pause"])
def test_a_message_after_unsharing_closes_with_the_reason(message):
    alice, bob = make_user("alice"), make_user("bob")
    run = new_run(alice, shared=True)
    h_bob = headers(bob)

    async def scenario():
        sock = await _watching(run, h_bob)
        await database_sync_to_async(_unshare)(run)
        await sock.send(message)
        return await _closed_with(sock)

    closed = async_to_sync(scenario)()
    assert closed["code"] == CLOSE_REFUSED and closed["reason"] == ACCESS_WITHDRAWN


def test_a_step_on_a_deleted_run_closes_with_the_reason():
    alice = make_user("alice")
    run = new_run(alice)
    h_alice = headers(alice)

    async def scenario():
        sock = await _watching(run, h_alice)
        await database_sync_to_async(Run.objects.filter(pk=run.pk).delete)()
        await sock.send({"action": "step", "cycles": 1})
        return await _closed_with(sock)

    closed = async_to_sync(scenario)()
    assert closed["code"] == CLOSE_REFUSED and closed["reason"] == ACCESS_WITHDRAWN


def test_the_owner_keeps_watching_after_unsharing():
    alice = make_user("alice")
    run = new_run(alice, shared=True)
    h_alice = headers(alice)

    async def scenario():
        sock = await _watching(run, h_alice)
        await database_sync_to_async(_unshare)(run)
        await get_channel_layer().group_send(run_executor.group_name(run.pk), {
            "type": "run.events", "run": run.pk, "from": 0, "to": 0,
            "events": [{"kind": "progress", "cycles": 0, "status": "created"}]})
        batch = await sock.next()
        await sock.close()
        return batch

    assert async_to_sync(scenario)()["type"] == "batch"


def test_a_deeply_nested_message_is_an_invalid_action_not_a_crash():
    alice = make_user("alice")
    run = new_run(alice)
    h_alice = headers(alice)

    async def scenario():
        sock = await _watching(run, h_alice)
        await sock.ws.send_to(text_data="[" * 100_000 + "]" * 100_000)
        reply = await sock.next()
        await sock.close()
        return reply

    reply = async_to_sync(scenario)()
    assert (reply["type"], reply["code"]) == ("error", "invalid")
