"""GangScheduling: all-or-nothing scheduling of a Workload API gang (GangScheduling gate,
alpha and off from v1.35; the pods' references need GenericWorkload, also off by default).

framework/plugins/gangscheduling/gangscheduling.go, in the shape of each release:
- v1.35: the gang is the pods whose `spec.workloadRef` names the same Workload, pod group and
  replica key; the policy is the Workload's `spec.podGroups[].policy`. PreEnqueue, Reserve,
  Unreserve, Permit.
- v1.36, v1.37: the gang is the pods whose `spec.schedulingGroup.podGroupName` names the same
  PodGroup, whose `spec.schedulingPolicy` holds the policy. PreEnqueue, Permit.
PreEnqueue keeps a pod out of activeQ (UnschedulableAndUnresolvable) until its Workload or
PodGroup exists and minCount pods of the gang exist; Permit holds every member (Wait, 5
minutes) until minCount members are assumed or bound, then allows them all, and activates the
members still pending. A basic policy, or a pod in no gang, passes.

From v1.36 the members are placed together by the pod group scheduling cycle
(podgroup_cycle.py), which asks Permit (v1.36) or PlacementFeasible (v1.37, below) whether the
group is feasible. Not modelled (docs/ENGINE.md): CompositePodGroup hierarchies.
"""
from __future__ import annotations

from ...framework.cycle_state import CycleState
from ...framework.interfaces import (
    EnqueueExtensions,
    PermitPlugin,
    PreEnqueuePlugin,
    ReservePlugin,
)
from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from ...framework.status import Code, Status
from ...framework.types import PodInfo
from .. import names
from .objects import GROUP, POD_GROUP, SCHEDULING_GROUP_SINCE, WORKLOAD

NAME = names.GANG_SCHEDULING
# workloadmanager's defaultSchedulingTimeoutSeconds (v1.35), permitTimeoutDuration (v1.36+).
PERMIT_TIMEOUT = 300.0
QUORUM_NOT_IN_QUEUE = "waiting for minCount pods from a gang to appear in scheduling queue"
WAIT_ON_PERMIT = {35: "waiting for minCount pods from a gang to be waiting on permit",
                  36: "waiting for minCount pods from a gang to be waiting on permit",
                  37: "waiting for minCount pods from a gang to be scheduled"}


