"""The volume binder, ported from binder_test.go (FindPodVolumes with and without provisioning,
CSI migration, AssumePodVolumes, RevertAssumedPodVolumes, FindAssumeVolumes, Capacity)."""
import copy

import pytest

from scheduler_core.plugins.volumebinding import storage as st
from scheduler_core.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BindingInfo,
    PodVolumes,
    VolumeBinder,
)
from scheduler_core.testing import make_node
from scheduler_core.testing.volumebinding import (
    csinode,
    ephemeral_volume,
    handle,
    pod,
    pv,
    pvc,
    storage_class,
)

NODE_KEY = "nodeKey"
PROVISIONER = "test-provisioner"
NS = "testns"
WAIT, IMMEDIATE, WAIT_PROV, TOPO_MISMATCH = ("waitClass", "immediateClass",
                                             "waitClassWithProvisioner", "topoMismatchClass")
CLASSES = [
    storage_class(WAIT_PROV, provisioner=PROVISIONER, allowed_topologies=[
        {"matchLabelExpressions": [{"key": NODE_KEY, "values": ["node1", "reference-value"]}]}]),
    storage_class(IMMEDIATE, "Immediate"),
    storage_class(WAIT, provisioner=st.NOT_SUPPORTED_PROVISIONER),
    storage_class(TOPO_MISMATCH, provisioner=PROVISIONER, allowed_topologies=[
        {"matchLabelExpressions": [{"key": NODE_KEY, "values": ["reference-value"]}]}]),
]


def claim(name, size, cls, volume_name="", bound=False, selected_node=None):
    """makeTestPVC: pvcUnbound, pvcPrebound (volume name only), pvcBound, pvcSelectedNode."""
    return pvc(name, cls, namespace=NS, volume_name=volume_name, bound=bound, request=size,
               selected_node=selected_node, uid="pvc-uid")


def volume(name, node, capacity, bound_to=None, cls=WAIT):
    """makeTestPV: an Available volume on a node (by nodeKey), optionally bound to a claim."""
    return pv(name, cls, capacity=capacity, phase="Available", claim=bound_to,
              node_affinity={NODE_KEY: [node]} if node else None)


UNBOUND = claim("unbound-pvc", "1G", WAIT)
UNBOUND2 = claim("unbound-pvc2", "5G", WAIT)
PREBOUND = claim("prebound-pvc", "1G", WAIT, volume_name="pv-node1a")
BOUND = claim("bound-pvc", "1G", WAIT, volume_name="pv-bound", bound=True)
IMMEDIATE_UNBOUND = claim("immediate-unbound-pvc", "1G", IMMEDIATE)
IMMEDIATE_BOUND = claim("immediate-bound-pvc", "1G", IMMEDIATE, volume_name="pv-bound-immediate",
                        bound=True)
PROVISIONED = claim("provisioned-pvc", "1Gi", WAIT_PROV)
PROVISIONED2 = claim("provisioned-pvc2", "1Gi", WAIT_PROV)
NO_PROVISIONER = claim("no-provisioner-pvc", "1Gi", WAIT)
TOPO_MISMATCH_PVC = claim("topo-mismatch-pvc", "1Gi", TOPO_MISMATCH)
SELECTED_NODE = claim("provisioned-pvc", "1Gi", WAIT_PROV, selected_node="node1")

PV_NODE1A = volume("pv-node1a", "node1", "5G")
PV_NODE1B = volume("pv-node1b", "node1", "10G")
PV_NODE1C = volume("pv-node1c", "node1", "5G")
PV_NODE2 = volume("pv-node2", "node2", "1G")
PV_BOUND = volume("pv-bound", "node1", "1G", BOUND)
PV_NODE1A_BOUND = volume("pv-node1a", "node1", "5G", UNBOUND)
PV_NODE1B_BOUND = volume("pv-node1b", "node1", "10G", UNBOUND2)
PV_BOUND_IMMEDIATE = volume("pv-bound-immediate", "node1", "1G", IMMEDIATE_BOUND, IMMEDIATE)
PV_BOUND_IMMEDIATE_NODE2 = volume("pv-bound-immediate", "node2", "1G", IMMEDIATE_BOUND, IMMEDIATE)

