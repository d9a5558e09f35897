"""The timeline's node samples share an unchanged node's entry between samples: the samples
are those taken afresh from every node each time, across deletions, evictions and new nodes."""
from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.loader import _read_documents
from scheduler_core.session import RunSession
from scheduler_core.timeline.recorder import TimelineRecorder

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def fresh_entry(self, ni) -> dict:
    return {"cpu": [ni.requested.milli_cpu, ni.allocatable.milli_cpu],
            "memory": [ni.requested.memory, ni.allocatable.memory],
            "pods": [len(ni.pods), ni.allocatable.allowed_pod_number]}


def samples(name: str) -> list[dict]:
    path = str(FIXTURES / name)
    session = RunSession([(path, _read_documents(path, None))], None, seed=1, record=True)
    session.advance(None)
    return session.scheduler.life.to_json()["samples"]


@pytest.mark.parametrize("name", ["node-failure-lesson.yaml", "preemption-lesson.yaml",
                                  "scaleup-spread-lesson.yaml", "taints-affinity.yaml"])
def test_shared_node_entries_give_the_fresh_samples(name, monkeypatch):
    shared = samples(name)
    monkeypatch.setattr(TimelineRecorder, "_node_sample", fresh_entry)
    fresh = samples(name)
    assert len(shared) > 1
    assert shared == fresh
