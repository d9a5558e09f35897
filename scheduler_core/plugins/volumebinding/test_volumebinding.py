"""VolumeBinding plugin, ported from volume_binding_test.go, scorer_test.go and the
VolumeBindingArgs cases of validation_pluginargs_test.go; plus Reserve/Unreserve/PreBind."""
import copy

import pytest

from scheduler_core.features import feature_gates
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code, Status
from scheduler_core.plugins.volumebinding import default_args, new, validate_args
from scheduler_core.plugins.volumebinding import storage as st
from scheduler_core.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
)
from scheduler_core.plugins.volumebinding.volume_binding import (
    DECISIONS_KEY,
    ERR_UNBOUND_IMMEDIATE,
    build_scorer,
)
from scheduler_core.testing.volumebinding import (
    HOSTNAME,
    ephemeral_volume,
    handle,
    node,
    pod,
    pv,
    pvc,
    storage_class,
)

IMMEDIATE_SC = storage_class("immediate-sc", "Immediate")
WAIT_SC = storage_class("wait-sc")
WAIT_HDD_SC = storage_class("wait-hdd-sc")
CLASSES = [IMMEDIATE_SC, WAIT_SC, WAIT_HDD_SC]
ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
GATES = feature_gates("1.37")   # StorageCapacityScoring on by default (beta)
OFF = feature_gates("1.36")     # StorageCapacityScoring off by default (alpha)
# The VolumeCapacityPriority-era shape (fuller volumes score higher), given explicitly.
FULLEST = {"bindTimeoutSeconds": 300, "shape": [{"utilization": 0, "score": 0},
                                                 {"utilization": 100, "score": 10}]}
SKIP = Status.skip()


def unresolvable(*reasons):
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)


def local_pv(name, capacity, host, class_name="wait-sc"):
    return pv(name, class_name, capacity=capacity, phase="Available",
              node_affinity={HOSTNAME: [host]})


def zonal_pv(name, capacity, zone):
    return pv(name, "wait-sc", capacity=capacity, phase="Available",
              node_affinity={REGION: [f"region-{zone}"], ZONE: [f"zone-{zone}"]})


def zonal_node(name, zone):
    return node(name, **{REGION: f"region-{zone}", ZONE: f"zone-{zone}"})


ZONAL_NODES = [zonal_node(f"zone-{z}-node-{n}", z) for z in "abc" for n in "ab"]
ZONAL_PVS = [zonal_pv("pv-a-0", "200Gi", "a"), zonal_pv("pv-a-1", "200Gi", "a"),
             zonal_pv("pv-b-0", "100Gi", "b"), zonal_pv("pv-b-1", "100Gi", "b")]
NO_PV = unresolvable(ERR_REASON_BIND_CONFLICT)