GENERIC_POD_UID = "testns/test-pod"
CORRECT_GENERIC = pvc("test-pod-test-volume", IMMEDIATE, namespace=NS, volume_name="pv-bound",
                      bound=True, request="1G", owner_uid=GENERIC_POD_UID)
CONFLICTING_GENERIC = pvc("test-pod-test-volume", IMMEDIATE, namespace=NS,
                          volume_name="pv-bound", bound=True, request="1G")
PV_BOUND_GENERIC = volume("pv-bound", "node1", "1G", CORRECT_GENERIC)

NODE1 = make_node("node1", labels={NODE_KEY: "node1"})


def make_test_pod(claims=(), volumes=None):
    volumes = volumes if volumes is not None else [c["metadata"]["name"] for c in claims]
    return pod("test-pod", NS, volumes=volumes)


def binder_for(pvcs=(), pvs=(), nodes=(NODE1,), csinodes=(), extra=None):
    h = handle(nodes, copy.deepcopy(list(pvcs)), copy.deepcopy(list(pvs)), CLASSES, csinodes,
               extra=extra)
    return VolumeBinder(h, 10), h


def find_pod_volumes(binder, p, node_info):
    """The findPodVolumes test helper: sort the claims, refuse unbound immediate ones, match."""
    claims, err = binder.get_pod_volume_claims(p)
    if err:
        return None, [], err
    if claims.unbound_claims_immediate:
        return None, [], "pod has unbound immediate PersistentVolumeClaims"
    return binder.find_pod_volumes(p, claims, node_info)


def names(bindings):
    return [(b.pvc["metadata"]["name"], b.pv["metadata"]["name"]) for b in bindings]


