"""DynamicResources' Score (v1.35+, PR #134711; computeScore in dynamicresources.go): a
firstAvailable request scores 8 minus the index of the subrequest the node's allocation took,
so the pod goes where it gets its first choice."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from scheduler_core.framework.handle import FakeHandle

from . import new
from .builders import claim, device, device_class, first_available, request, resource_slice
from .builders import node as make_node
from .plugin import DynamicResources, ScoringDynamicResources
from .scoring import ScoreError, compute_score
from .test_simulate import pod_with, simulate, write


def prioritized(name="claim-0"):
    return claim(name, first_available("req-0", request("large", count=2),
                                       request("small")))


def allocation(*requests):
    return {"devices": {"results": [{"request": r, "driver": "d", "pool": "p", "device": "x"}
                                    for r in requests]}}


@pytest.mark.parametrize(("claims", "allocations", "want"), [
    pytest.param([prioritized()], [allocation("req-0/large", "req-0/large")], 8,
                 id="the first subrequest scores 8"),
    pytest.param([prioritized()], [allocation("req-0/small")], 7,
                 id="the second subrequest scores 7"),
    pytest.param([claim("c", request("req-0"))], [allocation("req-0")], 0,
                 id="an exact request scores nothing"),
    pytest.param([prioritized("a"), prioritized("b")],
                 [allocation("req-0/small"), allocation("req-0/large", "req-0/large")], 15,
                 id="the claims' scores add up"),
])
def test_compute_score(claims, allocations, want):
    assert compute_score(claims, allocations) == want


def test_an_allocated_claim_is_scored_by_its_own_allocation():
    done = prioritized("done")
    done["status"]["allocation"] = allocation("req-0/small")
    assert compute_score([done, prioritized("new")], [allocation("req-0/large")]) == 7 + 8


def test_fewer_allocations_than_claims_to_allocate_is_an_internal_error():
    with pytest.raises(ScoreError, match="number of allocations 1 is smaller than number of "
                                         "claims needing allocation"):
        compute_score([prioritized("a"), prioritized("b")], [allocation("req-0/small")])


@pytest.mark.parametrize(("minor", "cls"), [(34, DynamicResources),
                                            (35, ScoringDynamicResources),
                                            (37, ScoringDynamicResources)])
def test_score_exists_from_v1_35(minor, cls):
    handle = FakeHandle()
    handle.features = SimpleNamespace(minor=minor, enabled=lambda gate: True)
    plugin = new({}, handle)
    assert type(plugin) is cls
    assert hasattr(plugin, "score") == (minor >= 35)


def first_choice_cluster(tmp_path):
    """node-1 (first in order) has one GPU, node-2 has two: both can serve the claim, but only
    node-2 the first subrequest, "two"."""
    claim_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
              "metadata": {"name": "c", "namespace": "default"},
              "spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                  {"name": "two", "deviceClassName": "gpu", "count": 2},
                  {"name": "one", "deviceClassName": "gpu"}]}]}}}
    slices = [resource_slice("s1", "node-1", "node-1", "gpu.example.com", device("gpu-0")),
              resource_slice("s2", "node-2", "node-2", "gpu.example.com", device("gpu-0"),
                             device("gpu-1"))]
    return write(tmp_path, make_node("node-1"), make_node("node-2"), device_class("gpu"),
                 *slices, claim_, pod_with("p", resourceClaimName="c"))


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_the_pod_goes_to_the_node_that_gives_its_first_choice(tmp_path, release):
    # v1.34 has no DynamicResources Score (PR #134711): the next test.
    path = first_choice_cluster(tmp_path)
    done = simulate(path, "--output", "json", "--seed", "1", "--release", release)
    assert done.returncode == 0, done.stderr
    (cycle,) = json.loads(done.stdout)["cycles"]
    assert cycle["node"] == "node-2"
    assert cycle["score"]["DynamicResources"] == {
        "node-1": {"raw": 7, "normalized": 87, "weighted": 87},
        "node-2": {"raw": 8, "normalized": 100, "weighted": 100}}


ONLY_DRA = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: PrioritySort}, {name: DynamicResources}, {name: DefaultBinder}]
      disabled: [{name: "*"}]
"""


def test_v1_34_does_not_score_the_first_choice(tmp_path):
    path = first_choice_cluster(tmp_path)
    nodes = set()
    for seed in range(4):   # equal totals: the seed's tie-break picks either node
        done = simulate(path, "--output", "json", "--seed", seed, "--release", "1.34")
        (cycle,) = json.loads(done.stdout)["cycles"]
        assert "DynamicResources" not in cycle["score"]
        nodes.add(cycle["node"])
    assert nodes == {"node-1", "node-2"}


@pytest.mark.parametrize(("release", "evaluated"), [("1.34", 1), ("1.35", 4), ("1.36", 4),
                                                    ("1.37", 4)])
def test_a_profile_with_dynamic_resources_alone_filters_every_node_from_v1_35(
        tmp_path, release, evaluated):
    """Without a Score plugin the framework stops at the first feasible node; DynamicResources'
    Score (v1.35+) makes the profile a scoring one, so every node is filtered."""
    config = tmp_path / "config.yaml"
    config.write_text(ONLY_DRA, encoding="utf-8")
    nodes = [make_node(f"node-{i}") for i in range(4)]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    done = simulate(write(tmp_path, *nodes, pod), "--config", config, "--release", release,
                    "--output", "json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    (cycle,) = json.loads(done.stdout)["cycles"]
    assert len(cycle["filter"]) == evaluated
