"""Cycle detail over the websocket at thousands of nodes: every frame under 64 KB, and the
trace put back together exactly as stored (the client's socket.js joins the texts the same way)."""

from __future__ import annotations

import json

from playground.frames import FRAME_LIMIT, detail_frames

KB64 = 64 * 1024


def big_trace(nodes: int) -> dict:
    names = [f"node-{i:05d}" for i in range(nodes)]
    ok = {"plugin": "NodeResourcesFit", "code": "Success", "reasons": []}
    bad = {"plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable",
           "reasons": ["node(s) had untolerated taint {dedicated: infra}"]}
    feasible = names[: nodes // 2]
    return {
        "index": 7, "time": 1.5, "pod": "default/web-1", "profile": "default-scheduler",
        "outcome": "Bound", "node": names[0], "message": "",
        "preFilter": [], "postFilter": [], "preemption": None,
        "filter": {n: [ok] if n in feasible else [ok, bad] for n in names},
        "score": {p: {n: {"raw": 37, "normalized": 61, "weighted": 61} for n in feasible}
                  for p in ("NodeResourcesFit", "ImageLocality", "TaintToleration")},
        "totalScore": {n: 183 for n in feasible},
        "reserve": [], "permit": [], "preBind": [], "bind": [], "postBind": [], "unreserve": [],
    }


def reassemble(frames: list[dict]) -> dict:
    head, *parts = frames
    assert head["type"] == "cycle_detail" and head.get("parts", 0) == len(parts)
    if not parts:
        return head["cycle"]
    for part in parts:
        assert part["type"] == "cycle_detail_part" and part["index"] == head["index"]
    return json.loads("".join(part["text"] for part in parts))


def test_small_trace_is_one_frame():
    trace = big_trace(20)
    assert detail_frames(trace) == [{"type": "cycle_detail", "cycle": trace}]


def test_traces_of_5000_and_15000_nodes_fit_frames_and_come_back_whole():
    for nodes in (5000, 15000):
        trace = big_trace(nodes)
        assert len(json.dumps(trace)) > 10 * KB64  # the 898 KB frame, or more
        frames = detail_frames(trace)
        sizes = [len(json.dumps({"seq": 10**6, **f}, separators=(",", ":"))) for f in frames]
        assert max(sizes) <= FRAME_LIMIT < KB64
        assert reassemble(frames) == trace


def test_quotes_and_backslashes_count_twice_in_a_part():
    # Text full of characters that JSON escapes: each part's frame still fits.
    trace = big_trace(2000)
    trace["message"] = '"\\' * 40_000
    frames = detail_frames(trace)
    assert max(len(json.dumps({"seq": 10**6, **f}, separators=(",", ":"))) for f in frames) \
        <= FRAME_LIMIT
    assert reassemble(frames) == trace
