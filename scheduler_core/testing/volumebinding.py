"""Manifest builders for the volume plugins' tests (the makePV/makePVC helpers of Go's tests)."""
from __future__ import annotations

from ..features import DEFAULT_GATES, FeatureGates
from ..framework.handle import ClusterObjects, FakeHandle
from ..framework.snapshot import Snapshot
from ..plugins.volumebinding import storage as st
from . import make_node, make_pod, pod_info

HOSTNAME = "kubernetes.io/hostname"


def node(name: str, **labels) -> dict:
    """makeNode: a node labelled with its hostname (and any extra labels)."""
    return make_node(name, labels={HOSTNAME: name, **labels})


def affinity(key_values: dict[str, list[str]]) -> dict:
    """withNodeAffinity: one term requiring key In values for each key."""
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": k, "operator": "In", "values": list(v)} for k, v in key_values.items()]}]}}


def pv(name: str, class_name: str = "", capacity: str | None = None, phase: str | None = None,
       node_affinity: dict[str, list[str]] | None = None, labels: dict | None = None,
       claim: dict | None = None, source: dict | None = None, access_modes=None,
       volume_mode: str | None = None, annotations: dict | None = None) -> dict:
    obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
           "spec": {"storageClassName": class_name}}
    if labels:
        obj["metadata"]["labels"] = dict(labels)
    if annotations:
        obj["metadata"]["annotations"] = dict(annotations)
    if capacity is not None:
        obj["spec"]["capacity"] = {"storage": capacity}
    if node_affinity is not None:
        obj["spec"]["nodeAffinity"] = affinity(node_affinity)
    if claim is not None:
        obj["spec"]["claimRef"] = st.claim_reference(claim)
        obj["metadata"].setdefault("annotations", {})[st.ANN_BOUND_BY_CONTROLLER] = "yes"
    if source:
        obj["spec"].update(source)
    if access_modes:
        obj["spec"]["accessModes"] = list(access_modes)
    if volume_mode:
        obj["spec"]["volumeMode"] = volume_mode
    if phase:
        obj["status"] = {"phase": phase}
    return obj


def pvc(name: str, class_name: str | None = None, namespace: str = "default",
        volume_name: str = "", bound: bool = False, request: str | None = None,
        phase: str | None = None, selected_node: str | None = None, access_modes=None,
        uid: str | None = None, owner_uid: str | None = None, annotations: dict | None = None,
        deleting: bool = False) -> dict:
    """makePVC: bound=True is withBoundPV (volumeName plus the bind-completed annotation)."""
    obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": name, "namespace": namespace}, "spec": {}}
    ann = dict(annotations or {})
    if class_name is not None:
        obj["spec"]["storageClassName"] = class_name
    if volume_name:
        obj["spec"]["volumeName"] = volume_name
    if bound:
        ann[st.ANN_BIND_COMPLETED] = "yes"
    if selected_node is not None:
        ann[st.ANN_SELECTED_NODE] = selected_node
    if ann:
        obj["metadata"]["annotations"] = ann
    if request is not None:
        obj["spec"]["resources"] = {"requests": {"storage": request}}
    if access_modes:
        obj["spec"]["accessModes"] = list(access_modes)
    if uid:
        obj["metadata"]["uid"] = uid
    if owner_uid is not None:
        obj["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "owner",
                                               "uid": owner_uid, "controller": True}]
    if phase:
        obj["status"] = {"phase": phase}
    if deleting:
        obj["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return obj


def storage_class(name: str, mode: str | None = st.WAIT_FOR_FIRST_CONSUMER,
                  provisioner: str | None = None, allowed_topologies=None) -> dict:
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name}}
    if mode is not None:
        obj["volumeBindingMode"] = mode
    if provisioner is not None:
        obj["provisioner"] = provisioner
    if allowed_topologies is not None:
        obj["allowedTopologies"] = allowed_topologies
    return obj


def csinode(name: str, drivers: dict[str, int | None] | None = None,
            migrated: str | None = None) -> dict:
    """A CSINode with driver -> allocatable count (None: the driver reports no limit)."""
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
           "spec": {"drivers": []}}
    for driver, count in (drivers or {}).items():
        entry = {"name": driver, "nodeID": name}
        if count is not None:
            entry["allocatable"] = {"count": count}
        obj["spec"]["drivers"].append(entry)
    if migrated is not None:
        obj["metadata"]["annotations"] = {st.MIGRATED_PLUGINS_ANNOTATION: migrated}
    return obj


def pvc_volume(claim: str, name: str = "") -> dict:
    return {"name": name, "persistentVolumeClaim": {"claimName": claim}}


def ephemeral_volume(name: str) -> dict:
    return {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}


def pod(name: str = "pod-a", namespace: str = "default", volumes=None, node_name=None,
        uid: str | None = None):
    """A PodInfo with the given volumes (claim names become persistentVolumeClaim volumes)."""
    vols = [pvc_volume(v) if isinstance(v, str) else v for v in volumes or []]
    manifest = make_pod(name, namespace=namespace, node_name=node_name, volumes=vols)
    if uid is not None:
        manifest["metadata"]["uid"] = uid
    return pod_info(manifest)


def handle(nodes=(), pvcs=(), pvs=(), classes=(), csinodes=(), pods=(), extra=None,
           features: FeatureGates = DEFAULT_GATES) -> FakeHandle:
    """A FakeHandle over the nodes (with the assigned PodInfos) and the storage objects, with
    the release and gates plugins read from `handle.features`, as in a real run."""
    objects = ClusterObjects()
    objects.pvcs = {st.claim_key(c): c for c in pvcs}
    objects.pvs = {p["metadata"]["name"]: p for p in pvs}
    objects.storage_classes = {c["metadata"]["name"]: c for c in classes}
    objects.csinodes = {c["metadata"]["name"]: c for c in csinodes}
    objects.extra = dict(extra or {})
    return FakeHandle(Snapshot.from_objects(list(nodes), list(pods)), objects,
                      features=features)
