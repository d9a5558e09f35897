"""NodeInfo, PodInfo and Resource: the scheduler's view of nodes and pods (framework/types.go)."""
from __future__ import annotations

from ..quantity import resource_value

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
# Non-zero defaults scoring assumes for containers that request nothing (util/pod_resources.go).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
NATIVE = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


class Resource:
    """A bag of resource amounts: cpu in millicores, the rest in units."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number", "scalar")

    def __init__(self, milli_cpu=0, memory=0, ephemeral_storage=0, allowed_pod_number=0,
                 scalar=None):
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar = dict(scalar or {})

    @classmethod
    def from_list(cls, resources: dict | None) -> Resource:
        res = cls()
        for name, value in (resources or {}).items():
            res.set(name, resource_value(name, value))
        return res

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def set(self, name: str, value: int) -> None:
        if name == CPU:
            self.milli_cpu = value
        elif name == MEMORY:
            self.memory = value
        elif name == EPHEMERAL_STORAGE:
            self.ephemeral_storage = value
        elif name == PODS:
            self.allowed_pod_number = value
        else:
            self.scalar[name] = value

    def add(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        self.allowed_pod_number += sign * other.allowed_pod_number
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + sign * value

    def names(self):
        return list(NATIVE) + sorted(self.scalar)

    def clone(self) -> Resource:
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage,
                        self.allowed_pod_number, self.scalar)

    def to_dict(self) -> dict:
        out = {CPU: self.milli_cpu, MEMORY: self.memory}
        if self.ephemeral_storage:
            out[EPHEMERAL_STORAGE] = self.ephemeral_storage
        out.update(self.scalar)
        return out

    def __eq__(self, other):
        return isinstance(other, Resource) and self.to_dict() == other.to_dict() and \
            self.allowed_pod_number == other.allowed_pod_number

    def __repr__(self):
        return f"Resource({self.to_dict()}, pods={self.allowed_pod_number})"


def _container_requests(container: dict, non_missing: dict | None) -> dict[str, int]:
    resources = container.get("resources") or {}
    # The API server defaults a request to its limit when only the limit is set.
    merged = dict(resources.get("limits") or {})
    merged.update(resources.get("requests") or {})
    reqs = {name: resource_value(name, value) for name, value in merged.items()}
    for name, value in (non_missing or {}).items():
        reqs.setdefault(name, value)
    return reqs


def _add(into: dict, other: dict) -> None:
    for name, value in other.items():
        into[name] = into.get(name, 0) + value


def _max(into: dict, other: dict) -> None:
    for name, value in other.items():
        if value > into.get(name, 0):
            into[name] = value


HUGEPAGES_PREFIX = "hugepages-"


def is_supported_pod_level_resource(name: str) -> bool:
    """resourcehelper.IsSupportedPodLevelResource: cpu, memory and hugepages."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def aggregate_container_requests(spec: dict, non_missing: dict | None = None) -> dict[str, int]:
    """resourcehelper.AggregateContainerRequests: max(sum of containers, each init container).

    Restartable (sidecar) init containers run beside the app containers, so they are added to
    the sum and to every later init container's requests.
    """
    reqs: dict[str, int] = {}
    for container in spec.get("containers") or []:
        _add(reqs, _container_requests(container, non_missing))
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for container in spec.get("initContainers") or []:
        creqs = _container_requests(container, non_missing)
        if container.get("restartPolicy") == "Always":
            _add(reqs, creqs)
            _add(sidecars, creqs)
            creqs = dict(sidecars)
        else:
            _add(creqs, sidecars)
        _max(init_max, creqs)
    _max(reqs, init_max)
    return reqs


def pod_level_requests(spec: dict) -> dict[str, int]:
    """spec.resources.requests as the API server leaves them (defaultPodRequests): with
    pod-level limits, an unset request takes the containers' aggregate request for that
    resource, else the pod-level limit. Only the supported resources count.

    The loader drops spec.resources when the PodLevelResources gate is off, as the API server's
    dropDisabledPodFields does, so a spec that has them is honoured."""
    resources = spec.get("resources") or {}
    requests = {n: resource_value(n, v) for n, v in (resources.get("requests") or {}).items()
                if is_supported_pod_level_resource(n)}
    limits = resources.get("limits") or {}
    if limits:
        for name, value in aggregate_container_requests(spec).items():
            if is_supported_pod_level_resource(name):
                requests.setdefault(name, value)
        for name, value in limits.items():
            if is_supported_pod_level_resource(name):
                requests.setdefault(name, resource_value(name, value))
    return requests


