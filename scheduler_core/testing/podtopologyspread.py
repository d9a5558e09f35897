"""Builders for the PodTopologySpread tests, shaped like kube-scheduler's st.MakePod/MakeNode."""
from __future__ import annotations

from ..framework.handle import ClusterObjects, FakeHandle
from ..framework.snapshot import Snapshot
from ..plugins.podtopologyspread import default_args, new
from . import make_node, make_pod, pod_info

DNS = "DoNotSchedule"
SA = "ScheduleAnyway"
HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
HONOR = "Honor"
IGNORE = "Ignore"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
TAINTS = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]


def sc(max_skew, key, when, selector, min_domains=None, affinity_policy=None,
       taints_policy=None, match_label_keys=None) -> dict:
    """st.PodWrapper.SpreadConstraint: a v1.TopologySpreadConstraint manifest."""
    c = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        c["labelSelector"] = selector
    if min_domains is not None:
        c["minDomains"] = min_domains
    if affinity_policy is not None:
        c["nodeAffinityPolicy"] = affinity_policy
    if taints_policy is not None:
        c["nodeTaintsPolicy"] = taints_policy
    if match_label_keys is not None:
        c["matchLabelKeys"] = list(match_label_keys)
    return c


def pod(labels=None, *constraints, name="p", ns="default", node_selector=None,
        affinity_in=None, affinity_not_in=None, tolerate=None, owner=None, node=None,
        tolerations=None):
    """The incoming pod: labels, spread constraints and what the node inclusion policies use.

    affinity_in/affinity_not_in are (key, values) for a required node affinity term; owner is
    (apiVersion, kind, name) of the controlling owner; tolerate is a taint key tolerated.
    """
    spec = {}
    if constraints:
        spec["topologySpreadConstraints"] = list(constraints)
    if node_selector is not None:
        spec["nodeSelector"] = dict(node_selector)
    for op, term in (("In", affinity_in), ("NotIn", affinity_not_in)):
        if term is not None:
            key, values = term
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": key, "operator": op, "values": list(values)}]}]}}}
    if tolerate is not None:
        spec["tolerations"] = [{"key": tolerate}]
    if tolerations is not None:
        spec["tolerations"] = tolerations
    manifest = make_pod(name, namespace=ns, labels=labels, node_name=node, **spec)
    if owner is not None:
        api_version, kind, owner_name = owner
        manifest["metadata"]["ownerReferences"] = [
            {"apiVersion": api_version, "kind": kind, "name": owner_name, "controller": True}]
    return pod_info(manifest)


def ep(name, node, *keys, ns="default", terminating=False, **labels):
    """An existing pod on a node; keys are labels with an empty value."""
    all_labels = dict.fromkeys(keys, "")
    all_labels.update(labels)
    pi = pod_info(make_pod(name, namespace=ns, node_name=node, labels=all_labels))
    if terminating:
        pi.deletion_time = 0.0
    return pi


def node(name, labels=None, taints=None) -> dict:
    return make_node(name, labels=labels or {}, taints=taints)


def zn(name, zone, taints=None, **extra) -> dict:
    """A node labelled zone=<zone> and node=<name>, the tests' most common shape."""
    return node(name, {"zone": zone, "node": name, **extra}, taints)


def hn(name, zone=None, **extra) -> dict:
    """A node labelled kubernetes.io/hostname=<name> (and zone=<zone> when given)."""
    labels = {HOST: name} if zone is None else {"zone": zone, HOST: name}
    labels.update(extra)
    return node(name, labels)


def objects(**kinds) -> ClusterObjects:
    objs = ClusterObjects()
    for kind, items in kinds.items():
        objs.extra[kind] = list(items)
    return objs


def service(selector, ns="default", name="svc") -> dict:
    return {"kind": "Service", "metadata": {"name": name, "namespace": ns},
            "spec": {"selector": selector}}


def replica_set(name, selector, ns="default") -> dict:
    return {"kind": "ReplicaSet", "metadata": {"name": name, "namespace": ns},
            "spec": {"selector": selector}}


def setup(nodes, existing=(), args=None, objs=None):
    """The plugin over a snapshot of the nodes with the existing pods placed on them."""
    snapshot = Snapshot.from_objects(list(nodes), list(existing))
    handle = FakeHandle(snapshot, objs)
    return new(default_args(args if args is not None else {"defaultingType": "List"}), handle), \
        snapshot