# name: (pod claims, cached claims (None: the pod's), pvs, pod volumes (None: its claims),
#        expected bindings, expected reasons, should fail)
WITHOUT_PROVISIONING = [
    pytest.param([], None, [], [], [], [], False, id="no volumes"),
    pytest.param([], None, [], [{"name": "e", "emptyDir": {}}], [], [], False, id="no pvcs"),
    pytest.param([BOUND], [], [], None, [], [], True, id="pvc not found"),
    pytest.param([BOUND], None, [PV_BOUND], None, [], [], False, id="bound pvc"),
    pytest.param([BOUND], None, [], None, [], [ERR_REASON_PV_NOT_EXIST], False,
                 id="bound pvc whose pv does not exist"),
    pytest.param([PREBOUND], None, [PV_NODE1A_BOUND], None, [], [], True, id="prebound pvc"),
    pytest.param([UNBOUND], None, [PV_NODE2, PV_NODE1A, PV_NODE1B], None,
                 [("unbound-pvc", "pv-node1a")], [], False,
                 id="unbound pvc with a pv on the same node"),
    pytest.param([UNBOUND], None, [PV_NODE2], None, [], [ERR_REASON_BIND_CONFLICT], False,
                 id="unbound pvc with a pv on a different node"),
    pytest.param([UNBOUND, UNBOUND2], None, [PV_NODE1A, PV_NODE1B], None,
                 [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [], False,
                 id="two unbound pvcs"),
    pytest.param([UNBOUND2, UNBOUND], None, [PV_NODE1A, PV_NODE1B], None,
                 [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [], False,
                 id="two unbound pvcs are matched smallest first"),
    pytest.param([UNBOUND, UNBOUND2], None, [PV_NODE1A], None, [("unbound-pvc", "pv-node1a")],
                 [ERR_REASON_BIND_CONFLICT], False, id="two unbound pvcs with a partial match"),
    pytest.param([UNBOUND, BOUND], None, [PV_BOUND, PV_NODE1A], None,
                 [("unbound-pvc", "pv-node1a")], [], False, id="one bound and one unbound"),
    pytest.param([UNBOUND, BOUND], None, [PV_BOUND, PV_NODE2], None, [],
                 [ERR_REASON_BIND_CONFLICT], False, id="one bound and one unbound with no match"),
    pytest.param([UNBOUND, PREBOUND], None, [PV_NODE1A, PV_NODE1B], None, [], [], True,
                 id="one prebound and one unbound"),
    pytest.param([IMMEDIATE_BOUND], None, [PV_BOUND_IMMEDIATE], None, [], [], False,
                 id="immediate bound pvc"),
    pytest.param([IMMEDIATE_BOUND], None, [PV_BOUND_IMMEDIATE_NODE2], None, [],
                 [ERR_REASON_NODE_CONFLICT], False, id="immediate bound pvc on the wrong node"),
    pytest.param([IMMEDIATE_UNBOUND], None, [], None, [], [], True, id="immediate unbound pvc"),
    pytest.param([IMMEDIATE_UNBOUND, BOUND], None, [PV_BOUND], None, [], [], True,
                 id="immediate unbound pvc with a delayed mode bound one"),
    pytest.param([IMMEDIATE_UNBOUND, UNBOUND], None, [], None, [], [], True,
                 id="immediate unbound pvc with a delayed mode unbound one"),
    pytest.param([], None, [], [ephemeral_volume("no-such-pvc")], [], [], True,
                 id="generic ephemeral volume without its pvc"),
    pytest.param([], [CORRECT_GENERIC], [PV_BOUND_GENERIC], [ephemeral_volume("test-volume")],
                 [], [], False, id="generic ephemeral volume with its pvc"),
    pytest.param([], [CONFLICTING_GENERIC], [PV_BOUND_GENERIC], [ephemeral_volume("test-volume")],
                 [], [], True, id="generic ephemeral volume with a pvc it does not own"),
]


@pytest.mark.parametrize("pod_claims, cached, pvs, volumes, want_bindings, want_reasons, "
                         "should_fail", WITHOUT_PROVISIONING)
def test_find_pod_volumes_without_provisioning(pod_claims, cached, pvs, volumes, want_bindings,
                                               want_reasons, should_fail):
    binder, h = binder_for(pod_claims if cached is None else cached, pvs)
    p = make_test_pod(pod_claims, volumes)
    p.obj["metadata"]["uid"] = GENERIC_POD_UID
    result, reasons, err = find_pod_volumes(binder, p, h.snapshot.get("node1"))
    assert (err is not None) == should_fail
    assert sorted(reasons) == sorted(want_reasons)
    if result is not None:
        assert names(result.static_bindings) == want_bindings
        assert result.dynamic_provisions == []


# (pod claims, pvs, expected bindings, expected provisions, reasons, should fail, needs capacity)
WITH_PROVISIONING = [
    pytest.param([PROVISIONED], [], [], ["provisioned-pvc"], [], False, True,
                 id="one provisioned"),
    pytest.param([UNBOUND, PROVISIONED], [PV_NODE1A], [("unbound-pvc", "pv-node1a")],
                 ["provisioned-pvc"], [], False, True,
                 id="two unbound pvcs with one matched and one provisioned"),
    pytest.param([BOUND, PROVISIONED], [PV_BOUND], [], ["provisioned-pvc"], [], False, True,
                 id="one bound and one provisioned"),
    pytest.param([BOUND, SELECTED_NODE], [PV_BOUND], [], ["provisioned-pvc"], [], False, True,
                 id="one bound and one with a selected node"),
    pytest.param([IMMEDIATE_UNBOUND], [], [], [], [], True, False, id="immediate unbound pvc"),
    pytest.param([IMMEDIATE_BOUND, PROVISIONED], [PV_BOUND_IMMEDIATE], [], ["provisioned-pvc"],
                 [], False, True, id="one immediate bound and one provisioned"),
    pytest.param([NO_PROVISIONER], [], [], [], [ERR_REASON_BIND_CONFLICT], False, False,
                 id="class without a provisioner"),
    pytest.param([TOPO_MISMATCH_PVC], [], [], [], [ERR_REASON_BIND_CONFLICT], False, False,
                 id="volume topology unsatisfied"),
]

CSI_DRIVERS = [
    pytest.param(None, id="no CSIDriver"),
    pytest.param(True, id="CSIDriver with capacity tracking"),
    pytest.param(False, id="CSIDriver without capacity tracking"),
]


def csi_driver(capacity_tracking):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
            "metadata": {"name": PROVISIONER}, "spec": {"storageCapacity": capacity_tracking}}


@pytest.mark.parametrize("tracking", CSI_DRIVERS)
@pytest.mark.parametrize("pod_claims, pvs, want_bindings, want_provisions, want_reasons, "
                         "should_fail, needs_capacity", WITH_PROVISIONING)
def test_find_pod_volumes_with_provisioning(pod_claims, pvs, want_bindings, want_provisions,
                                            want_reasons, should_fail, needs_capacity, tracking):
    extra = {} if tracking is None else {"CSIDriver": [csi_driver(tracking)]}
    binder, h = binder_for(pod_claims, pvs, extra=extra)
    node = h.snapshot.get("node1")
    result, reasons, err = find_pod_volumes(binder, make_test_pod(pod_claims), node)
    assert (err is not None) == should_fail
    if needs_capacity and tracking:
        # Without CSIStorageCapacity objects, provisioning is blocked.
        want_reasons, want_provisions = want_reasons + [ERR_REASON_NOT_ENOUGH_SPACE], []
    assert sorted(reasons) == sorted(want_reasons)
    if result is not None:
        assert names(result.static_bindings) == want_bindings
        assert [c["metadata"]["name"] for c in result.dynamic_provisions] == want_provisions


MIGRATION_ZONE_KEY = "topology.gke.io/zone"
BOUND_MIGRATION = claim("pvc-migration-bound", "1G", WAIT, volume_name="pv-migration-bound",
                        bound=True)
MIGRATION_PV = pv("pv-migration-bound", WAIT, capacity="1G", phase="Available",
                  claim=BOUND_MIGRATION,
                  labels={st.ZONE_BETA: "us-east-1", st.REGION_BETA: "us-east-1a"},
                  source={"gcePersistentDisk": {"pdName": "test-disk", "fsType": "ext4"}})


@pytest.mark.parametrize("node_zone, migrated, want_reasons", [
    pytest.param("us-east-1", "kubernetes.io/gce-pd", [], id="bound pvc"),
    pytest.param("us-east-1", "", [], id="bound pvc on a csinode that did not migrate"),
    pytest.param("us-east-1", None, [], id="bound pvc without a csinode"),
    pytest.param("us-east-2", "kubernetes.io/gce-pd", [ERR_REASON_NODE_CONFLICT],
                 id="bound pvc on a node in a different zone"),
])
def test_find_pod_volumes_with_csi_migration(node_zone, migrated, want_reasons):
    node1 = make_node("node1", labels={MIGRATION_ZONE_KEY: node_zone})
    csinodes = [] if migrated is None else [csinode("node1", migrated=migrated)]
    binder, h = binder_for([BOUND_MIGRATION], [MIGRATION_PV], [node1], csinodes)
    _, reasons, err = find_pod_volumes(binder, make_test_pod([BOUND_MIGRATION]),
                                       h.snapshot.get("node1"))
    assert err is None
    assert reasons == want_reasons


def binding(claim_obj, volume_obj):
    return BindingInfo(copy.deepcopy(claim_obj), copy.deepcopy(volume_obj))


# (pod claims, pvs, bindings, provisions, should fail, all bound, expected bound volumes)
ASSUME = [
    pytest.param([BOUND], [PV_BOUND], [], [], False, True, [], id="all bound"),
    pytest.param([UNBOUND], [PV_NODE1A], [binding(UNBOUND, PV_NODE1A)], [], False, False,
                 [("pv-node1a", "unbound-pvc")], id="one binding"),
    pytest.param([UNBOUND, UNBOUND2], [PV_NODE1A, PV_NODE1B],
                 [binding(UNBOUND, PV_NODE1A), binding(UNBOUND2, PV_NODE1B)], [], False, False,
                 [("pv-node1a", "unbound-pvc"), ("pv-node1b", "unbound-pvc2")],
                 id="two bindings"),
    pytest.param([UNBOUND], [PV_NODE1A_BOUND], [binding(UNBOUND, PV_NODE1A_BOUND)], [], False,
                 False, [("pv-node1a", "unbound-pvc")], id="pv already bound"),
    pytest.param([UNBOUND], [PV_NODE1A],
                 [binding(UNBOUND, PV_NODE1A), binding(UNBOUND2, PV_NODE1B)], [], True, False,
                 [], id="assuming a volume missing from the cache fails and restores the cache"),
    pytest.param([UNBOUND, PROVISIONED], [PV_NODE1A], [binding(UNBOUND, PV_NODE1A)],
                 [PROVISIONED], False, False, [("pv-node1a", "unbound-pvc")],
                 id="one binding and one claim provisioned"),
]


@pytest.mark.parametrize("pod_claims, pvs, bindings, provisions, should_fail, want_all_bound, "
                         "want_bound", ASSUME)
def test_assume_pod_volumes(pod_claims, pvs, bindings, provisions, should_fail, want_all_bound,
                            want_bound):
    binder, _ = binder_for(pod_claims, pvs)
    volumes = PodVolumes(copy.deepcopy(bindings), copy.deepcopy(provisions))
    all_bound, _, err = binder.assume_pod_volumes(make_test_pod(pod_claims), "node1", volumes)
    assert (err is not None) == should_fail
    assert all_bound == want_all_bound
    if should_fail:
        # validateCacheRestored: nothing stays assumed.
        for b in bindings:
            assert not binder.pv_cache.is_assumed(b.pv["metadata"]["name"])
        return
    for pv_name, claim_name in want_bound:
        ref = binder.pv_cache.get(pv_name)["spec"]["claimRef"]
        assert (ref["name"], ref["namespace"]) == (claim_name, NS)
    for c in provisions:
        cached = binder.pvc_cache.get(st.claim_key(c))
        assert st.annotations(cached)[st.ANN_SELECTED_NODE] == "node1"


def test_revert_assumed_pod_volumes():
    binder, _ = binder_for([UNBOUND, PROVISIONED], [PV_NODE1A])
    volumes = PodVolumes([binding(UNBOUND, PV_NODE1A)], [copy.deepcopy(PROVISIONED)])
    all_bound, _, err = binder.assume_pod_volumes(make_test_pod([UNBOUND, PROVISIONED]), "node1",
                                                  volumes)
    assert (all_bound, err) == (False, None)
    assert binder.pv_cache.get("pv-node1a")["spec"]["claimRef"]["name"] == "unbound-pvc"
    binder.revert_assumed(volumes)
    assert binder.pv_cache.get("pv-node1a") == binder.pv_cache.get_api("pv-node1a")
    assert "claimRef" not in binder.pv_cache.get("pv-node1a")["spec"]
    assert st.ANN_SELECTED_NODE not in st.annotations(
        binder.pvc_cache.get(st.claim_key(PROVISIONED)))


def test_find_assume_volumes_keeps_choosing_the_assumed_volume():
    binder, h = binder_for([UNBOUND], [PV_NODE2, PV_NODE1A, PV_NODE1C])
    p = make_test_pod([UNBOUND])
    node1 = h.snapshot.get("node1")
    volumes, reasons, err = find_pod_volumes(binder, p, node1)
    assert (reasons, err) == ([], None)
    all_bound, _, err = binder.assume_pod_volumes(p, "node1", volumes)
    assert (all_bound, err) == (False, None)
    expected = names(volumes.static_bindings)
    for _ in range(5):
        again, reasons, err = find_pod_volumes(binder, p, node1)
        assert (reasons, err) == ([], None)
        assert names(again.static_bindings) == expected


NODE2 = make_node("node2", labels={NODE_KEY: "node2"})


def capacity(name, cls, node, size="", maximum=""):
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
           "metadata": {"name": name}, "storageClassName": cls, "nodeTopology": {}}
    if node is not None:
        obj["nodeTopology"]["matchLabels"] = {NODE_KEY: node["metadata"]["labels"][NODE_KEY]}
    if size:
        obj["capacity"] = size
    if maximum:
        obj["maximumVolumeSize"] = maximum
    return obj