def pod_requests(spec: dict, non_missing: dict | None = None) -> dict[str, int]:
    """resourcehelper.PodRequests: the containers' aggregate, replaced by the pod-level
    request of every resource set at pod level (PodLevelResources), plus the overhead.

    non_missing: NonMissingContainerRequests, the value a container that requests nothing of
    a resource counts as (the scoring's non-zero defaults); pod-level requests win over it.
    """
    reqs = aggregate_container_requests(spec, non_missing)
    reqs.update(pod_level_requests(spec))
    for name, value in (spec.get("overhead") or {}).items():
        reqs[name] = reqs.get(name, 0) + resource_value(name, value)
    return reqs


_NON_MISSING = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}


class PodInfo:
    """A pod with what the scheduler derives from it once: requests, priority, ports, keys."""

    __slots__ = ("obj", "name", "namespace", "key", "uid", "labels", "priority", "node_name",
                 "scheduler_name", "requests", "non_zero_cpu", "non_zero_mem", "tolerations",
                 "affinity", "host_ports", "deletion_time", "nominated_node_name",
                 "scheduling_gates", "start_time", "preemption_policy", "parsed", "spec")

    def __init__(self, obj: dict, priority: int = 0):
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        self.obj = obj
        self.spec = spec
        self.name = meta.get("name", "")
        self.namespace = meta.get("namespace") or "default"
        self.key = f"{self.namespace}/{self.name}"
        self.uid = meta.get("uid") or self.key
        self.labels = meta.get("labels") or {}
        self.priority = priority
        self.node_name = spec.get("nodeName") or ""
        self.scheduler_name = spec.get("schedulerName") or "default-scheduler"
        self.requests = Resource()
        for name, value in pod_requests(spec).items():
            self.requests.set(name, value)
        non_zero = pod_requests(spec, _NON_MISSING)
        self.non_zero_cpu = non_zero.get(CPU, 0)
        self.non_zero_mem = non_zero.get(MEMORY, 0)
        self.tolerations = spec.get("tolerations") or []
        self.affinity = spec.get("affinity") or {}
        self.host_ports = _host_ports(spec)
        self.deletion_time = None  # virtual time at which a graceful deletion started
        self.nominated_node_name = status.get("nominatedNodeName") or ""
        self.scheduling_gates = [g.get("name") for g in spec.get("schedulingGates") or []]
        self.start_time = 0.0
        self.preemption_policy = spec.get("preemptionPolicy") or "PreemptLowerPriority"
        self.parsed: dict = {}  # plugins cache what they parse from the spec, keyed by plugin

    @property
    def has_required_anti_affinity(self) -> bool:
        anti = self.affinity.get("podAntiAffinity") or {}
        return bool(anti.get("requiredDuringSchedulingIgnoredDuringExecution"))

    @property
    def has_affinity(self) -> bool:
        return bool(self.affinity.get("podAffinity") or self.affinity.get("podAntiAffinity"))

    @property
    def terminating(self) -> bool:
        return self.deletion_time is not None

    def __repr__(self):
        return f"PodInfo({self.key})"


