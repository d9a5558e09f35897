"""The stream's throttle and frame cutting (playground.consumers), on a clock the test drives."""

from __future__ import annotations

import json

from playground.frames import FRAME_LIMIT, FrameBatcher, dumps, snapshot_frames


def cycle(i: int, size: int = 1000) -> dict:
    return {"kind": "cycle", "index": i, "pod": f"default/p-{i}", "message": "x" * size}


def frame_size(events) -> int:
    return len(dumps({"type": "batch", "seq": 10**9, "events": events}))


def test_no_more_than_max_rate_frames_a_second_whatever_comes_in():
    batcher = FrameBatcher(max_rate=20)
    now, sent, index = 0.0, [], 0
    while now < 3.0:  # three seconds of a producer far faster than the client may be fed
        batcher.add(cycle(i) for i in range(index, index + 30))
        index += 30
        events = batcher.take(now)
        if events is not None:
            sent.append((now, events))
        now = round(now + 0.002, 6)
    times = [t for t, _ in sent]
    assert all(b - a >= 0.05 - 1e-9 for a, b in zip(times, times[1:]))
    for second in range(3):
        assert sum(1 for t in times if second <= t < second + 1) <= 20
    assert all(frame_size(events) < FRAME_LIMIT for _, events in sent)
    # What went out came in order, none twice; what was shed is counted.
    out = [e for _, events in sent for e in events]
    indexes = [e["index"] for e in out if e["kind"] == "cycle"]
    assert indexes == sorted(set(indexes))
    dropped = sum(e["events"] for e in out if e["kind"] == "dropped")
    assert dropped > 0
    assert indexes[-1] + 1 - len(indexes) <= dropped


def test_delay_says_when_the_next_frame_may_go():
    batcher = FrameBatcher(max_rate=20)
    assert batcher.delay(0.0) is None  # nothing to send
    batcher.add([cycle(0)])
    assert batcher.delay(5.0) == 0.0
    assert [e["index"] for e in batcher.take(5.0)] == [0]
    batcher.add([cycle(1)])
    assert abs(batcher.delay(5.01) - 0.04) < 1e-9
    assert batcher.take(5.01) is None
    assert [e["index"] for e in batcher.take(5.05)] == [1]
    assert batcher.delay(5.05) is None


def test_an_event_too_large_for_a_frame_is_cut_down():
    batcher = FrameBatcher()
    batcher.add([{"kind": "cycle", "index": 3, "pod": "default/a", "outcome": "Unschedulable",
                  "message": "m" * (2 * FRAME_LIMIT), "points": {"filter": [1] * 50000}}])
    [event] = batcher.take(0.0)
    assert event["truncated"] is True
    assert (event["index"], event["pod"], event["outcome"]) == (3, "default/a", "Unschedulable")
    assert frame_size([event]) < FRAME_LIMIT


def test_a_client_that_cannot_keep_up_loses_queue_moves_first_then_the_oldest_events():
    batcher = FrameBatcher(max_backlog=200_000)
    batcher.add({"kind": "queue", "pod": f"default/q-{i}", "queue": "activeQ"} for i in range(50))
    batcher.add(cycle(i) for i in range(300))
    batcher.add([{"kind": "progress", "cycles": 300}])
    sent = []
    now = 0.0
    while (events := batcher.take(now)) is not None or batcher.delay(now) is not None:
        sent.extend(events or [])
        now += 0.05
    kinds = {e["kind"] for e in sent}
    assert "queue" not in kinds
    assert sent[0]["kind"] == "dropped" and sent[0]["events"] > 50
    assert sent[-1] == {"kind": "progress", "cycles": 300}
    kept = [e["index"] for e in sent if e["kind"] == "cycle"]
    assert kept == list(range(300 - len(kept), 300))
    assert sent[0]["events"] == 50 + 300 - len(kept)


def test_a_large_snapshot_comes_in_parts_that_add_up_to_it():
    nodes = [{"name": f"node-{i}", "resources": {"cpu": [0, 8000]},
              "pods": [{"pod": f"default/p-{i}-{j}", "terminating": False} for j in range(10)]}
             for i in range(600)]
    snap = {"run": {"id": 1, "cycles": 0}, "cycles": [cycle(i, 300) for i in range(20)],
            "state": {"time": 0.0, "cycles": 0, "finished": False, "nodes": nodes,
                      "nodeCount": 5000,
                      "queues": {"activeQ": [{"pod": f"default/w-{i}", "priority": 0}
                                             for i in range(3000)], "backoffQ": []},
                      "bindings": {f"default/w-{i}": None for i in range(3000)}}}
    frames = snapshot_frames(snap)
    head, parts = frames[0], frames[1:]
    assert head["type"] == "snapshot" and head["parts"] == len(parts) > 3
    assert all(len(dumps({**f, "seq": 10**9})) < FRAME_LIMIT for f in frames)
    merged = json.loads(dumps(head))
    for part in parts:
        holder = merged
        for key in part["path"][:-1]:
            holder = holder[key]
        target = holder[part["path"][-1]]
        target.update(part["items"]) if isinstance(target, dict) else target.extend(
            part["items"])
    del merged["type"], merged["parts"]
    assert merged == snap


def test_a_small_snapshot_is_one_frame():
    snap = {"run": {"id": 1}, "cycles": [], "state": {"nodes": [], "queues": {}}}
    assert snapshot_frames(snap) == [{"type": "snapshot", **snap, "parts": 0}]


def test_a_snapshot_without_engine_state_still_cuts_its_cycles():
    snap = {"run": {"id": 1}, "state": None, "stateError": "RuntimeError: boom",
            "cycles": [cycle(i, 5000) for i in range(20)]}
    head, *parts = snapshot_frames(snap)
    assert (head["state"], head["stateError"], head["cycles"]) == (None, "RuntimeError: boom", [])
    assert head["parts"] == len(parts) >= 2
    assert [c for p in parts for c in p["items"]] == snap["cycles"]