@pytest.mark.parametrize("capacities, want_reasons", [
    pytest.param([capacity("net", WAIT_PROV, None, "1Gi")], [], id="network attached"),
    pytest.param([capacity("net", WAIT_PROV, NODE1, "1Gi")], [], id="local storage"),
    pytest.param([capacity("net", WAIT_PROV, None, "1Gi"), capacity("net", WAIT_PROV, NODE2, "1Gi"),
                  capacity("net", WAIT_PROV, NODE1, "1Gi")], [], id="multiple"),
    pytest.param([], [ERR_REASON_NOT_ENOUGH_SPACE], id="no storage"),
    pytest.param([capacity("net", WAIT_PROV, NODE2, "1Gi")], [ERR_REASON_NOT_ENOUGH_SPACE],
                 id="wrong node"),
    pytest.param([capacity("net", WAIT, NODE1, "1Gi")], [ERR_REASON_NOT_ENOUGH_SPACE],
                 id="wrong storage class"),
    pytest.param([capacity("net", WAIT_PROV, NODE1, "1Mi")], [ERR_REASON_NOT_ENOUGH_SPACE],
                 id="insufficient storage"),
    pytest.param([capacity("net", WAIT_PROV, NODE1, "1Gi", "1Mi")],
                 [ERR_REASON_NOT_ENOUGH_SPACE], id="insufficient volume size"),
    pytest.param([capacity("net", WAIT_PROV, NODE1, "0Mi")], [ERR_REASON_NOT_ENOUGH_SPACE],
                 id="zero storage"),
    pytest.param([capacity("net", WAIT_PROV, NODE1, "", "0Mi")], [ERR_REASON_NOT_ENOUGH_SPACE],
                 id="zero volume size"),
    pytest.param([capacity("net", WAIT_PROV, NODE1)], [ERR_REASON_NOT_ENOUGH_SPACE],
                 id="nil storage"),
])
def test_capacity(capacities, want_reasons):
    extra = {"CSIDriver": [csi_driver(True)], "CSIStorageCapacity": capacities}
    binder, h = binder_for([PROVISIONED], [], [NODE1, NODE2], extra=extra)
    result, reasons, err = find_pod_volumes(binder, make_test_pod([PROVISIONED]),
                                            h.snapshot.get("node1"))
    assert err is None
    assert reasons == want_reasons
    want_provisions = [] if want_reasons else ["provisioned-pvc"]
    assert [c["metadata"]["name"] for c in result.dynamic_provisions] == want_provisions


