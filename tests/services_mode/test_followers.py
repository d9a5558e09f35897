"""200 followers of one run over channels-redis, with the layer's capacity reached (issue 29):
the layer drops messages to sockets that are behind, and every follower still ends up with
every cycle, refilled from the store and told so: a gap is seen when the next message comes,
and a dropped last message by the quiet stream's look at the stored cycles."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from playground.asgi import application
from playground.runs.executor import group_name
from playground.runs.models import Run
from tests.helpers import finish_run, new_run
from tests.services_mode.test_runs_services import session_cookie

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

FOLLOWERS = 200
CAPACITY = 5      # messages a socket may have waiting before the layer drops more
CHUNKS = 20       # messages sent at once, each one chunk of the run's cycles


def test_200_followers_past_the_layers_capacity_lose_no_cycle(alice, settings):
    layer_config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    settings.CHANNEL_LAYERS = {"default": {**settings.CHANNEL_LAYERS["default"],
                                           "CONFIG": {**layer_config, "capacity": CAPACITY}}}
    run = new_run(alice)
    cycles = finish_run(run)
    total = len(cycles)
    # The followers join the run at cycle 0, while it runs: under a live lease, as a worker
    # holds it, so that no worker's recovery round (run_recover) takes it over meanwhile.
    Run.objects.filter(pk=run.pk).update(
        cycle_count=0, status=Run.RUNNING, lock_token="followers-test",
        lock_expires=timezone.now() + timedelta(minutes=30))
    cookie = session_cookie(alice)
    bounds = [round(i * total / CHUNKS) for i in range(CHUNKS + 1)]

    async def follow(ws) -> dict:
        got, refills = set(), 0
        while len(got) < total:
            frame = json.loads(await ws.receive_from(timeout=120))
            for event in frame.get("events") or []:
                if event.get("kind") == "cycle":
                    got.add(event["index"])
                refills += event.get("kind") == "refill"
        return {"got": got, "refills": refills}

    async def scenario():
        import channels.layers

        channels.layers.channel_layers.backends.clear()  # the layer with the small capacity
        sockets = []
        for _ in range(FOLLOWERS):
            ws = WebsocketCommunicator(application, f"/ws/runs/{run.pk}/?state=0", headers=[
                (b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)])
            connected, _ = await ws.connect(timeout=60)
            assert connected
            assert json.loads(await ws.receive_from(timeout=60))["type"] == "snapshot"
            sockets.append(ws)
        layer = get_channel_layer()
        # As the executor does: the chunks are committed before their messages go out.
        await sync_to_async(Run.objects.filter(pk=run.pk).update)(cycle_count=total)
        for start, end in zip(bounds, bounds[1:]):  # faster than 200 sockets can take them
            await layer.group_send(group_name(run.pk), {
                "type": "run.events", "run": run.pk, "from": start, "to": end,
                "events": [{"kind": "cycle", **c} for c in cycles[start:end]]})
        results = await asyncio.gather(*(follow(ws) for ws in sockets))
        for ws in sockets:
            await ws.disconnect()
        await layer.close_pools()
        channels.layers.channel_layers.backends.clear()
        return results

    results = asyncio.run(scenario())
    assert all(r["got"] == set(range(total)) for r in results)
    # The capacity was reached (else this test proves nothing), and those who lost messages
    # were told so by a refill event.
    assert sum(1 for r in results if r["refills"]) > 0
