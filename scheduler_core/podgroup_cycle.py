"""The pod group scheduling cycle of kube-scheduler v1.36 and v1.37 (GenericWorkload on).

ScheduleOne sends a popped pod whose `spec.schedulingGroup` names a PodGroup to
scheduleOnePodGroup (pkg/scheduler/schedule_one.go). podGroupInfoForPod pops the group's other
pods waiting in the queue (PopSpecificPod) and sorts them by priority, then by their first
attempt; the members are then placed in one attempt over one snapshot, each one tentatively
assumed and reserved so that the next ones see it, and all of it undone before the result is
applied (schedule_one_podgroup.go, both releases):

- v1.36 (podGroupSchedulingDefaultAlgorithm, schedulingAlgorithm per pod): Filter, Score and,
  on a FitError, PostFilter; a member that fits is assumed, reserved and asked Permit without
  waiting. The group is feasible once a member's Permit says Success (GangScheduling: minCount
  members assumed); a member that needs preemption counts on its nominated node, and then the
  group waits for the preemption. A member that fits in a group that is not feasible fails with
  `pod group is unschedulable, <its Permit message>` (errPodGroupUnschedulable).
- v1.37 (algorithm_podgroup.go, PodGroupSchedulingAlgorithm): no PostFilter for a member; the
  PlacementFeasible plugins (GangScheduling: `minCount (N) ...`) are asked before the first
  member and after each one, with how many are scheduled and how many remain, and stop the
  cycle once minCount cannot be met. A member that fits in a group that is not feasible fails
  with the PlacementFeasible message (podGroupFitError); members not tried get it too.
A member that does not fit fails with its own FitError. Once the group is feasible, its
placed members go on in order as placed pods do: assume, Reserve, Permit (GangScheduling lets
them wait until the last one makes minCount), binding.

Each member has its cycle in the trace (Filter, Score, the binding's Reserve and Permit), with
the group's part under `podGroup` (docs/SIMULATE_CONTRACT.md). Not modelled, warned by
plugins/gangscheduling/objects.py: TopologyAwareWorkloadScheduling's placements,
CompositePodGroup, workload-aware preemption (PodGroupPostFilter) and the PodGroup status
conditions the scheduler writes.
"""
from __future__ import annotations

import json

from .framework.diagnosis import Diagnosis, FitError
from .framework.status import Code, SchedulingError, Status
from .loader import SYSTEM_PRIORITY_CLASSES, pod_priority
from .plugins.gangscheduling import _meta, pod_group_name
from .plugins.gangscheduling.objects import POD_GROUP

# schedule_one_podgroup.go v1.36: errPodGroupUnschedulable and the preemption wait.
ERR_POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
WAITING_FOR_PREEMPTION = "pod group is waiting for preemption to complete"
# algorithm_podgroup.go v1.37: RunRootSchedulingAlgorithm when nothing new was placed.
NO_PODS_SCHEDULABLE = "no pods were schedulable"
OTHER_POD_FAILED = "failed to schedule other pod from a pod group: "


class Member:
    """One pod's attempt in the group's cycle (algorithmResult)."""

    __slots__ = ("qpi", "index", "rec", "state", "host", "status", "fit", "nominate",
                 "requires_preemption", "permit", "revert")

    def __init__(self, qpi, index: int, rec):
        self.qpi, self.index, self.rec = qpi, index, rec
        self.state = None
        self.host = ""
        self.status: Status | None = None    # None: placed
        self.fit: FitError | None = None      # the FitError behind a rejection
        self.nominate: str | None = ""        # the nomination its failure leaves
        self.requires_preemption = False
        self.permit: Status | None = None
        self.revert = None

    def placed(self) -> bool:
        return self.status is None


