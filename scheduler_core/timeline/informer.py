"""Cluster changes delivered to a running scheduler as its informers would deliver them.

Each change updates the scheduler's cache or queue and then raises the cluster event that
kube-scheduler's event handlers raise for it (eventhandlers.go): NodeAdd, NodeUpdate,
AssignedPodAdd/Update/Delete, UnscheduledPodUpdate, PvAdd, ... The scheduler names that
event on every queue move it causes (Scheduler.event_cause), so the trace can say why a pod
moved. `on_change` is told after each change, for the controllers to react.
"""
from __future__ import annotations

from datetime import UTC, datetime

from ..admission import admit_pod, default_priority_class
from ..framework.types import PodInfo
from ..loader import DEFAULT_CLASS_ANNOTATION, pod_priority
from ..scheduler import DEFAULT_GRACE_PERIOD, RUN_EPOCH
from ..workloads.pods import name_of, namespace_of

# Kinds whose add or update kube-scheduler turns into a cluster event, by the event's prefix.
OBJECT_EVENTS = {"PersistentVolume": "Pv", "PersistentVolumeClaim": "Pvc",
                 "StorageClass": "StorageClass", "CSINode": "CSINode", "PodGroup": "PodGroup",
                 "Workload": "Workload"}
# The ResourceSlice tracker turns a DeviceTaintRule's change into updates of the slices it
# patches: that is the event the scheduler's queue sees.
FIXED_EVENTS = {"DeviceTaintRule": "ResourceSliceUpdate"}
POD_GC_REASON = "deleted with its node"