# name, pod, nodes, pvcs, pvs, feature gates, args, prefilter, filter statuses, prescore, scores,
# the claim names PreFilter sorted as (bound, delay binding).
CASES = [
    pytest.param(pod(), [node("node-a")], [], [], None, None, SKIP, [None], SKIP, None, None,
                 id="pod has not pvcs"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a")],
                 [pvc("pvc-a", "wait-sc", volume_name="pv-a", bound=True)],
                 [pv("pv-a", "wait-sc", phase="Available")], None, None, None, [None], SKIP,
                 None, (["pvc-a"], []), id="all bound"),
    pytest.param(pod(volumes=["pvc-a", "pvc-b"]), [node("node-a")],
                 [pvc("pvc-a", "wait-sc", volume_name="pv-a", bound=True),
                  pvc("pvc-b", "wait-sc", volume_name="pv-b", bound=True)],
                 [pv("pv-a", "wait-sc", phase="Bound", node_affinity={HOSTNAME: ["node-a"]}),
                  pv("pv-b", "wait-sc", phase="Bound", node_affinity={HOSTNAME: ["node-a"]})],
                 None, None, None, [None], SKIP, None, (["pvc-a", "pvc-b"], []),
                 id="all bound with local volumes"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a")], [], [], None, None,
                 unresolvable('persistentvolumeclaim "pvc-a" not found'), None, None, None, None,
                 id="PVC does not exist"),
    pytest.param(pod(volumes=["pvc-a", "pvc-b"]), [node("node-a")],
                 [pvc("pvc-a", "wait-sc", volume_name="pv-a", bound=True)], [], None, None,
                 unresolvable('persistentvolumeclaim "pvc-b" not found'), None, None, None, None,
                 id="part of PVCs do not exist"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a")], [pvc("pvc-a", "immediate-sc")], [],
                 None, None, unresolvable(ERR_UNBOUND_IMMEDIATE), None, None, None, None,
                 id="immediate claims not bound"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a")], [pvc("pvc-a", "wait-sc")], [], None,
                 None, None, [NO_PV], SKIP, None, ([], ["pvc-a"]),
                 id="unbound claims no matches"),
    pytest.param(pod(volumes=["pvc-a", "pvc-b"]), [node("node-a", foo="barbar")],
                 [pvc("pvc-a", "wait-sc", volume_name="pv-a", bound=True),
                  pvc("pvc-b", "wait-sc")],
                 [pv("pv-a", "wait-sc", phase="Available", node_affinity={"foo": ["bar"]})],
                 None, None, None,
                 [unresolvable(ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)], SKIP, None,
                 (["pvc-a"], ["pvc-b"]), id="bound and unbound unsatisfied"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a")], [], [], None, None,
                 unresolvable('persistentvolumeclaim "pvc-a" not found'), None, None, None, None,
                 id="pvc not found"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a")],
                 [pvc("pvc-a", "wait-sc", volume_name="pv-a", bound=True)], [], None, None, None,
                 [unresolvable(ERR_REASON_PV_NOT_EXIST)], SKIP, None, (["pvc-a"], []),
                 id="pv not found"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a")],
                 [pvc("pvc-a", "wait-sc", volume_name="pv-a", bound=True, phase="Lost")], [],
                 None, None,
                 unresolvable('persistentvolumeclaim "pvc-a" bound to non-existent '
                              'persistentvolume "pv-a"'), None, None, None, None,
                 id="pv not found claim lost"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a"), node("node-b"), node("node-c")],
                 [pvc("pvc-a", "wait-sc", request="50Gi")],
                 [local_pv("pv-a-0", "200Gi", "node-a"), local_pv("pv-a-1", "200Gi", "node-a"),
                  local_pv("pv-b-0", "100Gi", "node-b"), local_pv("pv-b-1", "100Gi", "node-b")],
                 GATES, FULLEST, None, [None, None, NO_PV], None, [25, 50, 0], ([], ["pvc-a"]),
                 id="local volumes with close capacity are preferred"),
    pytest.param(pod(volumes=["pvc-a"]), [node("node-a"), node("node-b"), node("node-c")],
                 [pvc("pvc-a", "wait-sc", request="50Gi")],
                 [local_pv("pv-a-0", "200Gi", "node-a"), local_pv("pv-a-1", "200Gi", "node-a"),
                  local_pv("pv-b-0", "100Gi", "node-b"), local_pv("pv-b-1", "100Gi", "node-b")],
                 GATES, None, None, [None, None, NO_PV], None, [75, 50, 0], ([], ["pvc-a"]),
                 id="the default shape prefers local volumes with the most room left"),
    pytest.param(pod(volumes=["pvc-0", "pvc-1"]),
                 [node("node-a"), node("node-b"), node("node-c")],
                 [pvc("pvc-0", "wait-sc", request="50Gi"),
                  pvc("pvc-1", "wait-hdd-sc", request="100Gi")],
                 [local_pv("pv-a-0", "200Gi", "node-a"), local_pv("pv-a-1", "200Gi", "node-a"),
                  local_pv("pv-a-2", "200Gi", "node-a", "wait-hdd-sc"),
                  local_pv("pv-a-3", "200Gi", "node-a", "wait-hdd-sc"),
                  local_pv("pv-b-0", "100Gi", "node-b"), local_pv("pv-b-1", "100Gi", "node-b"),
                  local_pv("pv-b-2", "100Gi", "node-b", "wait-hdd-sc"),
                  local_pv("pv-b-3", "100Gi", "node-b", "wait-hdd-sc")],
                 GATES, FULLEST, None, [None, None, NO_PV], None, [38, 75, 0],
                 ([], ["pvc-0", "pvc-1"]),
                 id="local volumes with close capacity are preferred with multiple pvcs"),
    pytest.param(pod(volumes=["pvc-a"]), ZONAL_NODES, [pvc("pvc-a", "wait-sc", request="50Gi")],
                 ZONAL_PVS, GATES, FULLEST, None, [None, None, None, None, NO_PV, NO_PV], None,
                 [25, 25, 50, 50, 0, 0], ([], ["pvc-a"]),
                 id="zonal volumes with close capacity are preferred"),
    pytest.param(pod(volumes=["pvc-a"]), ZONAL_NODES, [pvc("pvc-a", "wait-sc", request="50Gi")],
                 ZONAL_PVS, GATES,
                 {"bindTimeoutSeconds": 300, "shape": [{"utilization": 0, "score": 0},
                                                       {"utilization": 50, "score": 3},
                                                       {"utilization": 100, "score": 5}]},
                 None, [None, None, None, None, NO_PV, NO_PV], None, [15, 15, 30, 30, 0, 0],
                 ([], ["pvc-a"]), id="zonal volumes with close capacity are preferred with a "
                                     "custom shape"),
]


