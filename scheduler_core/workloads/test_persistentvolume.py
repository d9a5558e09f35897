"""The PV controller's binding of claims: findBestMatchForClaim's cases (index_test.go's
TestMatchVolume and TestFindingPreboundVolumes) and syncUnboundClaim's outcomes."""
from __future__ import annotations

import pytest

from scheduler_core.framework.handle import ClusterObjects
from scheduler_core.plugins.volumebinding import storage as st
from scheduler_core.simulate import simulate
from scheduler_core.workloads import persistentvolume as pvc_controller


def pv(name, size, cls="", modes=("ReadWriteOnce",), labels=None, claim=None, phase=None,
       mode=None):
    obj = {"apiVersion": "v1", "kind": "PersistentVolume",
           "metadata": {"name": name, "labels": dict(labels or {})},
           "spec": {"capacity": {"storage": size}, "accessModes": list(modes),
                    "storageClassName": cls, "hostPath": {"path": "/x"}}}
    if claim:
        obj["spec"]["claimRef"] = {"namespace": "default", "name": claim}
    if phase:
        obj["status"] = {"phase": phase}
    if mode:
        obj["spec"]["volumeMode"] = mode
    return obj


def claim(name, size, cls="", modes=("ReadWriteOnce",), selector=None, volume=None, mode=None):
    spec = {"accessModes": list(modes), "resources": {"requests": {"storage": size}},
            "storageClassName": cls}
    if selector:
        spec["selector"] = selector
    if volume:
        spec["volumeName"] = volume
    if mode:
        spec["volumeMode"] = mode
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


VOLUMES = [
    pv("gce-1", "1G", modes=("ReadWriteOnce", "ReadOnlyMany")),
    pv("gce-5", "5G", modes=("ReadWriteOnce", "ReadOnlyMany")),
    pv("nfs-5", "5G", modes=("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")),
    pv("nfs-10", "10G", modes=("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")),
    pv("gold-10", "10G", cls="gold", labels={"tier": "gold"}),
    pv("ebs-20", "20G"),
]


@pytest.mark.parametrize("pvc, expected", [
    pytest.param(claim("c", "1G"), "ebs-20",
                 id="a one-mode claim takes a volume of the fewest modes, however large"),
    pytest.param(claim("c", "3G", modes=("ReadWriteOnce", "ReadOnlyMany")), "gce-5",
                 id="the smallest volume of the closest mode set that fits"),
    pytest.param(claim("c", "6G", modes=("ReadWriteMany",)), "nfs-10",
                 id="only the sets that offer every requested mode are searched"),
    pytest.param(claim("c", "100G"), None, id="nothing is large enough"),
    pytest.param(claim("c", "1G", cls="gold"), "gold-10", id="the class must match"),
    pytest.param(claim("c", "1G", cls="gold", selector={"matchLabels": {"tier": "silver"}}),
                 None, id="the selector must match the volume's labels"),
    pytest.param(claim("c", "1G", mode="Block"), None, id="the volume modes must agree"),
])
def test_find_best_match(pvc, expected):
    found = pvc_controller.find_best_match(pvc, VOLUMES, delay_binding=False)
    assert (found["metadata"]["name"] if found else None) == expected


def test_a_volume_pre_bound_to_the_claim_wins_over_a_smaller_one():
    volumes = [pv("small", "1G"), pv("big", "10G", claim="c")]
    assert pvc_controller.find_best_match(claim("c", "1G"), volumes, False)["metadata"][
        "name"] == "big"


def test_volumes_pre_bound_to_other_claims_and_released_ones_are_skipped():
    volumes = [pv("theirs", "1G", claim="other"), pv("released", "1G", phase="Released")]
    assert pvc_controller.find_best_match(claim("c", "1G"), volumes, False) is None


def _objects(claims, volumes, classes=()):
    objects = ClusterObjects()
    for c in claims:
        objects.pvcs[f"default/{c['metadata']['name']}"] = c
    for v in volumes:
        objects.pvs[v["metadata"]["name"]] = v
    for sc in classes:
        objects.storage_classes[sc["metadata"]["name"]] = sc
    return objects


