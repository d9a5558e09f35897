"""What DynamicResources keeps from one cycle to the next (pools.py, allocated.py, outcomes.py)
gives what computing everything again in each cycle gives: the pools GatherPools finds, the
allocated state of every claim, and every run's trace, byte for byte."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from ...features import feature_gates
from ...framework.handle import ClusterObjects
from ...simulate import simulate
from .allocated import AllocatedDevices, allocated_state
from .allocator import Allocator
from .builders import (
    CLASS_A,
    DRIVER_A,
    allocation,
    claim,
    device,
    device_class,
    first_available,
    node,
    request,
    resource_slice,
    result,
)
from .outcomes import NodeOutcomes, signature
from .pools import SliceIndex, gather_pools

REPO = Path(__file__).resolve().parents[3]
MATCH_DRIVER = f'device.driver == "{DRIVER_A}"'
ZONE_A = {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "zone", "operator": "In", "values": ["a"]}]}]}


def _slices() -> list[dict]:
    """Slices of every kind GatherPools tells apart."""
    counters = resource_slice("counters", None, "partitioned", DRIVER_A)
    counters["spec"].pop("nodeName")
    counters["spec"]["sharedCounters"] = [{"name": "mem", "counters": {"gb": {"value": "8"}}}]
    per_device = resource_slice("per-device", None, "partitioned", DRIVER_A, {
        "name": "half", "nodeName": "node-1",
        "consumesCounters": [{"counterSet": "mem", "counters": {"gb": {"value": "4"}}}]})
    per_device["spec"].pop("nodeName")
    per_device["spec"]["perDeviceNodeSelection"] = True
    return [
        resource_slice("own-1", "node-1", "pool-1", DRIVER_A, device("d0"), device("d1")),
        resource_slice("own-2", "node-2", "pool-2", DRIVER_A, device("d0")),
        resource_slice("zone", None, "zone-pool", DRIVER_A, device("z0"), node_selector=ZONE_A),
        resource_slice("everywhere", None, "net", DRIVER_A, device("n0"), all_nodes=True),
        # Two slices for node-1 of which it sees one: the others decide completeness.
        resource_slice("split-a", "node-1", "split", DRIVER_A, device("s0"), count=2),
        resource_slice("split-b", "node-2", "split", DRIVER_A, device("s1"), count=2),
        # An old generation on node-2 of a pool node-3 has in a newer one.
        resource_slice("old", "node-2", "moving", DRIVER_A, device("m0"), generation=1),
        resource_slice("new", "node-3", "moving", DRIVER_A, device("m0"), generation=2),
        # A pool whose slice for node-3 misses its sibling: incomplete.
        resource_slice("lonely", "node-3", "lonely", DRIVER_A, device("l0"), count=2),
        counters, per_device,
    ]


NODES = [node("node-1", {"zone": "a"}), node("node-2", {"zone": "b"}), node("node-3"),
         node("node-4", {"zone": "a"}), node("node-3", {"zone": "a"})]


@pytest.mark.parametrize("partitionable", [True, False])
def test_the_slice_index_gathers_the_pools_gather_pools_finds_in_the_whole_list(partitionable):
    slices = _slices()
    index = SliceIndex(slices, partitionable)
    for n in NODES + NODES:   # twice: the second time from what the index kept
        assert index.pools(n) == gather_pools(slices, n, partitionable), n["metadata"]


def test_pools_are_kept_per_node_name_only_while_names_alone_decide():
    named = [s for s in _slices() if s["spec"].get("nodeName")]
    index = SliceIndex(named)
    assert index.pools(node("node-1")) is index.pools(node("node-1", {"zone": "a"}))
    mixed = SliceIndex(_slices())
    assert [p.name for p in mixed.pools(node("node-3"))] == ["net", "moving", "lonely",
                                                             "partitioned"]
    assert [p.name for p in mixed.pools(node("node-3", {"zone": "a"}))] == [
        "zone-pool", "net", "moving", "lonely", "partitioned"]


def test_of_pools_lists_the_slices_of_several_pools_in_list_order():
    slices = _slices()
    index = SliceIndex(slices)
    assert [s["metadata"]["name"] for s in index.of_pools(("driver-a", "split"),
                                                          ("driver-a", "pool-1"))] == [
        "own-1", "split-a", "split-b"]


def _allocated(name: str, *devices: str, shared: bool = False) -> dict:
    c = claim(name)
    results = [result("req-0", d) for d in devices]
    if shared:
        results[0]["shareID"] = "share-0"
        results[0]["consumedCapacity"] = {"memory": "1Gi"}
    c["status"]["allocation"] = allocation(*results)
    return c


def _objects(*claims: dict) -> ClusterObjects:
    objects = ClusterObjects()
    for c in claims:
        objects.resource_claims[f"default/{c['metadata']['name']}"] = c
    return objects


def test_the_tracker_follows_the_plugins_edits_and_rebuilds_after_others():
    objects = _objects(_allocated("a", "d0"), _allocated("b", "d1"), claim("c"))
    tracker = AllocatedDevices()
    before = tracker.state(objects)
    assert before == allocated_state(objects.resource_claims.values())
    epoch = tracker.epoch
    c = objects.resource_claims["default/c"]
    with tracker.editing(objects, "default/c"):
        c["status"]["allocation"] = allocation(result("req-0", "d2"))
    with tracker.editing(objects, "default/a"):
        del objects.resource_claims["default/a"]["status"]["allocation"]
    after = tracker.state(objects)
    assert after == allocated_state(objects.resource_claims.values())
    assert after.devices == {(DRIVER_A, "pool-a", "d1"), (DRIVER_A, "pool-a", "d2")}
    assert tracker.epoch == epoch, "followed, not rebuilt"
    assert before.devices == {(DRIVER_A, "pool-a", "d0"), (DRIVER_A, "pool-a", "d1")}, \
        "a state handed out does not change"
    assert tracker.versions[(DRIVER_A, "pool-a")] == 2
    # An edit in place elsewhere (the resourceclaim controller) says so; the tracker rebuilds.
    objects.resource_claims["default/b"]["status"].pop("allocation")
    objects.claims_changed()
    assert tracker.state(objects).devices == {(DRIVER_A, "pool-a", "d2")}
    assert tracker.epoch == epoch + 1


def test_a_claim_that_shares_a_device_makes_the_tracker_rebuild():
    objects = _objects(_allocated("a", "d0"), claim("s"))
    tracker = AllocatedDevices()
    tracker.state(objects)
    epoch = tracker.epoch
    with tracker.editing(objects, "default/s"):
        objects.resource_claims["default/s"]["status"]["allocation"] = \
            _allocated("x", "d1", shared=True)["status"]["allocation"]
    state = tracker.state(objects)
    assert tracker.epoch == epoch + 1
    assert state == allocated_state(objects.resource_claims.values())
    assert state.shared == {(DRIVER_A, "pool-a", "d1")}


class _Counting(Allocator):
    calls = 0

    def allocate(self, node, claims):
        _Counting.calls += 1
        return super().allocate(node, claims)


def test_an_outcome_is_kept_per_node_until_a_device_of_its_pools_changes():
    slices = [resource_slice(f"s{i}", f"node-{i}", f"pool-{i}", DRIVER_A, device("d0"))
              for i in (1, 2)]
    classes = {CLASS_A: device_class(CLASS_A, MATCH_DRIVER)}
    objects, tracker, outcomes, index = _objects(claim("taken")), AllocatedDevices(), \
        NodeOutcomes(), SliceIndex(slices)

    def cycle(pod_claim: dict) -> list:
        allocator = _Counting(classes=classes, slices=index, allocated=tracker.state(objects))
        sig = signature(index, [pod_claim], classes)
        return [outcomes.allocate(allocator, tracker, n, [pod_claim], sig)
                for n in (node("node-1"), node("node-2"))]

    _Counting.calls = 0
    first = cycle(claim("p1"))
    assert cycle(claim("p2")) == first and _Counting.calls == 2, "both kept"
    with tracker.editing(objects, "default/taken"):
        objects.resource_claims["default/taken"]["status"]["allocation"] = allocation(
            result("req-0", "d0", pool="pool-1"))
    third = cycle(claim("p3"))
    assert third == [None, first[1]] and _Counting.calls == 3, "node-1 again, node-2 kept"
    other = claim("p4", request(count=2))
    assert cycle(other) == [None, None] and _Counting.calls == 5, "another spec: again"


def _template(name: str, *requests) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": list(requests)}}}}


def _pod(name: str, template: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "pause"}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}]}}


def _cluster(tmp_path: Path) -> Path:
    """Six nodes in two zones with their own GPUs (two big ones in zone a, one in zone b), a
    zone's shared pool and a network pool for all; pods of three templates (one GPU, two big
    GPUs or else one of any, four), more than fit; a timeline deletes two bound pods and adds
    two, so that claims are released and waiting pods retried."""
    nodes = [node(f"node-{i}", {"zone": "ab"[i % 2], "kubernetes.io/hostname": f"node-{i}"})
             for i in range(6)]
    slices = [resource_slice(f"gpus-{i}", f"node-{i}", f"node-{i}", DRIVER_A,
                             *[device(f"gpu-{d}", {"model": "big" if d < 2 - i % 2 else "small"})
                               for d in range(3)]) for i in range(6)]
    small = {"model": "small"}
    slices.append(resource_slice("zone-a", None, "zone-a", DRIVER_A, device("z0", small),
                                 device("z1", small), node_selector=ZONE_A))
    slices.append(resource_slice("net", None, "net", DRIVER_A, device("n0", small),
                                 all_nodes=True))
    big = 'device.attributes["driver-a"].model == "big"'
    templates = [_template("one", request()),
                 _template("choosy", first_available("req-0", request("big", count=2,
                                                                      selectors=[big]),
                                                     request("any"))),
                 _template("four", request(count=4))]
    pods = [_pod(f"p{i}", ("one", "one", "choosy", "four")[i % 4]) for i in range(24)]
    timeline = {"apiVersion": "playground.k8s.local/v1", "kind": "Timeline",
                "metadata": {"name": "churn"}, "spec": {"steps": [
                    {"at": 30, "action": "Delete", "kind": "Pod", "name": "p0"},
                    {"at": 30, "action": "Delete", "kind": "Pod", "name": "p2"},
                    {"at": 60, "action": "Create", "object": _pod("late-0", "one")},
                    {"at": 60, "action": "Create", "object": _pod("late-1", "choosy")}]}}
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([*nodes, *slices, device_class(CLASS_A, MATCH_DRIVER),
                                        *templates, *pods, timeline]), encoding="utf-8")
    return path


def _trace(path: Path, release: str) -> str:
    out = io.StringIO()
    simulate([str(path)], seed=1, features=feature_gates(release, "")).write_json(out)
    return out.getvalue()


def _recomputing(monkeypatch) -> None:
    """Every PreFilter computes the allocated state anew, as before the tracker: no outcome
    is then kept either (it needs the tracker's state)."""
    monkeypatch.setattr(AllocatedDevices, "state",
                        lambda self, objects: allocated_state(objects.resource_claims.values()))


@pytest.mark.parametrize("release", ["1.34", "1.37"])
@pytest.mark.parametrize("cluster", ["fixtures/gpu-dra-lesson.yaml",
                                     "fixtures/dra-releases-lesson.yaml", "churn"])
def test_runs_are_the_same_as_when_everything_is_computed_in_each_cycle(
        tmp_path, monkeypatch, cluster, release):
    path = _cluster(tmp_path) if cluster == "churn" else REPO / cluster
    kept = _trace(path, release)
    _recomputing(monkeypatch)
    assert _trace(path, release) == kept
    assert '"claims"' in kept
