"""The run stream /ws/runs/<id>/: who may connect, the snapshot, live batches, controls."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.auth import AuthMiddlewareStack
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import path

from playground.asgi import application
from playground.frames import FRAME_LIMIT
from playground.runs import executor as run_executor
from playground.runs import services as runs
from playground.runs import sessions as run_sessions
from playground.runs.consumer import RunConsumer
from playground.runs.models import CycleRecord, Run
from playground.runs.state import SNAPSHOT_MAX_NODES
from tests.helpers import big_cluster_yaml, finish_run, new_run, reference

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 30


@pytest.fixture(autouse=True)
def _embedded(embedded_mode):
    run_sessions.sessions.clear()
    yield
    run_sessions.sessions.clear()


@pytest.fixture
def ref():
    return reference("gpu-cluster.yaml", seed=3)


def headers(user=None) -> list[tuple[bytes, bytes]]:
    out = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if user is not None:
        client = Client()
        client.force_login(user)
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        out.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={session}".encode()))
    return out


class Socket:
    """A WebsocketCommunicator that keeps every frame it received, with its size."""

    def __init__(self, run_id, hdrs, app=application, query=""):
        self.ws = WebsocketCommunicator(app, f"/ws/runs/{run_id}/{query}", headers=hdrs)
        self.frames: list[dict] = []
        self.sizes: list[int] = []

    async def connect(self):
        return await self.ws.connect(timeout=TIMEOUT)

    async def send(self, message: dict):
        await self.ws.send_json_to(message)

    async def next(self) -> dict:
        text = await self.ws.receive_from(timeout=TIMEOUT)
        frame = json.loads(text)
        self.frames.append(frame)
        self.sizes.append(len(text.encode()))
        return frame

    async def until(self, predicate) -> dict:
        while True:
            frame = await self.next()
            if predicate(frame):
                return frame

    async def snapshot(self) -> dict:
        """A snapshot frame with its parts merged in."""
        head = await self.until(lambda f: f["type"] == "snapshot")
        for _ in range(head["parts"]):
            part = await self.next()
            assert part["type"] == "snapshot_part"
            holder = head
            for key in part["path"][:-1]:
                holder = holder[key]
            target = holder[part["path"][-1]]
            if isinstance(target, dict):
                target.update(part["items"])
            else:
                target.extend(part["items"])
        return head

    async def close(self):
        await self.ws.disconnect()


def events(frames, kind=None):
    out = [e for f in frames if f["type"] == "batch" for e in f["events"]]
    return [e for e in out if kind is None or e["kind"] == kind]


def run_scenario(scenario):
    return async_to_sync(scenario)()


# --- who may connect ----------------------------------------------------------------------


def test_the_owner_connects_and_gets_a_snapshot(alice):
    run = new_run(alice)

    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice)
        connected, _ = await sock.connect()
        assert connected
        snap = await sock.snapshot()
        await sock.close()
        return snap

    snap = run_scenario(scenario)
    assert snap["seq"] == 1
    assert snap["run"]["id"] == run.pk
    assert snap["run"]["status"] == Run.CREATED
    assert snap["run"]["canControl"] is True
    assert snap["state"]["cycles"] == 0
    assert snap["state"]["nodeCount"] == 15 == len(snap["state"]["nodes"])
    assert len(snap["state"]["queues"]["activeQ"]) == 20
    assert snap["cycles"] == []


@pytest.mark.parametrize("who", ["another user", "anonymous"])
def test_users_who_cannot_see_the_run_are_refused_at_the_handshake(alice, bob, who):
    run = new_run(alice)
    user = bob if who == "another user" else None

    h_user = headers(user)

    async def scenario():
        sock = Socket(run.pk, h_user)
        connected, code = await sock.connect()
        return connected, code

    assert run_scenario(scenario) == (False, 4403)


def test_a_missing_run_is_refused(alice):
    h_alice = headers(alice)

    async def scenario():
        return await Socket(987654, h_alice).connect()

    assert run_scenario(scenario)[0] is False


def test_a_viewer_of_a_shared_cluster_may_watch_but_not_drive(alice, bob, ref):
    run = new_run(alice, shared=True)
    runs.run_step(run=run, user=alice, cycles=2)

    h_bob = headers(bob)

    async def scenario():
        sock = Socket(run.pk, h_bob)
        connected, _ = await sock.connect()
        assert connected
        snap = await sock.snapshot()
        replies = []
        for action in ("step", "run", "pause", "reset"):
            await sock.send({"action": action, "cycles": 3})
            replies.append(await sock.next())
        await sock.send({"action": "cycle_detail", "index": 1})
        detail = await sock.next()
        await sock.close()
        return snap, replies, detail

    snap, replies, detail = run_scenario(scenario)
    assert snap["run"]["canControl"] is False
    assert [(r["type"], r["code"]) for r in replies] == [("error", "forbidden")] * 4
    assert detail == {"type": "cycle_detail", "seq": detail["seq"], "cycle": ref["cycles"][1]}
    run.refresh_from_db()
    assert run.cycle_count == 2


# --- snapshot and live frames -------------------------------------------------------------


def test_a_run_the_engine_cannot_rebuild_still_gets_a_snapshot(alice, monkeypatch):
    run = new_run(alice)

    def broken(run):
        raise RuntimeError("cannot rebuild")

    monkeypatch.setattr(run_sessions, "new_session", broken)
    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice)
        assert (await sock.connect())[0]
        snap = await sock.snapshot()
        await sock.close()
        return snap

    snap = run_scenario(scenario)
    assert snap["run"]["id"] == run.pk
    assert (snap["state"], snap["stateError"]) == (None, "RuntimeError: cannot rebuild")


def test_a_late_joiner_gets_the_state_and_the_last_cycles(alice, ref):
    run = new_run(alice)
    runs.run_start(run=run, user=alice)

    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice)
        await sock.connect()
        snap = await sock.snapshot()
        await sock.close()
        return snap

    snap = run_scenario(scenario)
    n = len(ref["cycles"])
    assert snap["run"]["status"] == Run.FINISHED
    assert snap["run"]["cycle_count"] == n == snap["state"]["cycles"]
    assert snap["state"]["finished"] is True
    assert snap["state"]["bindings"] == ref["bindings"]
    assert [c["index"] for c in snap["cycles"]] == list(range(max(0, n - 20), n))
    assert [(c["pod"], c["node"]) for c in snap["cycles"]] == [
        (c["pod"], c["node"]) for c in ref["cycles"][-20:]]


def test_controls_over_the_socket(alice, ref, monkeypatch):
    monkeypatch.setattr(run_executor, "CHUNK_CYCLES", 2)
    run = new_run(alice)
    n = len(ref["cycles"])

    def progress_is(status):
        return lambda f: f["type"] == "batch" and any(
            e["kind"] == "progress" and e["status"] == status for e in f["events"])

    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice)
        await sock.connect()
        await sock.snapshot()
        await sock.send({"action": "step", "cycles": 3})
        await sock.until(progress_is(Run.PAUSED))
        await sock.send({"action": "cycle_detail", "index": 2})
        detail = await sock.until(lambda f: f["type"] == "cycle_detail")
        await sock.send({"action": "cycle_detail", "index": 999})
        missing = await sock.until(lambda f: f["type"] == "error")
        await sock.send({"action": "run"})
        await sock.until(progress_is(Run.FINISHED))
        await sock.send({"action": "step"})
        finished = await sock.until(lambda f: f["type"] == "error")
        await sock.send({"action": "reset"})
        again = await sock.snapshot()
        await sock.send({"action": "pause"})
        paused = await sock.until(lambda f: f["type"] == "ack" and f["action"] == "pause")
        await sock.send({"action": "dance"})
        unknown = await sock.until(lambda f: f["type"] == "error")
        await sock.ws.send_to(text_data="not json")
        garbage = await sock.until(lambda f: f["type"] == "error")
        await sock.close()
        return sock.frames, detail, missing, finished, again, paused, unknown, garbage

    frames, detail, missing, finished, again, paused, unknown, garbage = run_scenario(scenario)
    seqs = [f["seq"] for f in frames]
    assert seqs == list(range(1, len(frames) + 1))
    cycles = [e for e in events(frames, "cycle")]
    assert [c["index"] for c in cycles] == list(range(n))
    assert [(c["pod"], c["outcome"], c["node"]) for c in cycles] == [
        (c["pod"], c["outcome"], c["node"]) for c in ref["cycles"]]
    acks = [f for f in frames if f["type"] == "ack"]
    assert [a["action"] for a in acks] == ["step", "run", "reset", "pause"]
    assert detail["cycle"] == ref["cycles"][2]
    assert (missing["code"], missing["index"]) == ("not_found", 999)
    assert (finished["action"], finished["code"]) == ("step", "conflict")
    assert again["run"]["cycle_count"] == 0 and again["cycles"] == []
    assert paused["run"]["status"] == Run.CREATED
    assert unknown["code"] == garbage["code"] == "invalid"
    assert CycleRecord.objects.filter(run=run).count() == 0


def test_a_page_reading_the_state_over_http_gets_snapshots_without_it_and_its_steps_traces(
        alice, ref):
    run = new_run(alice)
    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice, query="?state=0")
        await sock.connect()
        first = await sock.snapshot()
        await sock.send({"action": "step", "cycles": 1, "detail": True})
        pushed = await sock.until(lambda f: f["type"] == "cycle_detail")
        await sock.send({"action": "step", "cycles": 1})
        await sock.until(lambda f: f["type"] == "batch" and any(
            e["kind"] == "cycle" and e["index"] == 1 for e in f["events"]))
        await sock.send({"action": "reset"})
        again = await sock.snapshot()
        await sock.close()
        return first, pushed, again, sock.frames

    first, pushed, again, frames = run_scenario(scenario)
    assert "state" not in first and "state" not in again
    assert first["run"]["cycle_count"] == 0 and again["run"]["cycle_count"] == 0
    # The stepped cycle's trace came unasked, after the batch with its summary; the step
    # without `detail` brought none.
    assert pushed["cycle"] == ref["cycles"][0]
    assert [f["cycle"]["index"] for f in frames if f["type"] == "cycle_detail"] == [0]
    summary = next(f["seq"] for f in frames if f["type"] == "batch" and any(
        e["kind"] == "cycle" and e["index"] == 0 for e in f["events"]))
    assert summary < pushed["seq"]


def test_a_busy_run_answers_with_an_error_frame(alice, monkeypatch):
    run = new_run(alice)
    from playground import tasking
    monkeypatch.setattr(tasking, "enqueue_on_commit", lambda task, **kwargs: None)
    runs.run_start(run=run, user=alice)  # its task never runs: the run stays locked

    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice)
        await sock.connect()
        snap = await sock.snapshot()
        await sock.send({"action": "step"})
        error = await sock.until(lambda f: f["type"] == "error")
        await sock.close()
        return snap, error

    snap, error = run_scenario(scenario)
    assert snap["run"]["busy"] is True
    assert (error["action"], error["code"], error["message"]) == ("step", "busy", "run is busy")


@pytest.fixture
def behind(alice):
    """A finished run (more than 14 cycles) whose stored count says 5, as if its client had
    seen only the first 5 cycles: (run, its cycles, the owner's headers)."""
    run = new_run(alice)
    cycles = finish_run(run)
    assert len(cycles) > 14
    Run.objects.filter(pk=run.pk).update(cycle_count=5)
    return run, cycles, headers(alice)


async def send_events(run_id, start, to, events=()):
    """A run.events message to the run's group, as the executor sends one."""
    await get_channel_layer().group_send(run_executor.group_name(run_id), {
        "type": "run.events", "run": run_id, "from": start, "to": to, "events": list(events)})


async def connected(run_id, hdrs) -> Socket:
    """A socket the handshake accepted, past its first snapshot."""
    sock = Socket(run_id, hdrs)
    assert (await sock.connect())[0]
    await sock.snapshot()
    return sock


async def refilled(sock, run_id) -> tuple[dict, dict]:
    """Sends a message that starts past what the client has (cycles 12 to 14: the ones before
    went missing) and returns the refill batch and the snapshot that follows it."""
    await send_events(run_id, 12, 14)
    return await sock.next(), await sock.snapshot()


def test_missed_messages_are_refilled_from_the_store_then_a_fresh_snapshot(behind):
    run, cycles, hdrs = behind

    async def scenario():
        sock = await connected(run.pk, hdrs)
        refill, snap = await refilled(sock, run.pk)
        # One the client already has is dropped; the next is delivered.
        for start in (0, 5):
            await send_events(run.pk, start, start,
                              [{"kind": "progress", "cycles": start, "status": "running"}])
        batch = await sock.next()
        await sock.close()
        return refill, snap, batch

    refill, snap, batch = run_scenario(scenario)
    assert refill["type"] == "batch" and refill["seq"] == 2
    assert refill["events"][0] == {"kind": "refill", "from": 5, "to": 14, "refilled": 9}
    got = [(e["index"], e["pod"], e["outcome"], e["node"]) for e in refill["events"][1:]]
    assert got == [(c["index"], c["pod"], c["outcome"], c["node"]) for c in cycles[5:14]]
    assert all(e["kind"] == "cycle" and e["refilled"] for e in refill["events"][1:])
    assert snap["seq"] == 3
    assert batch["type"] == "batch"
    assert batch["events"] == [{"kind": "progress", "cycles": 5, "status": "running"}]


def test_a_refill_reaches_the_snapshot_that_follows_it(behind):
    """A run that went on while its gap was seen: the cycles between the message's end and the
    snapshot's count are sent too (the snapshot lists only the last few)."""
    run, cycles, hdrs = behind
    total = len(cycles)

    async def scenario():
        sock = await connected(run.pk, hdrs)
        await sync_to_async(Run.objects.filter(pk=run.pk).update)(cycle_count=total)
        refill, snap = await refilled(sock, run.pk)
        await sock.close()
        return refill, snap

    refill, snap = run_scenario(scenario)
    assert refill["events"][0] == {"kind": "refill", "from": 5, "to": total,
                                   "refilled": total - 5}
    assert [e["index"] for e in refill["events"][1:]] == list(range(5, total))
    assert snap["run"]["cycle_count"] == total


# --- size and rate at 5,000 nodes -----------------------------------------------------------


class FakeClock:
    """The throttle's time: it moves only when the consumer sleeps."""

    def __init__(self):
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


def test_frames_stay_small_and_at_most_20_a_second_at_5000_nodes(alice, monkeypatch):
    monkeypatch.setattr(run_executor, "CHUNK_CYCLES", 1)  # as many messages as cycles
    run = new_run(alice, "big.yaml", text=big_cluster_yaml(5000, 40), seed=1)
    fake = FakeClock()
    sent_at = []

    class Throttled(RunConsumer):
        clock = staticmethod(fake.clock)
        sleep = staticmethod(fake.sleep)

        async def send_frame(self, frame):
            sent_at.append((fake.now, frame["type"]))
            await super().send_frame(frame)

    app = AuthMiddlewareStack(URLRouter([path("ws/runs/<int:pk>/", Throttled.as_asgi())]))

    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice, app=app)
        await sock.connect()
        snap = await sock.snapshot()
        await sock.send({"action": "step", "cycles": 12})
        await sock.until(lambda f: f["type"] == "batch" and any(
            e["kind"] == "progress" and e["status"] == Run.PAUSED for e in f["events"]))
        await sock.close()
        return snap, sock.frames, sock.sizes

    snap, frames, sizes = run_scenario(scenario)
    assert snap["state"]["nodeCount"] == 5000
    assert len(snap["state"]["nodes"]) == SNAPSHOT_MAX_NODES
    assert snap["parts"] >= 1
    assert max(sizes) < FRAME_LIMIT < 64 * 1024
    assert [e["index"] for e in events(frames, "cycle")] == list(range(12))
    batch_times = [t for t, kind in sent_at if kind == "batch"]
    assert len(batch_times) >= 2
    gaps = [b - a for a, b in zip(batch_times, batch_times[1:])]
    assert min(gaps) >= 1 / 20 - 1e-9
    elapsed = batch_times[-1] - batch_times[0]
    assert (len(batch_times) - 1) / elapsed <= 20 + 1e-6


def test_messages_that_are_not_a_json_object_or_out_of_range_get_errors_saying_why(alice):
    run = new_run(alice)
    h_alice = headers(alice)

    async def scenario():
        sock = Socket(run.pk, h_alice)
        await sock.connect()
        await sock.snapshot()
        errors = []
        for text in ("not json", "[1, 2]", "[" * 200 + "]" * 200):
            await sock.ws.send_to(text_data=text)
            errors.append(await sock.until(lambda f: f["type"] == "error"))
        await sock.ws.send_to(bytes_data=b"\x00\x01")
        errors.append(await sock.until(lambda f: f["type"] == "error"))
        await sock.send({"action": "step", "cycles": 10**12})
        errors.append(await sock.until(lambda f: f["type"] == "error"))
        await sock.close()
        return errors

    errors = run_scenario(scenario)
    assert all(e["code"] == "invalid" for e in errors)
    messages = [e["message"] for e in errors]
    assert messages[0].startswith("message: cannot parse")
    assert messages[1] == 'message: a JSON object with an "action" is expected'
    assert "nest" in messages[2]
    assert messages[3].startswith("binary messages are not accepted")
    assert "1 to 1,000,000" in messages[4]
    assert Run.objects.get(pk=run.pk).cycle_count == 0