@pytest.mark.parametrize("p, nodes, pvcs, pvs, gates, args, want_pre_filter, want_filter, "
                         "want_pre_score, want_scores, want_claims", CASES)
def test_volume_binding(p, nodes, pvcs, pvs, gates, args, want_pre_filter, want_filter,
                        want_pre_score, want_scores, want_claims):
    gates = gates or OFF
    h = handle(nodes, copy.deepcopy(pvcs), copy.deepcopy(pvs), CLASSES, features=gates)
    plugin = new(default_args(args or {"bindTimeoutSeconds": 300}, gates), h)
    state = CycleState()
    _, status = plugin.pre_filter(state, p, h.snapshot.list())
    assert status == want_pre_filter
    if status is not None:
        return
    claims = state.read("VolumeBinding").pod_volume_claims
    assert ([c["metadata"]["name"] for c in claims.bound_claims],
            [c["metadata"]["name"] for c in claims.unbound_claims_delay_binding]) == want_claims
    node_infos = [h.snapshot.get(n["metadata"]["name"]) for n in nodes]
    assert [plugin.filter(state, p, ni) for ni in node_infos] == want_filter
    assert plugin.pre_score(state, p, node_infos) == want_pre_score
    if want_pre_score is None:
        assert [plugin.score(state, p, ni) for ni in node_infos] == \
            [(s, None) for s in want_scores]


@pytest.mark.parametrize("gates, want", [
    pytest.param(GATES, None, id="with the feature on PreScore runs without static bindings"),
    pytest.param(OFF, SKIP, id="with the feature off PreScore skips"),
])
def test_pre_score_with_all_claims_bound(gates, want):
    h = handle([node("node-a")], [pvc("pvc-a", "wait-sc", volume_name="pv-a", bound=True)],
               [pv("pv-a", "wait-sc")], CLASSES, features=gates)
    plugin = new(default_args({}, gates), h)
    state = CycleState()
    p = pod(volumes=["pvc-a"])
    plugin.pre_filter(state, p, [])
    assert plugin.filter(state, p, h.snapshot.get("node-a")) is None
    assert plugin.pre_score(state, p, []) == want
    assert plugin.score(state, p, h.snapshot.get("node-a")) == (0, None)


def csi_capacity(name, node_name, size):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
            "metadata": {"name": name, "namespace": "kube-system"},
            "storageClassName": "csi-sc", "capacity": size,
            "nodeTopology": {"matchLabels": {HOSTNAME: node_name}}}


CSI_SC = storage_class("csi-sc", provisioner="csi.example.com")
CSI_DRIVER = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
              "metadata": {"name": "csi.example.com"}, "spec": {"storageCapacity": True}}


