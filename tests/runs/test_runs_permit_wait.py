"""Runs stepped while pods wait on Permit: a cycle stored open gets its outcome later.

The gang and storage-revert lessons hold pods at Permit across steps; the CycleRecord stored
with the step's chunk has no outcome yet, and the chunk in which the wait ends (here the
timeout) rewrites it: the outcome, the message and the Unreserve entries, as simulate has
them. Embedded mode with tasks run inline at commit.
"""

from __future__ import annotations

import asyncio

import pytest

from playground import tasking
from playground.runs import services as runs
from playground.runs import sessions as run_sessions
from playground.runs.consumer import RunConsumer
from playground.runs.models import CycleRecord
from tests.helpers import new_run, reference

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("fresh_sessions")]



@pytest.fixture
def sent(monkeypatch):
    messages = []
    monkeypatch.setattr(tasking, "group_send", lambda group, m, **kw: messages.append((group, m)))
    return messages


def traces(run):
    return [c.trace for c in CycleRecord.objects.filter(run=run).order_by("index")]


def test_steps_store_waiting_cycles_open_then_finish_them(alice, sent):
    ref = reference("gang-lesson.yaml", seed=1)
    run = new_run(alice, "gang-lesson.yaml", seed=1)
    for _ in range(3):
        runs.run_step(run=run, user=alice, cycles=1)
    run.refresh_from_db()
    # Three workers wait on Permit: stored open, listed as such.
    assert [t["outcome"] for t in traces(run)] == [None] * 3
    assert run.result["open"] == [0, 1, 2]
    cycle_events = [e for _, m in sent for e in m["events"] if e["kind"] == "cycle"]
    assert [(e["index"], e["outcome"]) for e in cycle_events] == [(0, None), (1, None),
                                                                   (2, None)]
    assert cycle_events[0]["points"]["permit"] == [
        {"plugin": "Coscheduling", "code": "Wait", "timeout": 10.0}]

    runs.run_step(run=run, user=alice, cycles=1)  # worker-3 fits nowhere, at t=0
    runs.run_step(run=run, user=alice, cycles=1)  # t=10: the timeouts, then worker-3 again
    run.refresh_from_db()
    stored = traces(run)
    assert stored[:4] == ref["cycles"][:4]
    assert [r.outcome for r in CycleRecord.objects.filter(run=run, index__lt=3)] == [
        "Rejected"] * 3
    assert run.result["open"] == [4]
    last = sent[-1][1]
    late = [e for e in last["events"] if e.get("late")]
    assert [(e["index"], e["outcome"]) for e in late] == [(0, "Rejected"), (1, "Rejected"),
                                                          (2, "Rejected")]
    assert [u["plugin"] for u in late[0]["points"]["unreserve"]] == [
        "Coscheduling", "DynamicResources", "VolumeBinding"]
    assert {c["index"] for c in run.result["recent"] if c.get("late")} == {0, 1, 2}

    # To the end of its first 8 cycles, step by step: every stored trace is simulate's.
    for _ in range(3):
        runs.run_step(run=run, user=alice, cycles=1)
    assert traces(run)[:4] == ref["cycles"][:4]


def test_a_new_worker_finishes_the_cycles_it_replays_open(alice):
    ref = reference("storage-revert-lesson.yaml", seed=1)
    run = new_run(alice, "storage-revert-lesson.yaml", seed=1)
    runs.run_step(run=run, user=alice, cycles=2)
    run.refresh_from_db()
    assert run.result["open"] == [0]
    run_sessions.sessions.clear()  # another worker process takes the next step
    runs.run_step(run=run, user=alice, cycles=1)
    run.refresh_from_db()
    first = CycleRecord.objects.get(run=run, index=0)
    assert first.trace == ref["cycles"][0]
    assert first.outcome == "Rejected"
    assert first.trace["unreserve"][-1]["detail"]["reverted"] == [
        {"kind": "PersistentVolume", "name": "local-1", "claim": "default/data-a"}]
    assert run.result["open"] == [2]


def test_a_run_to_the_end_in_one_go_still_matches_simulate(alice):
    ref = reference("gang-lesson-fits.yaml", seed=1)
    run = new_run(alice, "gang-lesson-fits.yaml", seed=1)
    runs.run_start(run=run, user=alice)
    run.refresh_from_db()
    assert traces(run) == ref["cycles"]
    assert "open" not in run.result


def test_the_consumer_passes_late_cycles_through():
    consumer = RunConsumer.__new__(RunConsumer)
    added = []

    class Batcher:
        def add(self, events):
            added.extend(events)

    consumer.batcher = Batcher()
    consumer.cycle_mark = 5
    consumer._kick = lambda: None

    async def allowed():  # the access recheck has its own tests; this one is about late cycles
        return True

    consumer.still_allowed = allowed
    asyncio.run(consumer.run_events({"from": 5, "to": 6, "events": [
        {"kind": "cycle", "index": 1, "late": True}, {"kind": "cycle", "index": 2},
        {"kind": "cycle", "index": 5}]}))
    assert [e["index"] for e in added] == [1, 5]