@pytest.mark.parametrize("claim_obj, volumes, want", [
    pytest.param(pvc("c", "x", request="1Gi"), [pv("small", "x", "500Mi"), pv("big", "x", "2Gi"),
                                                pv("fit", "x", "1Gi")], "fit",
                 id="the smallest volume that fits wins"),
    pytest.param(pvc("c", "x", request="1Gi"), [pv("other", "y", "1Gi")], None,
                 id="volumes of another class never match"),
    pytest.param(pvc("c", "x", request="1Gi"), [pv("gone", "x", "1Gi", phase="Released")], None,
                 id="volumes that are not available are skipped"),
    pytest.param(pvc("c", "x", request="1Gi", access_modes=["ReadWriteMany"]),
                 [pv("rwo", "x", "1Gi", access_modes=["ReadWriteOnce"])], None,
                 id="volumes without the requested access modes are skipped"),
    pytest.param(pvc("c", "x", request="1Gi"), [pv("blk", "x", "1Gi", volume_mode="Block")], None,
                 id="volume mode mismatches are skipped"),
    pytest.param(pvc("c", "x", request="1Gi"),
                 [pv("big", "x", "5Gi"), pv("taken", "x", "9Gi", claim=pvc("c", "x"))], "taken",
                 id="a volume pre-bound to the claim wins over a smaller one"),
    pytest.param(pvc("c", "x", request="1Gi"), [pv("theirs", "x", "1Gi", claim=pvc("d", "x"))],
                 None, id="volumes bound to another claim are skipped"),
])
def test_find_matching_volume(claim_obj, volumes, want):
    found, err = st.find_matching_volume(claim_obj, volumes, {}, {}, True)
    assert err is None
    assert (found["metadata"]["name"] if found else None) == want


def test_find_matching_volume_honours_the_claim_selector():
    claim_obj = pvc("c", "x", request="1Gi")
    claim_obj["spec"]["selector"] = {"matchLabels": {"tier": "gold"}}
    volumes = [pv("plain", "x", "1Gi"), pv("gold", "x", "2Gi", labels={"tier": "gold"})]
    found, _ = st.find_matching_volume(claim_obj, volumes, {}, {}, True)
    assert found["metadata"]["name"] == "gold"
