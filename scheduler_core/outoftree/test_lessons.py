"""The lessons in fixtures/ that use the out-of-tree plugins, run through simulate()."""
from pathlib import Path

import pytest

from scheduler_core.outoftree import PLUGINS
from scheduler_core.simulate import simulate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TIMEOUT_MESSAGE = ("0/1 nodes are available: 1 rejected due to timeout after waiting 10s at "
                   "plugin Coscheduling.")


def run(name, **kwargs):
    result = simulate([str(FIXTURES / name)], out_of_tree=PLUGINS, **kwargs)
    return result, result.to_json()


def permit_wait(node):
    return [{"plugin": "Coscheduling", "code": "Wait", "reasons": [], "node": node,
             "timeout": 10.0}]


def test_gang_lesson_waits_times_out_and_releases():
    result, out = run("gang-lesson.yaml", max_cycles=8)
    cycles = out["cycles"]
    first = cycles[:3]
    assert [c["pod"] for c in first] == ["default/worker-0", "default/worker-1",
                                         "default/worker-2"]
    # Waiting: each of the first three holds a node at Permit for 10s.
    assert [c["permit"] for c in first] == [permit_wait(c["node"]) for c in first]
    assert len({c["node"] for c in first}) == 3
    # The timeout rejects them...
    assert [(c["outcome"], c["message"]) for c in first] == [("Rejected", TIMEOUT_MESSAGE)] * 3
    # ...and Unreserve releases their nodes, in the reverse of Reserve's order.
    for c in first:
        assert [(u["plugin"], u["node"]) for u in c["unreserve"]] == [
            ("Coscheduling", c["node"]), ("DynamicResources", c["node"]),
            ("VolumeBinding", c["node"])]
    assert (cycles[3]["pod"], cycles[3]["outcome"]) == ("default/worker-3", "Unschedulable")
    assert cycles[3]["message"].startswith("0/3 nodes are available: 3 Insufficient cpu.")
    # The released CPUs let worker-3 in at t=10s, to wait in turn, and the round repeats.
    assert (cycles[4]["pod"], cycles[4]["time"]) == ("default/worker-3", 10.0)
    # Still waiting when the run stops: no outcome, so no node yet but the one Permit saw.
    assert cycles[4]["permit"] == permit_wait(cycles[4]["permit"][0]["node"])
    assert [c["outcome"] for c in cycles[4:8]] == [None, None, None, "Unschedulable"]
    assert out["bindings"] == dict.fromkeys(
        [f"default/worker-{i}" for i in range(4)], None)
    assert result.scheduler.pending_reasons()["default/worker-0"] == \
        "waiting on permit: Coscheduling"


def test_gang_lesson_never_binds_before_the_cycle_limit():
    result, out = run("gang-lesson.yaml")
    assert len(out["cycles"]) == 50 * (4 + 10)
    assert set(out["bindings"].values()) == {None}


def test_gang_lesson_fits_binds_all_four_together():
    result, out = run("gang-lesson-fits.yaml")
    cycles = out["cycles"]
    assert [c["outcome"] for c in cycles] == ["Bound"] * 4
    assert [c["permit"] for c in cycles[:3]] == [permit_wait(c["node"]) for c in cycles[:3]]
    assert cycles[3]["permit"] == [{"plugin": "Coscheduling", "code": "Success", "reasons": [],
                                    "node": cycles[3]["node"]}]
    assert sorted(out["bindings"].values()) == ["node-1", "node-2", "node-3", "node-4"]
    # Allowed before their timeout: the stopped timers leave the clock at 0.
    assert result.scheduler.clock == 0.0


def test_gpu_lesson_ranks_gpu_nodes_by_model_and_free_memory():
    _, out = run("gpu-lesson.yaml")
    assert out["bindings"] == {
        "default/train-0": "h100-1", "default/train-1": "h100-1", "default/train-2": "a100-2",
        "default/infer-0": "h100-1", "default/web-0": "t4-1"}
    by_pod = {c["pod"]: c for c in out["cycles"]}
    assert by_pod["default/train-0"]["score"]["GPUScorer"] == {
        "a100-2": {"raw": 440, "normalized": 52, "weighted": 260},
        "h100-1": {"raw": 840, "normalized": 100, "weighted": 500},
        "t4-1": {"raw": 60, "normalized": 7, "weighted": 35}}
    assert by_pod["default/train-0"]["filter"]["a100-1"][-1]["reasons"] == [
        "Insufficient nvidia.com/gpu"]
    web = by_pod["default/web-0"]
    assert {"plugin": "GPUScorer", "code": "Skip", "reasons": []} in web["preScore"]
    assert "GPUScorer" not in web["score"]


@pytest.mark.parametrize("name", ["gang-lesson.yaml", "gang-lesson-fits.yaml", "gpu-lesson.yaml"])
def test_each_lesson_explains_itself_and_configures_its_plugin(name):
    text = (FIXTURES / name).read_text()
    assert text.startswith("# Lesson:")
    assert "kind: KubeSchedulerConfiguration" in text
    assert "--plugin" in text
