"""Coscheduling: gang scheduling of PodGroups, after kubernetes-sigs/scheduler-plugins.

pkg/coscheduling (coscheduling.go, core/core.go). A PodGroup (scheduling.x-k8s.io/v1alpha1)
names how many of its pods must run together (spec.minMember); pods join it with the label
scheduling.x-k8s.io/pod-group. No member binds before minMember members hold a node:

- QueueSort keeps a group together in the queue: priority, then the group's creation time (a
  pod without a group: its first attempt), then the pod's namespace/name.
- PreFilter turns a member away while its group is backed off, has fewer than minMember pods in
  all, or (spec.minResources) cannot fit in what the cluster has free.
- PostFilter: a member fits nowhere, so the group will not make it now; its waiting members are
  rejected, unless the group is within podGroupRejectPercentage of its quorum.
- Permit holds each member (Wait, scheduleTimeoutSeconds) until minMember members are assumed
  or bound, then allows them all; a Wait also moves the siblings back to the active queue.
- Unreserve (a member timed out or was rejected) rejects the group's other waiting members.

Virtual time stands in for the wall clock: a PodGroup's metadata.creationTimestamp is read as
is, and a pod's first attempt at virtual second t counts as RUN_EPOCH + t, after every object
of the input; a PodGroup without creationTimestamp counts as created when the run starts.
"""
from __future__ import annotations

import copy
from datetime import datetime

from ..errors import child, invalid, is_int
from ..framework.cycle_state import CycleState
from ..framework.interfaces import (
    EnqueueExtensions,
    PermitPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreFilterPlugin,
    QueueSortPlugin,
    ReservePlugin,
)
from ..framework.status import Code, Status
from ..framework.types import CPU, PODS, NodeInfo, PodInfo, Resource
from ..plugins.helper import checked_args
from ..quantity import QuantityError, resource_value
from ..scheduler import RUN_EPOCH

NAME = "Coscheduling"
POD_GROUP_KIND = "PodGroup"
POD_GROUP_API_GROUP = "scheduling.x-k8s.io"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
DEFAULT_WAIT_TIME = 60.0              # util.DefaultWaitTime
PERMITTED_DEFAULT_EXPIRATION = 3.0    # the permittedPG cache's default expiration

DEFAULT_ARGS = {
    "permitWaitingTimeSeconds": 60,
    "podGroupBackoffSeconds": 0,
    "podGroupRejectPercentage": 10,
}
ARGS_FIELDS = dict.fromkeys(DEFAULT_ARGS)      # CoschedulingArgs: decoded strictly

WAITING_REJECTED_IN_POST_FILTER = "optimistic rejection in PostFilter"
WAITING_REJECTED_IN_UNRESERVE = "rejection in Unreserve"


def pod_group_label(pod: PodInfo) -> str:
    return pod.labels.get(POD_GROUP_LABEL, "")


def pod_group_full_name(pod: PodInfo) -> str:
    """'namespace/group' of the pod's group, '' for a pod in no group."""
    name = pod_group_label(pod)
    return f"{pod.namespace}/{name}" if name else ""


def parse_timestamp(text) -> float:
    """An RFC 3339 timestamp in seconds; none (or an unreadable one) is the run's start."""
    if not text:
        return RUN_EPOCH
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return RUN_EPOCH


class PodGroup:
    """The fields of a PodGroup object the plugin reads."""

    __slots__ = ("name", "namespace", "full_name", "min_member", "schedule_timeout",
                 "creation", "min_resources")

    def __init__(self, obj: dict):
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        self.name = meta.get("name", "")
        self.namespace = meta.get("namespace") or "default"
        self.full_name = f"{self.namespace}/{self.name}"
        self.min_member = int(spec.get("minMember") or 0)
        timeout = spec.get("scheduleTimeoutSeconds")
        self.schedule_timeout = None if timeout is None else float(timeout)
        self.creation = parse_timestamp(meta.get("creationTimestamp"))
        self.min_resources = spec.get("minResources")


def is_pod_group(obj: dict) -> bool:
    """A PodGroup of scheduler-plugins (Volcano has a kind of the same name)."""
    api_version = obj.get("apiVersion") or ""
    return not api_version or api_version.split("/")[0] == POD_GROUP_API_GROUP


def wait_time(pg: PodGroup | None, schedule_timeout: float) -> float:
    """util.GetWaitTimeDuration: the group's scheduleTimeoutSeconds, else the plugin's."""
    if pg is not None and pg.schedule_timeout is not None:
        return pg.schedule_timeout
    if schedule_timeout:
        return schedule_timeout
    return DEFAULT_WAIT_TIME


def _format_amount(name: str, amount: int) -> str:
    if name == CPU:
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    return str(amount)


def _left_on_node(ni: NodeInfo, group_full_name: str) -> tuple[Resource, int]:
    """What the node has free if the group's own pods were not there (getNodeResource)."""
    requested = Resource()
    others = 0
    for pi in ni.pods:
        if pod_group_full_name(pi) == group_full_name:
            continue
        requested.add(pi.requests)
        others += 1
    left = Resource()
    for name in ni.allocatable.names():
        left.set(name, ni.allocatable.get(name) - requested.get(name))
    return left, ni.allocatable.allowed_pod_number - others


