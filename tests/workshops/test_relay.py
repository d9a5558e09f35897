"""playground.workshops.relay: frames encoded once for the room, snapshots read once."""

from __future__ import annotations

import asyncio
import json

from playground.workshops import relay


def test_frames_are_encoded_once_and_numbered_per_socket():
    events = [{"kind": "cycle", "index": i, "pod": f"default/p{i}", "note": "x" * 300}
              for i in range(40)]
    texts = relay.encode_frames(events, limit=2_000)
    assert len(texts) > 1   # cut to the frame limit
    frames = [json.loads(relay.frame_text(seq, text)) for seq, text in enumerate(texts, 1)]
    assert all(len(relay.frame_text(99, t)) <= 2_000 for t in texts)
    assert [f["seq"] for f in frames] == list(range(1, len(texts) + 1))
    assert {f["type"] for f in frames} == {"batch"}
    assert [e for f in frames for e in f["events"]] == events


def test_a_snapshot_asked_for_by_many_sockets_at_once_is_read_once():
    reads = []

    async def read(run_id):
        reads.append(run_id)
        await asyncio.sleep(0.01)
        return {"run": {"id": run_id}}

    async def room():
        together = await asyncio.gather(*(relay.snapshot(7, read) for _ in range(40)))
        later = await relay.snapshot(7, read)
        return together, later

    together, later = asyncio.run(room())
    assert reads == [7, 7]   # once for the 40 at once, once more for the later one
    assert all(s == {"run": {"id": 7}} for s in together) and later == {"run": {"id": 7}}