@pytest.mark.parametrize("gates, args, want_scores", [
    pytest.param(GATES, None, [(75, None), (50, None), (0, None)],
                 id="dynamic provisioning prefers the node with the most storage capacity left"),
    pytest.param(GATES, FULLEST, [(25, None), (50, None), (100, None)],
                 id="a custom shape can prefer the fullest storage"),
    pytest.param(OFF, None, [(0, None), (0, None), (0, None)],
                 id="no score with the feature off"),
])
def test_score_of_dynamic_provisioning(gates, args, want_scores):
    """Score (volume_binding.go): without static bindings, the claims' requests against the
    CSIStorageCapacity they would be provisioned from, the capacity taken once per class."""
    nodes = [node("node-a"), node("node-b"), node("node-c")]
    claims = [pvc("pvc-0", "csi-sc", request="25Gi"), pvc("pvc-1", "csi-sc", request="25Gi")]
    capacities = [csi_capacity("cap-a", "node-a", "200Gi"),
                  csi_capacity("cap-b", "node-b", "100Gi"),
                  csi_capacity("cap-c", "node-c", "50Gi")]
    h = handle(nodes, claims, [], [CSI_SC], features=gates,
               extra={"CSIDriver": [CSI_DRIVER], "CSIStorageCapacity": capacities})
    plugin = new(default_args(args or {}, gates), h)
    state = CycleState()
    p = pod(volumes=["pvc-0", "pvc-1"])
    assert plugin.pre_filter(state, p, []) == (None, None)
    infos = [h.snapshot.get(n["metadata"]["name"]) for n in nodes]
    assert [plugin.filter(state, p, ni) for ni in infos] == [None, None, None]
    plugin.pre_score(state, p, infos)
    assert [plugin.score(state, p, ni) for ni in infos] == want_scores


SCORE_CASES = [
    pytest.param([(0, 0), (100, 100)], [
        ({"hdd": (0, 100)}, 0), ({"hdd": (30, 100)}, 30), ({"hdd": (50, 100)}, 50),
        ({"hdd": (100, 100)}, 100)], id="default shape with a single class"),
    pytest.param([(0, 0), (100, 100)], [
        ({"hdd": (0, 100), "ssd": (0, 100)}, 0), ({"hdd": (0, 100), "ssd": (30, 100)}, 15),
        ({"hdd": (30, 100), "ssd": (30, 100)}, 30), ({"hdd": (30, 100), "ssd": (60, 100)}, 45),
        ({"hdd": (50, 100), "ssd": (50, 100)}, 50), ({"hdd": (50, 100), "ssd": (100, 100)}, 75),
        ({"hdd": (100, 100), "ssd": (100, 100)}, 100)], id="default shape with multiple classes"),
    pytest.param([(50, 0), (80, 30), (100, 50)], [
        ({"hdd": (0, 100), "ssd": (0, 100)}, 0), ({"hdd": (0, 100), "ssd": (30, 100)}, 0),
        ({"hdd": (30, 100), "ssd": (30, 100)}, 0), ({"hdd": (30, 100), "ssd": (60, 100)}, 5),
        ({"hdd": (50, 100), "ssd": (100, 100)}, 25), ({"hdd": (90, 100), "ssd": (90, 100)}, 40),
        ({"hdd": (100, 100), "ssd": (100, 100)}, 50)], id="custom shape with multiple classes"),
    pytest.param([(0, 0), (100, 100)], [({"hdd": (10, 0)}, 100), ({"hdd": (200, 100)}, 100)],
                 id="no capacity or a request above it scores as full utilization"),
]


@pytest.mark.parametrize("shape, cases", SCORE_CASES)
def test_scorer(shape, cases):
    scorer = build_scorer(shape)
    assert [scorer(resources) for resources, _ in cases] == [want for _, want in cases]


def err(field, detail, value):
    return f"{field}: Invalid value: {value}: {detail}"


