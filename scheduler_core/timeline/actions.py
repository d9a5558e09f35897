"""What each kind of step does to the running cluster (see docs/TIMELINE.md)."""
from __future__ import annotations

import copy

from ..errors import InputError
from ..labels import LabelSelector
from ..limit_ranger import Forbidden
from ..release_input import skipped_kind
from ..workloads.manager import CONTROLLERS
from ..workloads.naming import controller_of
from ..workloads.pods import is_active, name_of, namespace_of
from .document import object_key
from .informer import virtual_timestamp

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"


class StepSkipped(Exception):
    """The step's object is gone by the time the step runs (a controller replaced it)."""


def _node(life, name: str) -> dict:
    node = life.informer.node(name)
    if node is None:
        raise StepSkipped(f'node "{name}" does not exist')
    return copy.deepcopy(node)


def _pod(life, ref):
    """A pod by "namespace/name" or "name", or the first active pod (by name) that a label
    selector matches: controllers name their pods at random."""
    if isinstance(ref, dict):
        selector = LabelSelector(ref)
        pods = sorted((p for p in life.informer.pods.values()
                       if is_active(p.obj) and selector.matches(p.labels)), key=lambda p: p.key)
        if not pods:
            raise StepSkipped("no active pod matches the selector")
        return pods[0]
    namespace, _, name = str(ref).rpartition("/")
    pi = life.informer.pod(f"{namespace or 'default'}/{name}")
    if pi is None:
        raise StepSkipped(f'pod "{ref}" does not exist')
    return pi


def _set_taints(node: dict, taints: list[dict]) -> None:
    node.setdefault("spec", {})["taints"] = taints


def _without_taint(taints, key: str, effect: str | None) -> list[dict]:
    return [t for t in taints if not (t.get("key") == key
                                      and (effect is None or t.get("effect") == effect))]


def _update_node(life, node: dict) -> str:
    life.informer.update_node(node)
    life.taints.node_changed(node)
    return "NodeUpdate"


def add_taint(life, node_name: str, taint: dict) -> str:
    node = _node(life, node_name)
    taint = {k: v for k, v in taint.items() if v not in (None, "")}
    if taint.get("effect") == "NoExecute":
        taint.setdefault("timeAdded", virtual_timestamp(life.s.clock))
    taints = _without_taint((node.get("spec") or {}).get("taints") or [], taint["key"],
                            taint.get("effect"))
    _set_taints(node, taints + [taint])
    return _update_node(life, node)


def remove_taint(life, node_name: str, taint: dict) -> str:
    node = _node(life, node_name)
    _set_taints(node, _without_taint((node.get("spec") or {}).get("taints") or [],
                                     taint["key"], taint.get("effect")))
    return _update_node(life, node)