def virtual_timestamp(clock: float) -> str:
    return datetime.fromtimestamp(RUN_EPOCH + clock, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Informer:
    def __init__(self, scheduler, on_change=None):
        self.s = scheduler
        self.on_change = on_change or (lambda: None)
        # Every pod the API server has, by "namespace/name": pending, bound, finished or
        # being deleted; a pod leaves once its deletion is over.
        self.pods: dict[str, PodInfo] = {p.key: p for p in scheduler.pods}

    # --- lookups -----------------------------------------------------------------------------
    def node(self, name: str) -> dict | None:
        ni = self.s.cache.node_infos.get(name)
        return ni.node if ni is not None else None

    def pod(self, key: str) -> PodInfo | None:
        return self.pods.get(key)

    def _event(self, event: str, pod=None, **objects) -> None:
        """objects: old= and new=, the object before and after, for the QueueingHints."""
        self.s.cluster_event(event, pod, **objects)

    # --- nodes -------------------------------------------------------------------------------
    def add_node(self, node: dict) -> None:
        self.s.cluster.nodes.append(node)
        self.s.cache.add_node(node)
        self.s.snapshot = self.s.cache.new_snapshot()   # the node tree changed
        self._event("NodeAdd", new=node)
        self.on_change()

    def update_node(self, node: dict) -> None:
        old = self.node(name_of(node))
        nodes = self.s.cluster.nodes
        nodes[:] = [node if name_of(n) == name_of(node) else n for n in nodes]
        self.s.cache.update_node(node)
        self._event("NodeUpdate", old=old, new=node)
        self.on_change()

    def delete_node(self, name: str) -> None:
        """The node goes; the pod garbage collector force-deletes the pods bound to it."""
        for pi in [p for p in self.pods.values() if p.node_name == name]:
            self.delete_pod(pi, POD_GC_REASON, grace=0.0, notify=False)
        self.s.cluster.nodes[:] = [n for n in self.s.cluster.nodes if name_of(n) != name]
        self.s.cache.remove_node(name)
        self.s.snapshot = self.s.cache.new_snapshot()
        self.on_change()

    # --- pods --------------------------------------------------------------------------------
    def add_pod(self, obj: dict) -> PodInfo:
        """A new pod, admitted by the API server, then seen by the scheduler's informer;
        limit_ranger.Forbidden when LimitRanger refuses it."""
        objects = self.s.cluster.objects
        classes = objects.priority_classes
        admit_pod(obj, classes, default_priority_class(classes),
                  objects.extra.get("LimitRange", []))
        pi = PodInfo(obj, priority=pod_priority(obj, classes))
        pi.start_time = RUN_EPOCH
        self.s.pods.append(pi)
        self.pods[pi.key] = pi
        self.s.cluster.pods.append(obj)
        if pi.node_name:
            self.s.cache.add_pod(pi)
            self.s.bindings[pi.key] = pi.node_name
            self._event("AssignedPodAdd", pi)
        elif pi.scheduler_name not in self.s.frameworks:
            self.s.bindings[pi.key] = None
            self.s.no_profile[pi.key] = pi.scheduler_name
        else:
            self.s.bindings[pi.key] = None
            self.s.event_cause = "PodAdd"
            self.s.enqueue_new_pod(pi)
            self.s.event_cause = ""
        return pi

    def update_pod(self, pi: PodInfo, obj: dict) -> None:
        """A changed pod: a pending one is retried (its gates checked again), a bound one
        changes its node's view (its labels may matter to affinity and spreading)."""
        start, deletion = pi.start_time, pi.deletion_time
        old = PodInfo(pi.obj, priority=pi.priority)
        PodInfo.__init__(pi, obj, priority=pi.priority)
        pi.start_time, pi.deletion_time = start, deletion
        if pi.node_name and pi.uid in self.s.cache.pods:
            self.s.cache.touch(pi.node_name)
            self._event("AssignedPodUpdate", pi, old=old)
            return
        self.s.event_cause = "UnscheduledPodUpdate"
        self.s.queue.retry_gated()
        self.s.event_cause = ""
        self._event("UnscheduledPodUpdate", pi, old=old)
        self.on_change()

    def complete_pod(self, pi: PodInfo, phase: str = "Succeeded") -> None:
        """The pod's containers exited: it leaves the informer's view (its field selector
        drops finished pods), which the scheduler sees as a deletion."""
        pi.obj.setdefault("status", {})["phase"] = phase
        if self.s.observer is not None:
            self.s.observer.pod_event("completed", pi, self.s.clock, {"node": pi.node_name})
        if pi.uid in self.s.cache.pods:
            self.s.cache.remove_pod(pi)
            self._event("AssignedPodDelete", pi)
        else:
            self.s.queue.delete(pi.uid)
        self.on_change()

    def delete_pod(self, pi: PodInfo, reason: str, grace: float | None = None,
                   notify: bool = True) -> None:
        """A deletion: a bound pod keeps its node for its grace period (None: its own, as
        in the pod spec), a pending or finished one goes at once."""
        if pi.key not in self.pods or pi.terminating:
            return
        pi.obj.setdefault("metadata", {})["deletionTimestamp"] = virtual_timestamp(self.s.clock)
        placed = pi.uid in self.s.cache.pods
        if placed and grace != 0.0:
            if grace is not None:
                pi.spec["terminationGracePeriodSeconds"] = grace
            self.s.delete_pod(pi, reason)
            self.s.at(self.s.clock + _grace(pi), lambda: self._gone(pi))
        else:
            pi.deletion_time = self.s.clock
            if pi.uid in self.s.waiting:
                self.s.waiting[pi.uid].reject(reason, reason)
            if placed:
                self.s.cache.remove_pod(pi)
                self._event("AssignedPodDelete", pi)
            self.s.queue.delete(pi.uid)
            if self.s.observer is not None:
                self.s.observer.pod_event(reason, pi, self.s.clock, {"node": pi.node_name})
            self._gone(pi, notify)
        if notify:
            self.on_change()

    def _gone(self, pi: PodInfo, notify: bool = True) -> None:
        self.pods.pop(pi.key, None)
        self.s.bindings.pop(pi.key, None)
        self.s.no_profile.pop(pi.key, None)
        if pi.obj in self.s.cluster.pods:
            self.s.cluster.pods.remove(pi.obj)
        if notify:
            self.on_change()

    # --- other objects -----------------------------------------------------------------------
    def put_object(self, obj: dict, created: bool) -> None:
        """Add or replace a non-pod, non-node object in the scheduler's listers."""
        kind, objects = obj["kind"], self.s.cluster.objects
        key = f"{namespace_of(obj)}/{name_of(obj)}"
        old = None if created else self.find_object(kind, namespace_of(obj), name_of(obj))
        if kind == "PersistentVolume":
            objects.pvs[name_of(obj)] = obj
        elif kind == "PersistentVolumeClaim":
            _default_storage_class(obj, objects.storage_classes)
            objects.pvcs[key] = obj
        elif kind == "StorageClass":
            objects.storage_classes[name_of(obj)] = obj
        elif kind == "CSINode":
            objects.csinodes[name_of(obj)] = obj
        elif kind == "PriorityClass":
            objects.priority_classes[name_of(obj)] = obj
        elif kind == "Namespace":
            objects.namespaces[name_of(obj)] = obj
        elif kind == "PodDisruptionBudget":
            objects.pdbs[:] = [p for p in objects.pdbs if not _same(p, obj)] + [obj]
        else:
            extra = objects.extra.setdefault(kind, [])
            extra[:] = [o for o in extra if not _same(o, obj)] + [obj]
        prefix = OBJECT_EVENTS.get(kind)
        if prefix:
            self._event(prefix + ("Add" if created else "Update"), old=old, new=obj)
        elif kind in FIXED_EVENTS:
            self._event(FIXED_EVENTS[kind], old=old, new=obj)

    def find_object(self, kind: str, namespace: str, name: str) -> dict | None:
        objects = self.s.cluster.objects
        store = kind_store(kind, objects)
        if store is not None:
            return store.get(name)
        if kind == "PersistentVolumeClaim":
            return objects.pvcs.get(f"{namespace}/{name}")
        probe = {"metadata": {"namespace": namespace, "name": name}}
        found = objects.pdbs if kind == "PodDisruptionBudget" else objects.extra.get(kind, [])
        return next((o for o in found if _same(o, probe)), None)

    def remove_object(self, kind: str, namespace: str, name: str) -> None:
        objects = self.s.cluster.objects
        store = kind_store(kind, objects)
        if store is not None:
            store.pop(name, None)
        if kind == "PersistentVolumeClaim":
            objects.pvcs.pop(f"{namespace}/{name}", None)
        probe = {"kind": kind, "metadata": {"namespace": namespace, "name": name}}
        if kind == "PodDisruptionBudget":
            objects.pdbs[:] = [p for p in objects.pdbs if not _same(p, probe)]
        if kind in objects.extra:
            objects.extra[kind] = [o for o in objects.extra[kind] if not _same(o, probe)]


def kind_store(kind: str, objects):
    return {"PersistentVolume": objects.pvs, "StorageClass": objects.storage_classes,
            "CSINode": objects.csinodes, "PriorityClass": objects.priority_classes,
            "Namespace": objects.namespaces}.get(kind)


def _same(a: dict, b: dict) -> bool:
    return namespace_of(a) == namespace_of(b) and name_of(a) == name_of(b)


def _grace(pi: PodInfo) -> float:
    grace = pi.spec.get("terminationGracePeriodSeconds")
    return DEFAULT_GRACE_PERIOD if grace is None else float(grace)


def _default_storage_class(pvc: dict, classes: dict[str, dict]) -> None:
    """The DefaultStorageClass admission plugin: a claim naming no class gets the default."""
    spec = pvc.setdefault("spec", {})
    if "storageClassName" in spec:
        return
    for name, sc in classes.items():
        if ((sc.get("metadata") or {}).get("annotations") or {}).get(
                DEFAULT_CLASS_ANNOTATION) == "true":
            spec["storageClassName"] = name
            return