def test_binding_writes_what_the_controller_writes_on_both_sides():
    c, v = claim("c", "3Gi", cls="manual"), pv("v", "10Gi", cls="manual")
    bound, waiting = pvc_controller.sync_claims(_objects([c], [v]))
    assert bound == [(c, v) ] and waiting == []
    assert v["spec"]["claimRef"] == {"kind": "PersistentVolumeClaim", "namespace": "default",
                                     "name": "c", "apiVersion": "v1"}
    assert v["status"] == {"phase": "Bound"}
    assert v["metadata"]["annotations"] == {st.ANN_BOUND_BY_CONTROLLER: "yes"}
    assert c["spec"]["volumeName"] == "v"
    assert c["metadata"]["annotations"] == {st.ANN_BOUND_BY_CONTROLLER: "yes",
                                            st.ANN_BIND_COMPLETED: "yes"}
    assert c["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"],
                           "capacity": {"storage": "10Gi"}}
    assert st.is_pvc_fully_bound(c)


def test_two_claims_do_not_get_the_same_volume():
    a, b = claim("a", "1G"), claim("b", "1G")
    bound, _ = pvc_controller.sync_claims(_objects([a, b], [pv("v", "5G")]))
    assert [x["metadata"]["name"] for x, _ in bound] == ["a"]
    assert "volumeName" not in b["spec"]


def test_a_claim_naming_a_free_volume_that_satisfies_it_is_bound_to_it():
    c = claim("c", "1G", volume="v")
    bound, _ = pvc_controller.sync_claims(_objects([c], [pv("v", "5G"), pv("w", "1G")]))
    assert [v["metadata"]["name"] for _, v in bound] == ["v"]
    assert st.ANN_BOUND_BY_CONTROLLER not in c["metadata"]["annotations"]


def test_a_claim_naming_a_volume_too_small_stays_pending():
    c = claim("c", "10G", volume="v")
    assert pvc_controller.sync_claims(_objects([c], [pv("v", "5G")])) == ([], [])


def test_a_wait_for_first_consumer_claim_is_left_to_the_scheduler():
    sc = {"metadata": {"name": "local"}, "provisioner": st.NOT_SUPPORTED_PROVISIONER,
          "volumeBindingMode": "WaitForFirstConsumer"}
    c = claim("c", "1G", cls="local")
    assert pvc_controller.sync_claims(_objects([c], [pv("v", "5G", cls="local")], [sc])) == \
        ([], [])


def test_an_immediate_claim_of_a_provisioning_class_without_a_volume_is_reported():
    sc = {"metadata": {"name": "fast"}, "provisioner": "ebs.csi.aws.com",
          "volumeBindingMode": "Immediate"}
    c = claim("c", "1G", cls="fast")
    bound, waiting = pvc_controller.sync_claims(_objects([c], [], [sc]))
    assert bound == [] and waiting == [(c, "no PersistentVolume matches and the playground runs "
                                           "no provisioner for 'ebs.csi.aws.com' (StorageClass "
                                           "fast): the claim stays Pending")]


@pytest.mark.parametrize("modes, key", [
    (["ReadWriteMany", "ReadWriteOnce"], "RWO,RWX"),
    (["ReadOnlyMany", "ReadWriteOncePod", "ReadOnlyMany"], "ROX,RWOP"),
    ([], ""),
])
def test_access_modes_index_keys_follow_get_access_modes_as_string(modes, key):
    assert pvc_controller.access_modes_key(modes) == key


TIMELINE_CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers: [{name: c, image: nginx}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
---
apiVersion: playground.k8s.local/v1
kind: Timeline
metadata: {name: add-volume}
spec:
  steps:
  - at: 30
    action: Create
    object:
      apiVersion: v1
      kind: PersistentVolume
      metadata: {name: late}
      spec:
        accessModes: [ReadWriteOnce]
        capacity: {storage: 5Gi}
        storageClassName: manual
        hostPath: {path: /data}
"""


def test_a_volume_created_during_the_run_is_bound_and_the_waiting_pod_scheduled(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(TIMELINE_CLUSTER)
    result = simulate([str(path)], seed=1)
    assert result.scheduler.bindings == {"default/app": "n1"}
    assert result.scheduler.cluster.objects.pvcs["default/data"]["spec"]["volumeName"] == "late"
    cycles = result.to_json()["cycles"]
    assert cycles[0]["outcome"] == "Unschedulable" and cycles[-1]["time"] >= 30