ARGS_CASES = [
    pytest.param({"bindTimeoutSeconds": 0}, OFF, [], id="zero is a valid config"),
    pytest.param({"bindTimeoutSeconds": 10}, OFF, [], id="positive value is valid config"),
    pytest.param({"bindTimeoutSeconds": -10}, OFF,
                 [err("bindTimeoutSeconds",
                      "invalid BindTimeoutSeconds, should not be a negative value", -10)],
                 id="negative value is invalid config"),
    pytest.param({"bindTimeoutSeconds": 10}, OFF, [],
                 id="shape should be nil when the feature is off"),
    pytest.param({"bindTimeoutSeconds": 10, "shape": [{"utilization": 1, "score": 1},
                                                      {"utilization": 3, "score": 3}]},
                 OFF,
                 [("shape: Invalid value: []config.UtilizationShapePoint{config.UtilizationShape"
                   "Point{Utilization:1, Score:1}, config.UtilizationShapePoint{Utilization:3, "
                   "Score:3}}: unexpected field `shape`, remove it or turn on the feature gate "
                   "StorageCapacityScoring")],
                 id="error if the shape is not nil when the feature is off"),
    pytest.param({"bindTimeoutSeconds": 10, "shape": []}, GATES,
                 ["shape: Required value: at least one point must be specified"],
                 id="shape should not be empty when the feature is on"),
    pytest.param({"bindTimeoutSeconds": 10, "shape": [{"utilization": 1, "score": 1},
                                                      {"utilization": 1, "score": 3}]}, GATES,
                 [err("shape[1].utilization", "values must be sorted in increasing order", 1)],
                 id="shape points must be sorted in increasing order"),
    pytest.param({"bindTimeoutSeconds": 10, "shape": [{"utilization": 1, "score": 1},
                                                      {"utilization": 3, "score": 3}]}, GATES,
                 [], id="valid shape when the feature is on"),
    pytest.param({"bindTimeoutSeconds": 10, "shape": [{"utilization": -1, "score": 1},
                                                      {"utilization": 10, "score": -1},
                                                      {"utilization": 20, "score": 11},
                                                      {"utilization": 101, "score": 1}]}, GATES,
                 [err("shape[0].utilization", "not in valid range [0, 100]", -1),
                  err("shape[1].score", "not in valid range [0, 10]", -1),
                  err("shape[2].score", "not in valid range [0, 10]", 11),
                  err("shape[3].utilization", "not in valid range [0, 100]", 101)],
                 id="shape point with invalid utilization and score"),
]


@pytest.mark.parametrize("args, gates, want", ARGS_CASES)
def test_validate_args(args, gates, want):
    assert validate_args(args, "", gates) == want


def test_validate_args_prefixes_the_config_path():
    assert validate_args({"bindTimeoutSeconds": -1}, "profiles[0].pluginConfig[1].args",
                         OFF) == [
        err("profiles[0].pluginConfig[1].args.bindTimeoutSeconds",
            "invalid BindTimeoutSeconds, should not be a negative value", -1)]