def _spec(pod) -> dict:
    obj = pod.obj if isinstance(pod, PodInfo) else pod
    spec = (obj or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def _meta(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return meta.get("namespace") or "default", meta.get("name") or ""


def workload_ref(pod) -> dict | None:
    ref = _spec(pod).get("workloadRef")
    return ref if isinstance(ref, dict) else None


def pod_group_name(pod) -> str | None:
    group = _spec(pod).get("schedulingGroup")
    return group.get("podGroupName") if isinstance(group, dict) else None


class GangScheduling(PreEnqueuePlugin, PermitPlugin, EnqueueExtensions):
    """v1.36 and later: PodGroups and pods' schedulingGroup."""
    NAME = NAME

    def __init__(self, handle):
        self.handle = handle
        self.minor = handle.features.minor

    # --- the gang a pod belongs to (the workload manager's pod group key) ---------------------
    def gang_key(self, pod) -> tuple | None:
        name = pod_group_name(pod)
        return None if name is None else (pod.namespace, name)

    def policy(self, pod) -> tuple[dict | None, Status | None]:
        """The gang's scheduling policy, or the status that the group is not there."""
        namespace, name = self.gang_key(pod)
        for obj in self.handle.objects.extra.get(POD_GROUP) or []:
            if str(obj.get("apiVersion") or "").split("/")[0] == GROUP and \
                    _meta(obj) == (namespace, name):
                return (_spec(obj).get("schedulingPolicy") or {}), None
        return None, Status.unresolvable(
            f'waiting for pods\'s pod group "{name}" to appear in scheduling queue')

    def members(self, key) -> list[PodInfo]:
        return [p for p in self.handle.list_pods() if self.gang_key(p) == key]

    def assumed(self, key, pod) -> set[str]:
        """The members past Reserve: those waiting at Permit, and the pod in this cycle."""
        waiting = {wp.pod.uid for wp in self.handle.iterate_waiting_pods()
                   if self.gang_key(wp.pod) == key}
        return waiting | {pod.uid}

    # --- PreEnqueue ---------------------------------------------------------------------------
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        key = self.gang_key(pod)
        if key is None:
            return None
        policy, status = self.policy(pod)
        if status is not None:
            return status
        gang = policy.get("gang")
        if gang is None:   # this plugin only cares about a gang policy
            return None
        if len(self.members(key)) < int(gang.get("minCount") or 0):
            return Status.unresolvable(QUORUM_NOT_IN_QUEUE)
        return None

    # --- Permit -------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: PodInfo, node_name: str):
        key = self.gang_key(pod)
        if key is None:
            return None, 0
        policy, status = self.policy(pod)
        if status is not None:   # the group went away: an error retries the pod later
            return Status.as_error(self.missing_at_permit(pod)), 0
        gang = policy.get("gang")
        if gang is None:
            return None, 0
        members = self.members(key)
        assumed = self.assumed(key, pod)
        scheduled = assumed | {p.uid for p in members if p.node_name}
        if len(scheduled) < int(gang.get("minCount") or 0):
            # Activate the pending members, in case they waited for this one.
            self.handle.activate([p for p in members if p.uid not in scheduled])
            return Status(Code.WAIT, WAIT_ON_PERMIT[min(self.minor, 37)]), self.timeout(key)
        for wp in self.handle.iterate_waiting_pods():
            if wp.pod.uid in assumed:
                wp.allow(NAME)
        return None, 0

    # --- PlacementFeasible (v1.37's pod group cycle) ------------------------------------------
    def placement_feasible(self, key, scheduled: int, remaining: int) -> Status | None:
        """v1.37 PlacementFeasible: Success once minCount members are scheduled, Wait while
        the remaining ones may still make it, Unschedulable once they cannot (getMinCount:
        1 for a basic policy). v1.36 has no such extension point (its cycle asks Permit)."""
        if self.minor < 37:
            return None
        policy = next((_spec(obj).get("schedulingPolicy") or {}
                       for obj in self.handle.objects.extra.get(POD_GROUP) or []
                       if str(obj.get("apiVersion") or "").split("/")[0] == GROUP
                       and _meta(obj) == key), {})
        min_count = int((policy.get("gang") or {}).get("minCount") or 1)
        if remaining + scheduled < min_count:
            return Status(Code.UNSCHEDULABLE, f"minCount ({min_count}) cannot be satisfied: "
                                              f"{scheduled} scheduled, {remaining} remaining")
        if scheduled < min_count:
            return Status(Code.WAIT, f"minCount ({min_count}) is not yet satisfied: "
                                     f"{scheduled} scheduled, {remaining} remaining")
        return None

    def missing_at_permit(self, pod) -> str:
        namespace, name = self.gang_key(pod)
        return f'failed to get podGroup {namespace}/{name}: podgroup.scheduling.k8s.io ' \
               f'"{name}" not found'

    def timeout(self, key) -> float:
        return PERMIT_TIMEOUT

    # --- EnqueueExtensions --------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        return set(self.queueing_hints())

    def queueing_hints(self) -> dict:
        return {"UnscheduledPodAdd": self.is_schedulable_after_pod_added,
                "AssignedPodAdd": self.is_schedulable_after_pod_added,
                "PodGroupAdd": self.is_schedulable_after_pod_group_added,
                "PodGroupUpdate": self.is_schedulable_after_pod_group_updated}

    def is_schedulable_after_pod_added(self, pod, old, new) -> str:
        """A new member may complete the gang's minCount."""
        key = self.gang_key(pod)
        return QUEUE if key is not None and self.gang_key(new) == key else QUEUE_SKIP

    def _is_own_group(self, pod, group: dict) -> bool:
        key = self.gang_key(pod)
        return key is not None and key == _meta(group)

    def is_schedulable_after_pod_group_added(self, pod, old, new) -> str:
        return QUEUE if self._is_own_group(pod, new) else QUEUE_SKIP

    def is_schedulable_after_pod_group_updated(self, pod, old, new) -> str:
        """Only a decreased minCount can make waiting members schedulable."""
        if not self._is_own_group(pod, new):
            return QUEUE_SKIP
        old_gang = (_spec(old).get("schedulingPolicy") or {}).get("gang")
        new_gang = (_spec(new).get("schedulingPolicy") or {}).get("gang")
        if old_gang is None or new_gang is None:   # not a gang update: unexpected, so queue
            return QUEUE
        return QUEUE if new_gang.get("minCount", 0) < old_gang.get("minCount", 0) \
            else QUEUE_SKIP


class WorkloadGangScheduling(GangScheduling, ReservePlugin):
    """v1.35: Workloads and pods' workloadRef; Reserve marks members assumed."""

    def __init__(self, handle):
        super().__init__(handle)
        self._assumed: dict[tuple, set[str]] = {}
        self._deadlines: dict[tuple, float] = {}

    def gang_key(self, pod) -> tuple | None:
        ref = workload_ref(pod)
        if ref is None:
            return None
        return (pod.namespace, ref.get("name") or "", ref.get("podGroup") or "",
                ref.get("podGroupReplicaKey") or "")

    def policy(self, pod) -> tuple[dict | None, Status | None]:
        namespace, workload, group, _ = self.gang_key(pod)
        found = next((w for w in self.handle.objects.extra.get(WORKLOAD) or []
                      if _meta(w) == (namespace, workload)), None)
        if found is None:
            return None, Status.unresolvable(
                f'waiting for pods\'s workload "{workload}" to appear in scheduling queue')
        for pg in _spec(found).get("podGroups") or []:
            if isinstance(pg, dict) and pg.get("name") == group:
                return pg.get("policy") or {}, None
        return None, Status.unresolvable(
            f'pod group "{group}" doesn\'t exist for a workload "{workload}"')

    def missing_at_permit(self, pod) -> str:
        namespace, workload, group, _ = self.gang_key(pod)
        _, status = self.policy(pod)
        if "doesn't exist" in status.message():
            return status.message()
        return f'failed to get workload {namespace}/{workload}: workload.scheduling.k8s.io ' \
               f'"{workload}" not found'

    def assumed(self, key, pod) -> set[str]:
        return set(self._assumed.get(key, ()))

    def timeout(self, key) -> float:
        """SchedulingTimeout: one deadline for the gang, set by its first wait (or anew once
        it passed), so later members wait only what is left of it."""
        now = self.handle.now()
        if key not in self._deadlines or self._deadlines[key] < now:
            self._deadlines[key] = now + PERMIT_TIMEOUT
        return self._deadlines[key] - now

    # --- Reserve ------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        key = self.gang_key(pod)
        if key is not None:
            self._assumed.setdefault(key, set()).add(pod.uid)
        return None

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        key = self.gang_key(pod)
        if key is not None:
            self._assumed.get(key, set()).discard(pod.uid)

    # --- EnqueueExtensions --------------------------------------------------------------------
    def queueing_hints(self) -> dict:
        # Workload reference and pod groups are immutable: no update events.
        return {"UnscheduledPodAdd": self.is_schedulable_after_pod_added,
                "AssignedPodAdd": self.is_schedulable_after_pod_added,
                "WorkloadAdd": self.is_schedulable_after_workload_added}

    def is_schedulable_after_workload_added(self, pod, old, new) -> str:
        key = self.gang_key(pod)
        return QUEUE if key is not None and key[:2] == _meta(new) else QUEUE_SKIP


def new(args: dict, handle) -> GangScheduling:
    if handle.features.minor < SCHEDULING_GROUP_SINCE:
        return WorkloadGangScheduling(handle)
    return GangScheduling(handle)