class PodGroupCycle:
    def __init__(self, sched, qpi):
        self.s = sched
        self.minor = sched.features.minor
        self.key = (qpi.pod.namespace, pod_group_name(qpi.pod))
        self.fwk = sched.frameworks[qpi.pod.scheduler_name]
        self.queued = self._queued(qpi)
        self.members: list[Member] = []
        self.status = Status(Code.UNSCHEDULABLE, ERR_POD_GROUP_UNSCHEDULABLE)
        self.waiting_on_preemption = False
        self.feasible_calls: list[dict] = []

    def _belongs(self, pod) -> bool:
        return (pod.namespace, pod_group_name(pod)) == self.key

    def _queued(self, qpi) -> list:
        """podGroupInfoForPod: the popped pod and the group's pods popped after it, by
        priority (highest first), then by their first attempt."""
        queued = [qpi] + self.s.queue.pop_members(self._belongs)
        return sorted(queued, key=lambda q: (-q.pod.priority, q.initial_attempt))

    # --- the cycle ------------------------------------------------------------------------
    def run(self) -> None:
        self.algorithm()
        self._submit()

    def algorithm(self) -> None:
        """The pod group scheduling algorithm: each member's result in self.members, the
        group's in self.status; every tentative place given back at the end."""
        error = self._scheduler_names_differ()
        if not error:
            self._skip_pods()
        if error:
            self.status = Status(Code.ERROR, error)
        elif not self.queued:   # every member skipped: no attempt (scheduleOnePodGroup returns)
            return
        elif self.minor >= 37:
            self._placement_feasible_algorithm()
        else:
            self._permit_algorithm()
        for m in reversed(self.members):
            if m.revert is not None:
                m.revert()

    def _scheduler_names_differ(self) -> str:
        """frameworkForPodGroup (v1.36): one profile per group. v1.37: validatePodGroup."""
        if self.minor >= 37:
            return self._validate()
        first = self.queued[0].pod
        for q in self.queued[1:]:
            if q.pod.scheduler_name != first.scheduler_name:
                return (f"all pods in a single pod group should have the same "
                        f".spec.schedulerName set, got: \"{q.pod.scheduler_name}\" and "
                        f"\"{first.scheduler_name}\"")
        return ""

    def _validate(self) -> str:
        """v1.37 validatePodGroup (schedule_one_podgroup.go): every member, queued then
        scheduled (bound or assumed), has the first queued pod's schedulerName, the PodGroup's
        priority and one preemption policy: the first pod's, or with PodGroupPreemptionPolicy
        the PodGroup's (default PreemptLowerPriority). The error message, '' when valid."""
        first, group = self.queued[0].pod, self._pod_group()
        spec = (group or {}).get("spec") or {}
        classes = self.s.cluster.objects.priority_classes
        named = spec.get("priorityClassName")
        # A class that does not exist: the API server's Priority admission would have refused
        # the PodGroup; taken here as no class (the field is warned as not modelled).
        root_priority = pod_priority({"spec": {**spec, "priorityClassName": None}}
                                     if named and named not in classes
                                     and named not in SYSTEM_PRIORITY_CLASSES
                                     else group or {}, classes)
        root_key = f"podgroup/{self.key[0]}/{self.key[1]}"
        by_group = self.s.features.enabled("PodGroupPreemptionPolicy")
        root_policy = (spec.get("preemptionPolicy") or "PreemptLowerPriority") if by_group \
            else first.preemption_policy
        scheduled = [p for p in self.s.cache.pods.values() if p.node_name and self._belongs(p)]
        for pod in [q.pod for q in self.queued] + scheduled:
            if pod.scheduler_name != first.scheduler_name:
                return (f"all pods in a pod group hierarchy should have the same "
                        f".spec.schedulerName set, got: {_q(pod.scheduler_name)} "
                        f"({_q(pod.name)}) and {_q(first.scheduler_name)} ({_q(first.name)})")
            if pod.priority != root_priority:
                return (f"all pods in a pod group hierarchy should have the same priority as "
                        f"the root pod group's priority, got {pod.priority} ({_q(pod.name)}) "
                        f"and {root_priority} ({_q(root_key)})")
            if pod.preemption_policy != root_policy:
                if by_group:
                    return (f"all pods in a pod group hierarchy should have the same preemption "
                            f"policy as the root pod group's preemption policy, got "
                            f"{pod.preemption_policy} ({_q(pod.name)}) and {root_policy} "
                            f"({_q(root_key)})")
                return (f"all pods in a pod group hierarchy should have the same preemption "
                        f"policy, got {pod.preemption_policy} ({_q(pod.name)}) and "
                        f"{root_policy} ({_q(first.name)})")
        return ""

    def _pod_group(self) -> dict | None:
        return next((obj for obj in self.s.cluster.objects.extra.get(POD_GROUP) or []
                     if _meta(obj) == self.key), None)

    def _skip_pods(self) -> None:
        """skipPodGroupPodSchedule (schedule_one_podgroup.go, after the group is validated): a
        member being deleted or already assumed is left out of the attempt and not put back,
        only its in-flight record cleared (SchedulingQueue.Done)."""
        kept = []
        for qpi in self.queued:
            if qpi.pod.terminating or qpi.pod.uid in self.s.cache.assumed:
                self.s.queue.done(qpi.pod.uid)
            else:
                kept.append(qpi)
        self.queued = kept

    def _permit_algorithm(self) -> None:
        """v1.36 podGroupSchedulingDefaultAlgorithm: feasible once some Permit says Success."""
        requires_preemption = False
        for qpi in self.queued:
            m = self._attempt(qpi, post_filter=True)
            if not m.placed() and not m.requires_preemption:
                if m.status.is_rejected():
                    continue
                self.status = Status(Code.ERROR, OTHER_POD_FAILED + m.status.message())
                self.waiting_on_preemption = False
                return
            requires_preemption = requires_preemption or m.requires_preemption
            if m.permit.is_success():
                if requires_preemption:
                    self.status = Status(Code.UNSCHEDULABLE, ERR_POD_GROUP_UNSCHEDULABLE,
                                         WAITING_FOR_PREEMPTION)
                    self.waiting_on_preemption = True
                else:
                    self.status = Status()

    def _placement_feasible_algorithm(self) -> None:
        """v1.37 podGroupSchedulingDefaultAlgorithm: PlacementFeasible before the first
        member and after each one."""
        remaining = len(self.queued)
        # PodGroupState.ScheduledPodsCount: members bound or assumed (waiting at Permit).
        scheduled = sum(1 for p in self.s.cache.pods.values() if self._belongs(p))
        proceed = self._placement_feasible(scheduled, remaining)
        any_scheduled = False
        for qpi in self.queued:
            if not proceed:
                break
            m = self._attempt(qpi, post_filter=False)
            if not m.placed() and not m.status.is_rejected():
                self.status = Status(Code.ERROR, OTHER_POD_FAILED + m.status.message())
                return
            remaining -= 1
            scheduled += m.placed()
            proceed = self._placement_feasible(scheduled, remaining)
            if proceed:
                any_scheduled = any_scheduled or m.placed()
        if self.status.is_success() and not any_scheduled:
            self.status = Status(Code.UNSCHEDULABLE, NO_PODS_SCHEDULABLE)

    def _placement_feasible(self, scheduled: int, remaining: int) -> bool:
        """podGroupPotentiallyFeasible over RunPlacementFeasiblePlugins: whether to go on,
        the group's status left in self.status (Wait counts as Unschedulable if it is the
        last word)."""
        status = Status()
        for pl in self.fwk.instances.values():
            feasible = getattr(pl, "placement_feasible", None)
            if feasible is None:
                continue
            verdict = (feasible(self.key, scheduled, remaining) or Status()).with_plugin(pl.name())
            self.feasible_calls.append({**verdict.to_dict(), "scheduled": scheduled,
                                        "remaining": remaining})
            if not verdict.is_success():
                status = verdict
                if not verdict.is_wait():
                    break
        if status.code == Code.ERROR:
            self.status = Status(Code.ERROR, "failed to evaluate placement feasibility: "
                                 + status.message())
            return False
        self.status = status if not status.is_wait() else \
            Status(Code.UNSCHEDULABLE, *status.reasons, plugin=status.plugin)
        return status.code != Code.UNSCHEDULABLE

    # --- one member -----------------------------------------------------------------------
    def _attempt(self, qpi, post_filter: bool) -> Member:
        """podGroupPodSchedulingAlgorithm: Filter and Score on the snapshot the members placed
        before it are in, then the tentative place."""
        s = self.s
        index, rec = s.begin_cycle(qpi, self.fwk, popped=not self.members)
        m = Member(qpi, index, rec)
        self.members.append(m)
        m.state = s.new_cycle_state()
        try:
            m.host = s._schedule_pod(self.fwk, m.state, qpi.pod,
                                     rec if rec is None or rec.per_node else None)
        except FitError as fit:
            m.status, m.fit = Status(Code.UNSCHEDULABLE, plugin=""), fit
            # v1.36 runs schedulingAlgorithm, PostFilter included; v1.37 leaves preemption
            # to the group (PodGroupPostFilter) and clears the nomination.
            m.nominate = s.post_filter(self.fwk, m.state, qpi, fit, rec) if post_filter else ""
            if not m.nominate:
                return m
            m.host, m.requires_preemption = m.nominate, True
        except SchedulingError as err:
            m.status = err.status
            return m
        self._hold(m)
        return m

    def _hold(self, m: Member) -> None:
        """assumeAndReserve (and in v1.36 Permit without waiting), to be undone at the end."""
        s, pod, fwk = self.s, m.qpi.pod, self.fwk
        # assume drops the pod's nomination (DeleteNominatedPodIfExists), so the members
        # after it do not count it twice; v1.37's revert restores it, v1.36's does not.
        nominated = s.queue.nominated.get(pod.uid) if self.minor >= 37 else None
        s.queue.delete_nominated(pod.uid)
        s.cache.assume(pod, m.host)
        status = fwk.run_reserve_plugins_reserve(m.state, pod, m.host)
        if not status.is_success():
            self._undo(m, nominated)
            self._rejected_on_host(m, status)
            return
        m.revert = lambda: self._undo(m, nominated)
        if self.minor >= 37:
            return
        m.permit, _ = fwk.run_permit_plugins(m.state, pod, m.host)
        if not m.permit.is_wait() and not m.permit.is_success():
            m.revert()
            m.revert = None
            self._rejected_on_host(m, m.permit)

    def _undo(self, m: Member, nominated: str | None) -> None:
        """unreserveAndForget (v1.37: and the nomination the pod had)."""
        self.fwk.run_reserve_plugins_unreserve(m.state, m.qpi.pod, m.host)
        self.s.cache.forget(m.qpi.pod)
        if nominated:
            self.s.queue.add_nominated(m.qpi.pod, nominated)

    @staticmethod
    def _rejected_on_host(m: Member, status: Status) -> None:
        """A rejection at Reserve or Permit: a FitError on that one node, and no place
        (ScheduleResult{nominatingInfo: clearNominatedNode})."""
        m.requires_preemption = False
        if status.is_rejected():
            diagnosis = Diagnosis()
            diagnosis.node_to_status.set(m.host, status)
            diagnosis.add_plugin_status(status)
            m.fit = FitError(m.qpi.pod, 1, diagnosis)
        m.status, m.nominate, m.host = status, "", ""

    # --- applying the result ----------------------------------------------------------------
    def _submit(self) -> None:
        """submitPodGroupAlgorithmResult: the placed members to their binding, the others
        back to the queue with their own failure or the group's."""
        attempted = {m.qpi.pod.uid for m in self.members}
        for qpi in self.queued:   # members the cycle never tried (completePodGroupAlgorithmResult)
            if qpi.pod.uid not in attempted:
                index, rec = self.s.begin_cycle(qpi, self.fwk, popped=False)
                self.members.append(Member(qpi, index, rec))
                self.members[-1].status = self.status
        entry = self._trace_entry()
        for m in self.members:
            if m.rec is not None:
                m.rec.pod_group(entry)
        for m in self.members:
            self._apply(m)

    def _apply(self, m: Member) -> None:
        s, group = self.s, self.status
        if group.code == Code.ERROR:
            own = m.status is not None and m.status.code == Code.ERROR
            s.fail(m.qpi, "Error", (m.status if own else group).message(), m.rec, nominate="")
        elif m.placed() and group.is_success():
            s.prepare_for_binding_cycle(m.qpi, m.state, m.host, self.fwk, m.rec, m.index)
        elif m.placed() or (m.requires_preemption and not self.waiting_on_preemption):
            self._fail_with_group(m)
        elif m.fit is not None:
            s.fail_fit(m.qpi, m.fit, m.rec, m.nominate)
        else:
            outcome = "Unschedulable" if m.status.is_rejected() else "Error"
            m.qpi.unschedulable_plugins = {m.status.plugin} if m.status.plugin else set()
            s.fail(m.qpi, outcome, m.status.message(), m.rec, nominate="")

    def _fail_with_group(self, m: Member) -> None:
        """A member that had a place, in a group that is not feasible."""
        if self.waiting_on_preemption:   # v1.36: it waits on its node for the victims to go
            self.s.fail(m.qpi, "Unschedulable", self.status.message(), m.rec,
                        nominate=m.host)
            return
        if self.minor >= 37:   # the PlacementFeasible verdict (podGroupFitError)
            message, plugin = self.status.message(), self.status.plugin
        else:                  # errPodGroupUnschedulable with its Permit message
            message = ERR_POD_GROUP_UNSCHEDULABLE + ", " + m.permit.message()
            plugin = ""
        m.qpi.unschedulable_plugins = {plugin} if plugin else set()
        self.s.fail(m.qpi, "Unschedulable", message, m.rec, nominate="")

    def _trace_entry(self) -> dict:
        """The group's part of each member's cycle (the contract's `podGroup`)."""
        result = "WaitingOnPreemption" if self.waiting_on_preemption else self.status.code.label
        entry = {"name": f"{self.key[0]}/{self.key[1]}",
                 "cycle": self.members[0].index if self.members else None,
                 "members": [m.qpi.pod.key for m in self.members],
                 "result": result, "message": self.status.message()}
        if self.minor >= 37:
            entry["placementFeasible"] = self.feasible_calls
        else:
            entry["permit"] = [{"pod": m.qpi.pod.key, "node": m.host, "code": m.permit.code.label,
                                "reasons": list(m.permit.reasons)}
                               for m in self.members if m.permit is not None]
        return entry


def _q(text: str) -> str:
    """Go's %q of a plain string."""
    return json.dumps(text)