@pytest.mark.parametrize("args, gates, want", [
    pytest.param({}, OFF, {"bindTimeoutSeconds": 600}, id="bind timeout defaults to 600 seconds"),
    pytest.param({"bindTimeoutSeconds": 10}, OFF, {"bindTimeoutSeconds": 10},
                 id="a given bind timeout is kept"),
    pytest.param({}, GATES, {"bindTimeoutSeconds": 600, "shape": [
        {"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]},
        id="the shape defaults to preferring free space only with StorageCapacityScoring on"),
    pytest.param({"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]},
                 GATES, {"bindTimeoutSeconds": 600, "shape": [
                     {"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]},
                 id="a given shape is kept"),
])
def test_default_args(args, gates, want):
    assert default_args(args, gates) == want


# --- Reserve, Unreserve and PreBind ------------------------------------------------------------

PROVISIONING_SC = storage_class("fast", provisioner="csi.example.com", allowed_topologies=[
    {"matchLabelExpressions": [{"key": ZONE, "values": ["zone-a", "zone-b"]}]}])


def cycle(h, p, node_name):
    """Run PreFilter and Filter on every node; returns the plugin, state and filter results."""
    plugin = new(default_args({}), h)
    state = CycleState()
    _, status = plugin.pre_filter(state, p, h.snapshot.list())
    assert status is None
    results = {ni.name: plugin.filter(state, p, ni) for ni in h.snapshot.list()}
    assert results[node_name] is None
    return plugin, state, results


def static_env():
    return handle([node("node-a"), node("node-b")],
                  [pvc("data", "wait-sc", request="5Gi", uid="uid-data")],
                  [local_pv("pv-a", "10Gi", "node-a"), local_pv("pv-b", "8Gi", "node-b")],
                  CLASSES)


def test_filter_keeps_only_nodes_with_a_fitting_local_volume():
    h = handle([node("node-a"), node("node-b")], [pvc("data", "wait-sc", request="9Gi")],
               [local_pv("pv-a", "10Gi", "node-a"), local_pv("pv-b", "8Gi", "node-b")], CLASSES)
    _, _, results = cycle(h, pod(volumes=["data"]), "node-a")
    assert results == {"node-a": None, "node-b": NO_PV}


def test_reserve_then_unreserve_restores_the_cache_and_objects_exactly():
    h = static_env()
    before = copy.deepcopy((h.objects.pvs, h.objects.pvcs))
    p = pod(volumes=["data"])
    plugin, state, _ = cycle(h, p, "node-a")
    assert plugin.reserve(state, p, "node-a") is None
    assumed = plugin.binder.pv_cache.get("pv-a")
    assert assumed["spec"]["claimRef"] == {"kind": "PersistentVolumeClaim", "namespace": "default",
                                           "name": "data", "uid": "uid-data", "apiVersion": "v1"}
    assert (h.objects.pvs, h.objects.pvcs) == before  # only the cache holds the assumption
    plugin.unreserve(state, p, "node-a")
    assert plugin.binder.pv_cache.get("pv-a") == before[0]["pv-a"]
    assert (h.objects.pvs, h.objects.pvcs) == before
    assert plugin.describe(state) == {
        "assumed": [{"kind": "PersistentVolume", "name": "pv-a", "claim": "default/data"}],
        "reverted": [{"kind": "PersistentVolume", "name": "pv-a", "claim": "default/data"}],
        "bound": [], "provisioned": []}


def test_an_assumed_volume_is_not_offered_to_another_claim():
    h = handle([node("node-a")], [pvc("one", "wait-sc", request="1Gi"),
                                  pvc("two", "wait-sc", request="1Gi")],
               [local_pv("pv-a", "10Gi", "node-a")], CLASSES)
    first = pod("first", volumes=["one"])
    plugin, state, _ = cycle(h, first, "node-a")
    plugin.reserve(state, first, "node-a")
    second = pod("second", volumes=["two"])
    state2 = CycleState()
    plugin.pre_filter(state2, second, [])
    assert plugin.filter(state2, second, h.snapshot.get("node-a")) == NO_PV
    plugin.unreserve(state, first, "node-a")
    state3 = CycleState()
    plugin.pre_filter(state3, second, [])
    assert plugin.filter(state3, second, h.snapshot.get("node-a")) is None


def test_a_claim_shared_by_two_pods_follows_the_volume_the_first_one_reserved():
    h = static_env()
    first, second = pod("first", volumes=["data"]), pod("second", volumes=["data"])
    plugin, state, _ = cycle(h, first, "node-a")
    plugin.reserve(state, first, "node-a")
    state2 = CycleState()
    plugin.pre_filter(state2, second, [])
    # pv-a now points at the claim: it is the claim's only match, and only node-a can use it.
    assert plugin.filter(state2, second, h.snapshot.get("node-a")) is None
    assert plugin.filter(state2, second, h.snapshot.get("node-b")) == NO_PV
    assert plugin.reserve(state2, second, "node-a") is None
    assert plugin.describe(state2)["assumed"] == []  # nothing new to assume


def test_reserve_fails_when_the_chosen_volume_was_deleted():
    h = static_env()
    p = pod(volumes=["data"])
    plugin, state, _ = cycle(h, p, "node-a")
    del h.objects.pvs["pv-a"]
    assert plugin.reserve(state, p, "node-a") == Status.as_error(
        'could not find v1.PersistentVolume "pv-a"')
    assert plugin.describe(state)["assumed"] == []


def test_pre_bind_writes_the_static_binding_into_the_objects():
    h = static_env()
    p = pod(volumes=["data"])
    plugin, state, _ = cycle(h, p, "node-a")
    plugin.reserve(state, p, "node-a")
    assert plugin.pre_bind(state, p, "node-a") is None
    volume, claim = h.objects.pvs["pv-a"], h.objects.pvcs["default/data"]
    assert volume["spec"]["claimRef"]["name"] == "data"
    assert volume["status"]["phase"] == "Bound"
    assert volume["metadata"]["annotations"][st.ANN_BOUND_BY_CONTROLLER] == "yes"
    assert claim["spec"]["volumeName"] == "pv-a"
    assert claim["status"] == {"phase": "Bound", "capacity": {"storage": "10Gi"}}
    assert st.is_pvc_fully_bound(claim)
    assert h.objects.pvs["pv-b"].get("spec", {}).get("claimRef") is None
    assert plugin.describe(state)["bound"] == [{"pv": "pv-a", "pvc": "default/data"}]
    # The next pod using the claim finds it bound and pinned to node-a.
    again = pod("again", volumes=["data"])
    state2 = CycleState()
    plugin.pre_filter(state2, again, [])
    assert plugin.filter(state2, again, h.snapshot.get("node-b")) == \
        unresolvable(ERR_REASON_NODE_CONFLICT)
    assert plugin.reserve(state2, again, "node-a") is None  # nothing left to assume
    assert plugin.pre_bind(state2, again, "node-a") is None


def provisioning_env():
    return handle([node("node-a", **{ZONE: "zone-a"}), node("node-c", **{ZONE: "zone-c"})],
                  [pvc("scratch", "fast", request="1Gi", access_modes=["ReadWriteOnce"],
                       uid="1234")],
                  [], [PROVISIONING_SC])


def test_dynamic_provisioning_is_limited_by_allowed_topologies():
    h = provisioning_env()
    _, _, results = cycle(h, pod(volumes=["scratch"]), "node-a")
    assert results == {"node-a": None, "node-c": NO_PV}


def test_reserve_marks_the_claim_with_the_selected_node_and_unreserve_removes_it():
    h = provisioning_env()
    before = copy.deepcopy(h.objects.pvcs)
    p = pod(volumes=["scratch"])
    plugin, state, _ = cycle(h, p, "node-a")
    plugin.reserve(state, p, "node-a")
    cached = plugin.binder.pvc_cache.get("default/scratch")
    assert cached["metadata"]["annotations"][st.ANN_SELECTED_NODE] == "node-a"
    assert h.objects.pvcs == before
    plugin.unreserve(state, p, "node-a")
    assert plugin.binder.pvc_cache.get("default/scratch") == before["default/scratch"]
    assert state.read(DECISIONS_KEY)["reverted"] == [
        {"kind": "PersistentVolumeClaim", "name": "default/scratch", "selectedNode": "node-a"}]


def test_pre_bind_provisions_a_volume_for_the_claim():
    h = provisioning_env()
    p = pod(volumes=["scratch"])
    plugin, state, _ = cycle(h, p, "node-a")
    plugin.reserve(state, p, "node-a")
    assert plugin.pre_bind(state, p, "node-a") is None
    claim = h.objects.pvcs["default/scratch"]
    assert claim["metadata"]["annotations"][st.ANN_SELECTED_NODE] == "node-a"
    assert claim["spec"]["volumeName"] == "pvc-1234"
    volume = h.objects.pvs["pvc-1234"]
    assert volume["spec"]["claimRef"]["name"] == "scratch"
    assert volume["spec"]["csi"] == {"driver": "csi.example.com", "volumeHandle": "pvc-1234"}
    assert volume["spec"]["nodeAffinity"] == {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["zone-a"]}]}]}}
    assert volume["spec"]["capacity"] == {"storage": "1Gi"}
    assert volume["status"]["phase"] == "Bound"
    assert plugin.describe(state)["provisioned"] == [
        {"pvc": "default/scratch", "pv": "pvc-1234", "node": "node-a",
         "provisioner": "csi.example.com"}]


def test_a_claim_selected_for_another_node_keeps_other_nodes_out():
    h = provisioning_env()
    h.objects.pvcs["default/scratch"]["metadata"]["annotations"] = {
        st.ANN_SELECTED_NODE: "node-c"}
    plugin = new(default_args({}), h)
    state = CycleState()
    p = pod(volumes=["scratch"])
    plugin.pre_filter(state, p, [])
    assert plugin.filter(state, p, h.snapshot.get("node-a")) == NO_PV


def test_pre_bind_fails_when_the_volume_changed_after_reserve():
    h = static_env()
    p = pod(volumes=["data"])
    plugin, state, _ = cycle(h, p, "node-a")
    plugin.reserve(state, p, "node-a")
    h.objects.pvs["pv-a"]["metadata"]["labels"] = {"edited": "yes"}
    status = plugin.pre_bind(state, p, "node-a")
    assert status.code == Code.ERROR
    assert status.reasons == [('Operation cannot be fulfilled on persistentvolumes "pv-a": the '
                               'object has been modified; please apply your changes to the '
                               'latest version and try again')]
    assert "claimRef" not in h.objects.pvs["pv-a"]["spec"]


def test_pre_bind_without_filter_results_for_the_node_is_an_error():
    h = static_env()
    p = pod(volumes=["data"])
    plugin, state, _ = cycle(h, p, "node-a")
    assert plugin.pre_bind(state, p, "node-z") == Status.as_error('no pod volumes found for node '
                                                                  '"node-z"')


def test_pod_without_claims_is_all_bound_at_reserve():
    h = static_env()
    p = pod()
    plugin = new(default_args({}), h)
    state = CycleState()
    assert plugin.pre_filter(state, p, [])[1] == SKIP
    assert plugin.reserve(state, p, "node-a") is None
    assert plugin.pre_bind(state, p, "node-a") is None
    assert plugin.describe(state) == {"assumed": [], "reverted": [], "bound": [],
                                      "provisioned": []}


@pytest.mark.parametrize("volumes, pvcs, want", [
    pytest.param([ephemeral_volume("scratch")], [], unresolvable(
        'waiting for ephemeral volume controller to create the persistentvolumeclaim '
        '"pod-a-scratch"'), id="missing generic ephemeral claim waits for its controller"),
    pytest.param([ephemeral_volume("scratch")],
                 [pvc("pod-a-scratch", "wait-sc", owner_uid="someone-else")],
                 unresolvable("PVC default/pod-a-scratch was not created for pod default/pod-a "
                              "(pod is not owner)"), id="generic ephemeral claim of another owner"),
    pytest.param([ephemeral_volume("scratch")],
                 [pvc("pod-a-scratch", "wait-sc", owner_uid="default/pod-a")], None,
                 id="generic ephemeral claim owned by the pod"),
    pytest.param(["data"], [pvc("data", "wait-sc", deleting=True)],
                 unresolvable('persistentvolumeclaim "data" is being deleted'),
                 id="claim being deleted"),
    pytest.param(["data"], [pvc("data", "no-such-class")], unresolvable(ERR_UNBOUND_IMMEDIATE),
                 id="claim of a missing class is treated as immediate"),
    pytest.param(["data"], [pvc("data", "unset-mode")],
                 Status.as_error('VolumeBindingMode not set for StorageClass "unset-mode"'),
                 id="class without a binding mode is an error"),
    pytest.param(["data"], [pvc("data", "wait-sc", volume_name="pv-x")],
                 unresolvable(ERR_UNBOUND_IMMEDIATE),
                 id="prebound claim is left to the PV controller"),
])
def test_pre_filter_claim_checks(volumes, pvcs, want):
    h = handle([node("node-a")], pvcs, [], CLASSES + [storage_class("unset-mode", None)])
    plugin = new(default_args({}), h)
    assert plugin.pre_filter(CycleState(), pod(volumes=volumes), [])[1] == want


def test_events_to_register():
    plugin = new(default_args({}), handle())
    assert {"PvcAdd", "PvAdd", "StorageClassAdd", "NodeAdd", "CSINodeAdd"} <= \
        plugin.events_to_register()