def cordon(life, step) -> str:
    """kubectl cordon sets spec.unschedulable; the node lifecycle controller then adds the
    unschedulable NoSchedule taint (TaintNodesByCondition)."""
    node = _node(life, step.fields["node"])
    node.setdefault("spec", {})["unschedulable"] = True
    _set_taints(node, _without_taint(node["spec"].get("taints") or [], UNSCHEDULABLE_TAINT, None)
                + [{"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}])
    return _update_node(life, node)


def uncordon(life, step) -> str:
    node = _node(life, step.fields["node"])
    node.setdefault("spec", {}).pop("unschedulable", None)
    _set_taints(node, _without_taint(node["spec"].get("taints") or [], UNSCHEDULABLE_TAINT, None))
    return _update_node(life, node)


def node_not_ready(life, step) -> str:
    """The kubelet stops posting status: Ready goes False and the node lifecycle controller
    taints the node not-ready, NoSchedule (TaintNodesByCondition) and NoExecute (taint-based
    eviction)."""
    node = _node(life, step.fields["node"])
    status = node.setdefault("status", {})
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
    status["conditions"] = conditions + [{"type": "Ready", "status": "False",
                                          "reason": "NodeStatusUnknown"}]
    taints = _without_taint((node.get("spec") or {}).get("taints") or [], NOT_READY_TAINT, None)
    taints += [{"key": NOT_READY_TAINT, "effect": "NoSchedule"},
               {"key": NOT_READY_TAINT, "effect": "NoExecute",
                "timeAdded": virtual_timestamp(life.s.clock)}]
    _set_taints(node, taints)
    return _update_node(life, node)


def delete_node(life, name: str) -> str:
    _node(life, name)
    life.informer.delete_node(name)
    return "NodeDelete"


def remove_scheduling_gate(life, step) -> str:
    pi = _pod(life, step.fields["pod"])
    obj = copy.deepcopy(pi.obj)
    gate = step.fields.get("gate")
    gates = obj["spec"].get("schedulingGates") or []
    obj["spec"]["schedulingGates"] = [g for g in gates if gate and g.get("name") != gate]
    life.informer.update_pod(pi, obj)
    return "UnscheduledPodUpdate"


def complete_pod(life, step) -> str:
    life.informer.complete_pod(_pod(life, step.fields["pod"]))
    return "AssignedPodDelete"


def scale(life, step) -> str:
    f = step.fields
    workload = life.manager.get(f["kind"], f.get("namespace") or "default", f["name"])
    if workload is None:
        raise StepSkipped(f'{f["kind"]} "{f["name"]}" does not exist')
    workload.setdefault("spec", {})["replicas"] = f["replicas"]
    life.sync()
    return "Scale"


def _check_gated(life, obj: dict) -> None:
    """A Workload API object or a DeviceTaintRule the run's release and gates leave out is
    skipped, as the loader skips it."""
    try:
        reason = skipped_kind(obj, life.s.features, f"{obj['kind']} {name_of(obj)}")
    except InputError as exc:
        raise StepSkipped(str(exc)) from None
    if reason:
        raise StepSkipped(reason)


def create(life, step) -> str:
    obj = copy.deepcopy(step.fields["object"])
    kind = obj["kind"]
    _check_gated(life, obj)
    if kind == "Node":
        life.informer.add_node(obj)
        life.taints.node_changed(obj)
    elif kind == "Pod":
        obj["metadata"].setdefault("namespace", "default")
        try:
            life.informer.add_pod(obj)
        except Forbidden as exc:
            raise StepSkipped(str(exc)) from None
    elif kind in CONTROLLERS:
        obj["metadata"].setdefault("namespace", "default")
        life.manager.add(obj)
        life.informer.put_object(obj, created=True)
        life.sync()
    else:
        life.informer.put_object(obj, created=True)
        life.sync()   # the PV controller may bind a claim to a new volume, or the reverse
    return kind + "Add"


def update(life, step) -> str:
    obj = copy.deepcopy(step.fields["object"])
    kind, namespace, name = object_key(obj)
    _check_gated(life, obj)
    if kind == "Node":
        _node(life, name)
        return _update_node(life, obj)
    if kind == "Pod":
        pi = _pod(life, f"{namespace}/{name}")
        if pi.node_name:
            obj.setdefault("spec", {})["nodeName"] = pi.node_name
        life.informer.update_pod(pi, obj)
        return "PodUpdate"
    if kind in CONTROLLERS:
        old = life.manager.get(kind, namespace, name)
        if old is None:
            raise StepSkipped(f'{kind} "{namespace}/{name}" does not exist')
        obj["metadata"].update(namespace=namespace, uid=old["metadata"]["uid"])
        life.manager.add(obj)
        life.informer.put_object(obj, created=False)
        life.sync()
    else:
        life.informer.put_object(obj, created=False)
        life.sync()
    return kind + "Update"


def _controlled_pods(life, owner: dict) -> list:
    """Pods the owner controls, directly or through the ReplicaSets it owns (the garbage
    collector's cascade of a background deletion)."""
    uid = owner["metadata"]["uid"]
    owned_sets = [rs for rs in life.manager.of_kind("ReplicaSet")
                  if (controller_of(rs) or {}).get("uid") == uid]
    uids = {uid} | {rs["metadata"]["uid"] for rs in owned_sets}
    for rs in owned_sets:
        life.manager.remove("ReplicaSet", namespace_of(rs), rs["metadata"]["name"])
    return [p for p in life.informer.pods.values()
            if (controller_of(p.obj) or {}).get("uid") in uids]


def delete(life, step) -> str:
    f = step.fields
    kind, name = f["kind"], f["name"]
    namespace = object_key({"kind": kind, "metadata": {"namespace": f.get("namespace")}})[1]
    if kind == "Node":
        return delete_node(life, name)
    if kind == "Pod":
        life.informer.delete_pod(_pod(life, f"{namespace}/{name}"), "deleted")
        return "PodDelete"
    if kind in CONTROLLERS:
        owner = life.manager.remove(kind, namespace, name)
        if owner is None:
            raise StepSkipped(f'{kind} "{namespace}/{name}" does not exist')
        for pi in _controlled_pods(life, owner):
            life.informer.delete_pod(pi, "deleted with its owner", notify=False)
    life.informer.remove_object(kind, namespace, name)
    return kind + "Delete"


ACTIONS = {
    "Create": create,
    "Update": update,
    "Delete": delete,
    "Scale": scale,
    "Cordon": cordon,
    "Uncordon": uncordon,
    "AddTaint": lambda life, step: add_taint(life, step.fields["node"], step.fields["taint"]),
    "RemoveTaint": lambda life, step: remove_taint(life, step.fields["node"],
                                                   step.fields["taint"]),
    "RemoveSchedulingGate": remove_scheduling_gate,
    "NodeNotReady": node_not_ready,
    "DeleteNode": lambda life, step: delete_node(life, step.fields["node"]),
    "CompletePod": complete_pod,
}
