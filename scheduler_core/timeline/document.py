"""Timeline documents (apiVersion playground.k8s.local/v1, kind Timeline): docs/TIMELINE.md.

A step happens at a virtual time (`at`, seconds) and does one `action`. Steps are checked
before anything runs: a negative or non-numeric time, an unknown action or kind, a missing
field, or a node, workload or pod that does not exist at that point of the timeline is an
InputError naming the file, the Timeline, the step's index and the field.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import InputError
from ..object_validation import label_selector, validate_object
from ..schema import LABEL_SELECTOR, type_errors
from ..workloads.manager import WORKLOAD_KINDS

API_VERSION = "playground.k8s.local/v1"
KIND = "Timeline"
SCALABLE = ("Deployment", "ReplicaSet", "StatefulSet")
# What a step may create, update or delete (besides workloads).
OBJECT_KINDS = ("Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "StorageClass",
                "CSINode", "PodGroup", "PriorityClass", "Namespace", "PodDisruptionBudget",
                "Service", "Workload", "DeviceTaintRule") + WORKLOAD_KINDS
# action -> the fields it requires.
ACTIONS = {
    "Create": ("object",),
    "Update": ("object",),
    "Delete": ("kind", "name"),
    "Scale": ("kind", "name", "replicas"),
    "Cordon": ("node",),
    "Uncordon": ("node",),
    "AddTaint": ("node", "taint"),
    "RemoveTaint": ("node", "taint"),
    "RemoveSchedulingGate": ("pod",),
    "NodeNotReady": ("node",),
    "DeleteNode": ("node",),
    "CompletePod": ("pod",),
}
POD_ACTIONS = ("RemoveSchedulingGate", "CompletePod")
# Fields that name something: a list or a mapping there is a typing error, not a name.
NAME_FIELDS = ("kind", "name", "namespace", "node")


@dataclass
class Step:
    index: int               # position in the Timeline document
    at: float
    action: str
    fields: dict = field(default_factory=dict)
    source: str = ""         # "file: Timeline name", for messages
    after_cycle: int | None = None   # a step taken on a paused run: after that many cycles

    def to_dict(self) -> dict:
        return {"index": self.index, "at": self.at, "action": self.action,
                **{k: v for k, v in self.fields.items() if k not in ("at", "action")}}


def object_key(obj: dict) -> tuple[str, str, str]:
    meta = obj.get("metadata") or {}
    kind = obj.get("kind", "")
    namespace = "" if kind in ("Node", "PersistentVolume", "StorageClass", "CSINode",
                               "PriorityClass", "Namespace") else (meta.get("namespace")
                                                                   or "default")
    return kind, namespace, meta.get("name", "")


class _Known:
    """The objects that exist at each point of the timeline, for checking references."""

    def __init__(self, cluster):
        self.keys = {object_key({"kind": "Node", **n}) for n in cluster.nodes}
        self.keys |= {object_key({"kind": "Pod", **p}) for p in cluster.pods}
        self.keys |= {object_key(w) for w in cluster.workloads}
        for kind, objs in cluster.objects.extra.items():
            self.keys |= {object_key({"kind": kind, **o}) for o in objs}

    def has(self, kind: str, namespace: str, name: str) -> bool:
        return (kind, namespace, name) in self.keys


def _fail(step_where: str, source: tuple[str, str], field_name: str, message: str):
    raise InputError(message, file=source[0], obj=source[1], field=f"{step_where}.{field_name}"
                     if field_name else step_where)


def _pod_ref(value: str) -> tuple[str, str]:
    namespace, _, name = value.rpartition("/")
    return namespace or "default", name


def _check_pod_ref(ref, where, source) -> None:
    """A pod is named by "namespace/name" or "name", or picked by a label selector."""
    if isinstance(ref, dict):
        problems = type_errors(ref, LABEL_SELECTOR, "pod") or label_selector("pod", ref)
        if problems:
            _fail(where, source, *problems[0])
    elif isinstance(ref, (list, bool)):
        _fail(where, source, "pod", f"must be a pod name or a label selector: {ref!r}")


def _check_object(obj, where, source) -> None:
    if not isinstance(obj, dict):
        _fail(where, source, "object", "must be a Kubernetes object (a mapping)")
    if obj.get("kind") not in OBJECT_KINDS:
        _fail(where, source, "object.kind", f'Unsupported value: "{obj.get("kind")}": '
              f'supported values: {", ".join(OBJECT_KINDS)}')
    # The loader's checks: the object must be one the API server would take.
    problems = validate_object(obj)
    if problems:
        path, message = problems[0]
        _fail(where, source, f"object.{path}", message)
    if not (obj.get("metadata") or {}).get("name"):
        _fail(where, source, "object.metadata.name", "Required value")


def _check_references(step: Step, where: str, source, known: _Known) -> None:
    f = step.fields
    # A step taken on a paused run may name a pod a controller made during the run, which
    # no static check can know: it is checked when it runs (and skipped if the pod is gone).
    live_pod = step.after_cycle is not None
    if "node" in f and not known.has("Node", "", str(f["node"])):
        _fail(where, source, "node", f'node "{f["node"]}" does not exist at {step.at:g}s')
    if step.action in POD_ACTIONS and isinstance(f.get("pod"), str) and not live_pod:
        ns, name = _pod_ref(f["pod"])
        if not known.has("Pod", ns, name):
            _fail(where, source, "pod", f'pod "{ns}/{name}" does not exist at {step.at:g}s')
    if step.action in ("Scale", "Delete"):
        kind = f["kind"]
        allowed = SCALABLE if step.action == "Scale" else OBJECT_KINDS
        if kind not in allowed:
            _fail(where, source, "kind", f'Unsupported value: "{kind}": supported values: '
                  f'{", ".join(allowed)}')
        ns = "" if kind in ("Node", "PersistentVolume", "StorageClass", "CSINode",
                            "PriorityClass", "Namespace") else f.get("namespace") or "default"
        if not (kind == "Pod" and live_pod) and not known.has(kind, ns, str(f["name"])):
            _fail(where, source, "name", f'{kind} "{f["name"]}" does not exist at {step.at:g}s')
    if step.action == "Update" and not known.has(*object_key(f["object"])):
        kind, ns, name = object_key(f["object"])
        _fail(where, source, "object.metadata.name",
              f'{kind} "{"/".join(p for p in (ns, name) if p)}" does not exist at {step.at:g}s')


def _track(step: Step, known: _Known) -> None:
    f = step.fields
    if step.action == "Create":
        known.keys.add(object_key(f["object"]))
    elif step.action == "Delete":
        kind = f["kind"]
        ns = object_key({"kind": kind, "metadata": {"namespace": f.get("namespace")}})[1]
        known.keys.discard((kind, ns, f["name"]))
    elif step.action == "DeleteNode":
        known.keys.discard(("Node", "", f["node"]))


def _parse_step(raw, i: int, source) -> Step:
    where = f"spec.steps[{i}]"
    if not isinstance(raw, dict):
        _fail(where, source, "", "a step must be a mapping")
    at = raw.get("at")
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
        _fail(where, source, "at", f"must be a number of seconds: {at!r}")
    if at < 0:
        _fail(where, source, "at", f"Invalid value: {at}: must be greater than or equal to 0")
    action = raw.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        _fail(where, source, "action", f'Unsupported value: "{action}": supported values: '
              f'{", ".join(ACTIONS)}')
    for name in ACTIONS[action]:
        if raw.get(name) in (None, ""):
            _fail(where, source, name, "Required value")
    for name in NAME_FIELDS:
        if isinstance(raw.get(name), (dict, list, bool)):
            _fail(where, source, name, f"must be a string: {raw[name]!r}")
    if raw.get("pod") is not None:
        _check_pod_ref(raw["pod"], where, source)
    if action in ("Create", "Update"):
        _check_object(raw["object"], where, source)
    if action == "Scale" and (isinstance(raw["replicas"], bool)
                              or not isinstance(raw["replicas"], int) or raw["replicas"] < 0):
        _fail(where, source, "replicas", f"must be a non-negative integer: {raw['replicas']!r}")
    if "taint" in ACTIONS[action]:
        taint = raw["taint"]
        if not isinstance(taint, dict) or not taint.get("key"):
            _fail(where, source, "taint.key", "Required value")
        if action == "AddTaint" and taint.get("effect") not in (
                "NoSchedule", "PreferNoSchedule", "NoExecute"):
            _fail(where, source, "taint.effect", f'Unsupported value: "{taint.get("effect")}": '
                  'supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"')
    after = raw.get("afterCycle")
    if after is not None and (isinstance(after, bool) or not isinstance(after, int) or after < 0):
        _fail(where, source, "afterCycle", f"must be a non-negative integer: {after!r}")
    return Step(i, float(at), action, dict(raw), f"{source[0]}: {source[1]}", after)


def parse_timelines(cluster) -> list[Step]:
    """Every step of every Timeline document of the cluster, in time order, checked."""
    steps: list[tuple[Step, str, tuple]] = []
    for path, doc in cluster.timelines:
        meta, spec = doc.get("metadata") or {}, doc.get("spec") or {}
        name = (meta.get("name") if isinstance(meta, dict) else None) or "(unnamed)"
        source = (path, f"Timeline {name}")
        if not isinstance(meta, dict):
            _fail("metadata", source, "", "must be a mapping")
        if doc.get("apiVersion") != API_VERSION:
            _fail("apiVersion", source, "", f'Unsupported value: "{doc.get("apiVersion")}": '
                  f'supported values: "{API_VERSION}"')
        if not isinstance(spec, dict):
            _fail("spec", source, "", f"must be a mapping with a list of steps: {spec!r}")
        raw_steps = spec.get("steps")
        if not isinstance(raw_steps, list):
            _fail("spec.steps", source, "", "Required value: a list of steps")
        steps += [(_parse_step(raw, i, source), f"spec.steps[{i}]", source)
                  for i, raw in enumerate(raw_steps)]
    if not steps:
        return []   # nothing refers to the objects: their keys are not gathered
    steps.sort(key=lambda item: item[0].at)   # stable: same time keeps document order
    known = _Known(cluster)
    for step, where, source in steps:
        _check_references(step, where, source, known)
        _track(step, known)
    return [step for step, _, _ in steps]
