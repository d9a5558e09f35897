"""The two timeline lessons end as their headers say."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from scheduler_core.simulate import simulate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def zones(result) -> Counter:
    labels = {n["metadata"]["name"]: n["metadata"]["labels"]["topology.kubernetes.io/zone"]
              for n in result.scheduler.cluster.nodes}
    return Counter(labels[node] for key, node in result.scheduler.bindings.items()
                   if node and "/web-" in key)


def test_node_failure_lesson():
    result = simulate([str(FIXTURES / "node-failure-lesson.yaml")], seed=1)
    timeline = result.scheduler.life.to_json()
    evicted = [(e["time"], e["node"]) for e in timeline["podEvents"]
               if e["event"] == "evicted by taint manager"]
    assert evicted == [(360.0, "node-b"), (360.0, "node-b")]
    gc = [e for e in timeline["podEvents"] if e["event"] == "deleted with its node"]
    assert [(e["time"], e["pod"].split("/")[1].rsplit("-", 1)[0]) for e in gc] == [
        (600.0, "log-agent")]
    web = Counter(node for key, node in result.scheduler.bindings.items() if "/web-" in key)
    assert web == {"node-a": 3, "node-c": 3}
    agents = sorted(node for key, node in result.scheduler.bindings.items()
                    if "/log-agent-" in key)
    assert agents == ["node-a", "node-c", "node-d"]
    replacements = [m for m in timeline["queueMoves"] if m["time"] == 360.0]
    assert [m["event"] for m in replacements] == ["PodAdd", "PodAdd"]


def test_scaleup_spread_lesson():
    result = simulate([str(FIXTURES / "scaleup-spread-lesson.yaml")], seed=1)
    cycles = result.trace.to_list()
    failed = [c for c in cycles if c["outcome"] == "Unschedulable"]
    assert len(failed) == 1 and failed[0]["time"] == 60.0
    assert "3 node(s) didn't match pod topology spread constraints" in failed[0]["message"]
    assert "1 Insufficient cpu" in failed[0]["message"]
    last = cycles[-1]
    assert (last["pod"], last["time"], last["node"]) == (failed[0]["pod"], 180.0, "c-2")
    moves = [m["event"] for m in result.scheduler.life.to_json()["queueMoves"]
             if m["pod"] == last["pod"]]
    assert moves == ["PodAdd", "ScheduleAttemptFailure", "NodeAdd"]
    assert zones(result) == {"zone-a": 3, "zone-b": 3, "zone-c": 3}