def check_cluster_resource(nodes: list[NodeInfo], wanted: dict[str, int],
                           group_full_name: str) -> str:
    """CheckClusterResource: '' when the nodes' free resources, summed node by node, cover
    `wanted`, else the gap ("resource gap: map[cpu:2 pods:1]")."""
    remaining = dict(wanted)
    for ni in nodes:
        left, pods_left = _left_on_node(ni, group_full_name)
        for name in list(remaining):
            rest = remaining[name] - (pods_left if name == PODS else left.get(name))
            if rest <= 0:
                del remaining[name]
            else:
                remaining[name] = rest
        if not remaining:
            return ""
    gap = " ".join(f"{n}:{_format_amount(n, v)}" for n, v in sorted(remaining.items()))
    return f"resource gap: map[{gap}]"


class Coscheduling(QueueSortPlugin, PreFilterPlugin, PostFilterPlugin, ReservePlugin,
                   PermitPlugin, EnqueueExtensions):
    NAME = NAME

    def __init__(self, args: dict, handle):
        self.handle = handle
        self.schedule_timeout = float(args["permitWaitingTimeSeconds"])
        backoff = args["podGroupBackoffSeconds"]
        self.pg_backoff = float(backoff) if backoff > 0 else None
        self.reject_percentage = args["podGroupRejectPercentage"]
        # go-cache entries: group full name -> virtual time the entry expires.
        self._permitted: dict[str, float] = {}
        self._backed_off: dict[str, float] = {}
        self._index_key = None
        self._index: dict[str, PodGroup] = {}

    # --- the PodGroup manager ------------------------------------------------------------------
    def _pod_groups(self) -> dict[str, PodGroup]:
        objs = self.handle.objects.extra.get(POD_GROUP_KIND) or []
        key = (id(objs), len(objs))
        if key != self._index_key:
            self._index = {}
            for obj in objs:
                try:
                    pg = PodGroup(obj)
                except (TypeError, ValueError):
                    continue  # the API server would have refused it: as if it did not exist
                if is_pod_group(obj):
                    self._index[pg.full_name] = pg
            self._index_key = key
        return self._index

    def get_pod_group(self, pod: PodInfo) -> tuple[str, PodGroup | None]:
        """GetPodGroup: the group's full name ('' for none) and the PodGroup, if it exists."""
        full_name = pod_group_full_name(pod)
        if not full_name:
            return "", None
        return full_name, self._pod_groups().get(full_name)

    def group_pods(self, namespace: str, group: str) -> list[PodInfo]:
        """The pod lister's pods carrying the group's label, whatever their phase."""
        return [p for p in self.handle.list_pods()
                if p.namespace == namespace and pod_group_label(p) == group]

    def calculate_assigned_pods(self, group: str, namespace: str) -> int:
        """Members with a node: in the snapshot (bound or assumed) or waiting at Permit."""
        uids = {pi.uid for ni in self.handle.snapshot.list() for pi in ni.pods
                if pi.node_name and pi.namespace == namespace and pod_group_label(pi) == group}
        uids.update(wp.pod.uid for wp in self.handle.iterate_waiting_pods()
                    if wp.pod.namespace == namespace and pod_group_label(wp.pod) == group)
        return len(uids)

    def _cached(self, cache: dict[str, float], key: str) -> bool:
        expires = cache.get(key)
        return expires is not None and self.handle.now() <= expires

    def _add_cached(self, cache: dict[str, float], key: str, ttl: float) -> None:
        # go-cache's Add leaves an entry that has not expired alone.
        if not self._cached(cache, key):
            cache[key] = self.handle.now() + ttl

    def _reject_waiting(self, namespace: str, group: str, message: str) -> None:
        for wp in self.handle.iterate_waiting_pods():
            if wp.pod.namespace == namespace and pod_group_label(wp.pod) == group:
                wp.reject(NAME, message)

    # --- QueueSort -----------------------------------------------------------------------------
    def creation_timestamp(self, qpi) -> float:
        """GetCreationTimestamp: the group's creation, else when the pod was first tried."""
        _, pg = self.get_pod_group(qpi.pod)
        if pg is not None:
            return pg.creation
        # Go reads InitialAttemptTimestamp; a pod never popped yet has only its queue time.
        attempt = qpi.initial_attempt if qpi.initial_attempt is not None else qpi.timestamp
        return RUN_EPOCH + attempt

    def less(self, a, b) -> bool:
        p1, p2 = a.pod.priority, b.pod.priority
        if p1 != p2:
            return p1 > p2
        t1, t2 = self.creation_timestamp(a), self.creation_timestamp(b)
        if t1 == t2:
            return a.pod.key < b.pod.key
        return t1 < t2

    # --- PreFilter -----------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        # UnschedulableAndUnresolvable: preemption cannot make a group complete.
        full_name, pg = self.get_pod_group(pod)
        if pg is None:
            return None, None
        if self._cached(self._backed_off, full_name):
            return None, Status.unresolvable(f"podGroup {full_name} failed recently")
        pods = self.group_pods(pod.namespace, pg.name)
        if len(pods) < pg.min_member:
            return None, Status.unresolvable(
                f"pre-filter pod {pod.name} cannot find enough sibling pods, current pods "
                f"number: {len(pods)}, minMember of group: {pg.min_member}")
        if pg.min_resources is None or self._cached(self._permitted, full_name):
            return None, None
        try:
            wanted = {name: resource_value(name, value)
                      for name, value in pg.min_resources.items()}
        except QuantityError as exc:
            return None, Status.as_error(f"podGroup {full_name} spec.minResources: {exc}")
        wanted[PODS] = pg.min_member
        gap = check_cluster_resource(self.handle.snapshot.list(), wanted, full_name)
        if gap:
            return None, Status.unresolvable(gap)
        self._add_cached(self._permitted, full_name,
                         self.schedule_timeout or PERMITTED_DEFAULT_EXPIRATION)
        return None, None

    # --- PostFilter ----------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: PodInfo, node_to_status):
        full_name, pg = self.get_pod_group(pod)
        if pg is None:
            return PostFilterResult(), Status.unschedulable("can not find pod group")
        # Enough members hold a node already: the group is not at stake.
        assigned = self.calculate_assigned_pods(pg.name, pod.namespace)
        if assigned >= pg.min_member:
            return PostFilterResult(), Status(Code.UNSCHEDULABLE)
        # Close to the quorum: let the next members try before giving the group up.
        if (pg.min_member - assigned) * 100 <= self.reject_percentage * pg.min_member:
            return PostFilterResult(), Status(Code.UNSCHEDULABLE)
        # If this member fits nowhere, the others are likely not to fit either.
        self._reject_waiting(pod.namespace, pg.name, WAITING_REJECTED_IN_POST_FILTER)
        if self.pg_backoff is not None and \
                len(self.group_pods(pod.namespace, pg.name)) >= pg.min_member:
            self._add_cached(self._backed_off, full_name, self.pg_backoff)
        self._permitted.pop(full_name, None)
        return PostFilterResult(), Status.unschedulable(
            f"PodGroup {full_name} gets rejected due to Pod {pod.name} is unschedulable even "
            "after PostFilter")

    # --- Reserve -------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        full_name, pg = self.get_pod_group(pod)
        if pg is None:
            return
        self._reject_waiting(pod.namespace, pg.name, WAITING_REJECTED_IN_UNRESERVE)
        self._permitted.pop(full_name, None)

    # --- Permit --------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: PodInfo, node_name: str):
        full_name, pg = self.get_pod_group(pod)
        if not full_name:
            return None, 0
        if pg is None:
            return Status.unschedulable("PodGroup not found"), 0
        # The pod in this cycle is assumed after the snapshot was taken: it counts as one more.
        if self.calculate_assigned_pods(pg.name, pg.namespace) + 1 >= pg.min_member:
            for wp in self.handle.iterate_waiting_pods():
                if pod_group_full_name(wp.pod) == full_name:
                    wp.allow(NAME)
            return None, 0
        timeout = wait_time(pg, self.schedule_timeout) or self.schedule_timeout
        siblings = [p for p in self.group_pods(pod.namespace, pg.name) if p.uid != pod.uid]
        if siblings:
            self.handle.activate(siblings)
        return Status(Code.WAIT), timeout

    # --- EnqueueExtensions ---------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        # A member bound (the quorum may be in reach) or a PodGroup created or changed.
        return {"AssignedPodAdd", "PodGroupAdd", "PodGroupUpdate"}


# --- args ----------------------------------------------------------------------------------------
def default_args(args: dict) -> dict:
    """SetDefaults_CoschedulingArgs: 60s at Permit, no group backoff, 10% reject threshold."""
    out = copy.deepcopy(dict(args or {}))
    for name, value in DEFAULT_ARGS.items():
        if out.get(name) is None:
            out[name] = value
    return out


def validate_args(args: dict, path: str) -> list[str]:
    """ValidateCoschedulingArgs."""
    errs = []
    for name in ("permitWaitingTimeSeconds", "podGroupBackoffSeconds"):
        value = args.get(name)
        if not is_int(value):
            errs.append(invalid(child(path, name), value, "must be an integer"))
        elif value < 0:
            errs.append(invalid(child(path, name), value, "must be greater than 0"))
    name = "podGroupRejectPercentage"
    value = args.get(name)
    if not is_int(value):
        errs.append(invalid(child(path, name), value, "must be an integer"))
    elif not 0 <= value <= 100:
        errs.append(invalid(child(path, name), value, "must be between 0 and 100"))
    return errs


def new(args: dict, handle) -> Coscheduling:
    args = checked_args(args, default_args, validate_args)
    return Coscheduling(args, handle)