def _host_ports(spec: dict) -> list[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of every container port that claims a host port."""
    ports = []
    containers = list(spec.get("containers") or [])
    containers += [c for c in spec.get("initContainers") or []
                   if c.get("restartPolicy") == "Always"]
    for container in containers:
        for port in container.get("ports") or []:
            host_port = int(port.get("hostPort") or 0)
            if host_port > 0:
                ip = port.get("hostIP") or "0.0.0.0"
                ports.append((ip, port.get("protocol") or "TCP", host_port))
    return ports


class NodeInfo:
    """A node with the pods on it and the sums the plugins need (framework.NodeInfo).

    The pods are a prefix of a list that a copy shares with its source: only the NodeInfo
    that owns the list appends to it in place, so a copy made before sees its own length of
    it unchanged. Copying a node that holds 30,000 pods (SchedulingDaemonset's) for every
    cycle's snapshot, and freeing the copy it replaces, then costs nothing per pod. Any
    other change (a removal, or an addition to a copy) first takes a list of one's own.
    """

    __slots__ = ("node", "name", "labels", "taints", "unschedulable", "allocatable",
                 "requested", "non_zero_requested", "_pods", "_pod_count", "_owns_pods",
                 "_pods_shared", "pods_with_affinity", "pods_with_required_anti_affinity",
                 "used_ports", "image_states", "generation", "images")

    def __init__(self, node: dict | None = None):
        self._pods: list[PodInfo] = []
        self._pod_count = 0
        self._owns_pods = True      # this NodeInfo may append to _pods in place
        self._pods_shared = False   # a copy reads _pods too: no removal in place
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.used_ports: dict[tuple[str, int], list[str]] = {}
        self.image_states: dict = {}
        self.generation = 0
        self.set_node(node or {"metadata": {"name": ""}})

    def set_node(self, node: dict) -> None:
        meta = node.get("metadata") or {}
        spec = node.get("spec") or {}
        status = node.get("status") or {}
        self.node = node
        self.name = meta.get("name", "")
        self.labels = meta.get("labels") or {}
        self.taints = spec.get("taints") or []
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = _allocatable(status.get("allocatable") or {})
        # images: [(names, sizeBytes)] as in node.status.images.
        self.images = [(img.get("names") or [], int(img.get("sizeBytes") or 0))
                       for img in status.get("images") or []]

    @property
    def pods(self) -> list[PodInfo]:
        """The pods on the node, in the order they came (read only: add_pod, remove_pod)."""
        pods = self._pods
        return pods if len(pods) == self._pod_count else pods[:self._pod_count]

    def _own_pods(self) -> list[PodInfo]:
        """The pod list, made this NodeInfo's own and unshared before it changes in place."""
        if not self._owns_pods or self._pods_shared:
            self._pods = self._pods[:self._pod_count]
            self._owns_pods, self._pods_shared = True, False
        return self._pods

    def add_pod(self, pi: PodInfo) -> None:
        if not self._owns_pods:
            self._own_pods()
        # The owner's list is never longer than its count: appending leaves copies' prefixes.
        self._pods.append(pi)
        self._pod_count += 1
        if pi.has_affinity:
            self.pods_with_affinity.append(pi)
        if pi.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pi)
        self._account(pi, 1)

    def remove_pod(self, pi: PodInfo) -> bool:
        for lst in (self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, other in enumerate(lst):
                if other.uid == pi.uid:
                    del lst[i]
                    break
        for i, other in enumerate(self.pods):
            if other.uid == pi.uid:
                del self._own_pods()[i]
                self._pod_count -= 1
                self._account(other, -1)
                return True
        return False

    def _account(self, pi: PodInfo, sign: int) -> None:
        self.requested.add(pi.requests, sign)
        self.non_zero_requested.milli_cpu += sign * pi.non_zero_cpu
        self.non_zero_requested.memory += sign * pi.non_zero_mem
        for ip, protocol, port in pi.host_ports:
            ips = self.used_ports.setdefault((protocol, port), [])
            if sign > 0:
                ips.append(ip)
            else:
                ips.remove(ip)
                if not ips:
                    del self.used_ports[(protocol, port)]
        self.generation += 1

    def clone(self) -> NodeInfo:
        copy = NodeInfo.__new__(NodeInfo)
        copy.node, copy.name, copy.labels = self.node, self.name, self.labels
        copy.taints, copy.unschedulable = self.taints, self.unschedulable
        copy.allocatable, copy.images = self.allocatable, self.images
        copy.image_states = self.image_states
        copy._pods, copy._pod_count = self._pods, self._pod_count
        copy._owns_pods, copy._pods_shared = False, False
        self._pods_shared = True
        copy.pods_with_affinity = list(self.pods_with_affinity)
        copy.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        copy.requested = self.requested.clone()
        copy.non_zero_requested = self.non_zero_requested.clone()
        copy.used_ports = {k: list(v) for k, v in self.used_ports.items()}
        copy.generation = self.generation
        return copy

    def __repr__(self):
        return f"NodeInfo({self.name}, pods={len(self.pods)})"


# Allocatable resources per distinct status.allocatable: nodes alike share one Resource (never
# changed in place: a NodeInfo's copies share theirs already), parsed once, not per node.
_ALLOCATABLE: dict[tuple, Resource] = {}
_MAX_ALLOCATABLE = 4096


def _allocatable(resources: dict) -> Resource:
    try:
        # The values' types too: 1, 1.0 and True are equal keys but not equal quantities.
        key = (tuple(resources.items()), tuple(map(type, resources.values())))
        shared = _ALLOCATABLE.get(key)
    except TypeError:   # an unhashable value: Resource.from_list words its problem
        return Resource.from_list(resources)
    if shared is None:
        if len(_ALLOCATABLE) >= _MAX_ALLOCATABLE:
            _ALLOCATABLE.clear()
        shared = _ALLOCATABLE[key] = Resource.from_list(resources)
    return shared


class ImageStateSummary:
    __slots__ = ("size", "num_nodes")

    def __init__(self, size: int, num_nodes: int):
        self.size = size
        self.num_nodes = num_nodes


class Victims:
    """extenderv1.Victims: the pods to preempt on one node, most important first, and the PDB
    violations that costs. Shared by DefaultPreemption and the extenders' preempt verb."""

    __slots__ = ("num_pdb_violations", "pods")

    def __init__(self, pods: list, num_pdb_violations: int = 0):
        self.pods = pods
        self.num_pdb_violations = num_pdb_violations

    def __repr__(self):
        return f"Victims({[p.key for p in self.pods]}, pdb={self.num_pdb_violations})"
