"""The scheduler: scheduling and binding cycles over a queue, a cache and a virtual clock.

Mirrors schedule_one.go. Time is virtual: Permit timeouts, backoff, the unschedulable flush
and graceful deletions are events on a heap; a run ends when nothing can change any more.
"""
from __future__ import annotations

import copy
import heapq
import itertools
import random

import numpy as np

from .cache import Cache
from .columns import COLUMNS_KEY, vector_path_enabled
from .columns.filtering import find_feasible
from .columns.store import columns_of
from .config import Configuration
from .durations import go_duration
from .epoch import RUN_EPOCH
from .extenders.client import build_extenders
from .extenders.dispatch import (
    bind_with_extender,
    filter_with_extenders,
    prioritize_with_extenders,
)
from .features import FeatureGates
from .framework.batch import OpportunisticBatch
from .framework.cycle_state import CycleState
from .framework.diagnosis import Diagnosis, FitError
from .framework.registry import Registry
from .framework.runtime import Framework
from .framework.status import Code, SchedulingError, Status
from .loader import Cluster
from .plugins.dynamicresources.objects import release_claims
from .plugins.gangscheduling import pod_group_name
from .plugins.gangscheduling.objects import SCHEDULING_GROUP_SINCE
from .plugins.registry import default_registry
from .plugins.signing import profile_signer
from .podgroup_cycle import PodGroupCycle
from .queue import (
    MAX_UNSCHEDULABLE_STAY,
    UNSCHEDULABLE,
    UNSCHEDULABLE_FLUSH_PERIOD,
    ClusterEvent,
    SchedulingQueue,
)
from .reservoir import select_index

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
DEFAULT_GRACE_PERIOD = 30.0
NO_NODES_AVAILABLE = "no nodes available to schedule pods"
QUEUE_SORT_BEFORE = 10   # the contract's queueSort.before: at most this many pods
TERMINAL_PHASES = ("Succeeded", "Failed")
# Where DefaultPreemption leaves the candidates it weighed and why its node won, for the trace.
PREEMPTION_DETAIL_KEY = "DefaultPreemption/detail"
# Where findNodesThatFitPod leaves OpportunisticBatching's hint for schedulePod:
# (hint or "", signature, the cycle's batch trace entry).
BATCH_HINT_KEY = "OpportunisticBatch/hint"


class WaitingPod:
    """A pod held at Permit until every waiting plugin allows it, or one rejects it."""

    def __init__(self, scheduler, binding, waits: dict[str, float]):
        self._scheduler = scheduler
        self.binding = binding
        self.pod = binding.pod
        self.deadlines = {p: scheduler.clock + t for p, t in waits.items()}
        self.timers: dict[str, int] = {}   # plugin -> the event of its timeout
        self.status: Status | None = None

    def pending_plugins(self) -> list[str]:
        return list(self.deadlines)

    def allow(self, plugin: str) -> None:
        self.deadlines.pop(plugin, None)
        if plugin in self.timers:
            self._scheduler.cancel_events({self.timers.pop(plugin)})
        if not self.deadlines and self.status is None:
            self._resolve(Status())

    def reject(self, plugin: str, message: str) -> None:
        if self.status is None:
            self._resolve(Status(Code.UNSCHEDULABLE, message, plugin=plugin))

    def _resolve(self, status: Status) -> None:
        self.status = status
        self._scheduler.resolve_waiting(self)


class Binding:
    """What the binding cycle needs of its scheduling cycle."""

    __slots__ = ("qpi", "pod", "state", "host", "fwk", "rec", "index")

    def __init__(self, qpi, state, host, fwk, rec, index):
        self.qpi, self.pod, self.state = qpi, qpi.pod, state
        self.host, self.fwk, self.rec, self.index = host, fwk, rec, index


class ProfileHandle:
    """framework.Handle for one profile: the scheduler's shared state plus its own framework."""

    def __init__(self, scheduler: Scheduler):
        self._s = scheduler
        self.framework: Framework | None = None

    @property
    def snapshot(self):
        return self._s.snapshot

    @property
    def objects(self):
        return self._s.cluster.objects

    @property
    def rng(self):
        return self._s.rng

    @property
    def features(self):
        return self._s.features

    @property
    def warnings(self):
        return self._s.warnings

    @property
    def extenders(self):
        return self._s.extenders

    def now(self) -> float:
        return self._s.clock

    def nominated_pods_for_node(self, node_name: str):
        return self._s.queue.nominated_pods_for_node(node_name)

    def iterate_waiting_pods(self):
        return list(self._s.waiting.values())

    def get_waiting_pod(self, uid: str):
        return self._s.waiting.get(uid)

    def list_pods(self) -> list:
        """Every pod of the cluster, as the scheduler's pod informer has them: pending,
        waiting, assumed or bound, and deleted ones until their grace period is over; not
        the Succeeded or Failed ones, which its field selector leaves out."""
        placed = self._s.cache.pods
        return [p for p in self._s.pods
                if (not p.terminating or p.uid in placed)
                and (p.obj.get("status") or {}).get("phase") not in TERMINAL_PHASES]

    def delete_pod(self, pod, reason: str = "preempted") -> None:
        self._s.delete_pod(pod, reason)

    def set_nominated_node(self, pod, node_name: str) -> None:
        self._s.queue.add_nominated(pod, node_name)

    def clear_nominated_node(self, pod) -> None:
        self._s.queue.delete_nominated(pod.uid)

    def bind_pod(self, pod, node_name: str) -> Status | None:
        if pod.uid not in self._s.cache.pods:
            return Status.as_error(f'pods "{pod.name}" not found')
        return None

    def activate(self, pods) -> None:
        self._s.activate(pods)

    def cluster_event(self, event: str, *, old=None, new=None) -> None:
        """A change a plugin made through the API (DynamicResources' claim updates), as the
        informer delivers it."""
        self._s.cluster_event(event, old=old, new=new)


class Scheduler:
    def __init__(self, cluster: Cluster, config: Configuration, *, seed: int = 0,
                 observer=None, registry: Registry | None = None, extenders=None,
                 features: FeatureGates | None = None):
        self.cluster = cluster
        # The release and gates the run follows, and where what it does not honour is said.
        self.features = features or cluster.features
        self.expectation = self.features.enabled("NominatedNodeNameForExpectation")
        # ScheduleOne's pod group branch (v1.36+, sched.genericWorkloadEnabled).
        self.pod_group_cycle = (self.features.minor >= SCHEDULING_GROUP_SINCE
                                and self.features.enabled("GenericWorkload"))
        self.warnings = cluster.warnings
        self.registry = registry or default_registry()
        self.config = config
        self.rng = random.Random(seed)
        self.vector_path = vector_path_enabled()
        self.observer = observer
        self.clock = 0.0
        self.cycle_count = 0
        self.next_start_node_index = 0
        self.changes = 0
        self._events: list = []
        self._event_seq = itertools.count()
        self.waiting: dict[str, WaitingPod] = {}
        self._gates: dict[str, list] = {}
        self._change_marks: dict[str, int] = {}
        self._error_marks: dict[str, int] = {}
        self._victims: list[str] = []
        # The event behind the queue moves happening now, for observers to name them.
        self.event_cause = ""
        # Called with each pod once it is bound (the cluster's controllers watch bindings).
        self.bind_hooks: list = []
        self.life = None    # a timeline.life.ClusterLife once the cluster has one
        # --until: virtual seconds after which nothing more happens (None: no bound).
        self.until: float | None = None
        self.extenders = extenders if extenders is not None else self._build_extenders()
        self.frameworks: dict[str, Framework] = {}
        for profile in self.config.profiles:
            handle = ProfileHandle(self)
            fwk = Framework(profile, self.registry, handle)
            handle.framework = fwk
            self.frameworks[profile.scheduler_name] = fwk
        # OpportunisticBatching (v1.35+): one batch per profile (frameworkImpl.batch).
        self.batches: dict[str, OpportunisticBatch] = {}
        if self.features.enabled("OpportunisticBatching"):
            for name, fwk in self.frameworks.items():
                self.batches[name] = OpportunisticBatch(
                    profile_signer(fwk, bool(self.extenders), self.features),
                    fwk.run_filter_plugins, lambda node: self.snapshot.get(node))
        first = next(iter(self.frameworks.values()))
        # The QueueSort plugin's own Less, as Go's QueueSortFunc hands it to the queue (no
        # framework method in between: it is asked about twenty times per pop).
        self.queue = SchedulingQueue(
            first.queue_sort_plugin.less, self._pre_enqueue, lambda: self.clock,
            self.config.pod_initial_backoff_seconds, self.config.pod_max_backoff_seconds,
            events=self._queue_event if observer is not None else None,
            hints_of=self._hints_of)
        self.cache = Cache(cluster.nodes)
        self.pods = cluster.pod_infos()
        self.pending_at_start = []
        self.no_profile = {}
        self.bindings: dict[str, str | None] = {}
        self._place_initial_pods()
        self.snapshot = self.cache.new_snapshot()

    def _build_extenders(self):
        if not self.config.extenders:
            return []
        return build_extenders(self.config.extenders, node_infos=lambda: self.snapshot)

    def _place_initial_pods(self) -> None:
        for pi in self.pods:
            status = pi.obj.get("status") or {}
            if status.get("phase") in TERMINAL_PHASES:
                continue  # the cache and the queue ignore pods that have finished
            pi.start_time = _parse_time(status["startTime"]) if status.get("startTime") \
                else RUN_EPOCH
            deleting = bool((pi.obj.get("metadata") or {}).get("deletionTimestamp"))
            if pi.node_name:
                self.cache.add_pod(pi)
                if deleting:
                    self._start_deletion(pi)
                continue
            if deleting:
                continue  # skipPodSchedule: a pod being deleted is not scheduled
            self.pending_at_start.append(pi.key)
            self.bindings[pi.key] = None
            if pi.scheduler_name not in self.frameworks:
                self.no_profile[pi.key] = pi.scheduler_name
                continue
            self.enqueue_new_pod(pi)

    def enqueue_new_pod(self, pi) -> None:
        """addPodToSchedulingQueue: with GangScheduling on, a new pending pod is also an
        UnscheduledPodAdd event, which may bring its gang's gated members to their quorum."""
        self.queue.add(pi)
        if self.features.gangs:
            self.cluster_event("UnscheduledPodAdd", pi)

    # --- queue plumbing ----------------------------------------------------------------------
    def _pre_enqueue(self, pod):
        # The gates checked as the pod last went for activeQ: its cycles' PreEnqueue entries.
        # Kept even unobserved (a few entries per enqueue, not per node): a run observed from
        # a later chunk on still has them for pods queued before.
        gates = self._gates[pod.uid] = []
        return self.frameworks[pod.scheduler_name].run_pre_enqueue_plugins(pod, gates)

    def set_observer(self, observer) -> None:
        """Observe from the next cycle on (None: stop); an unobserved run records nothing."""
        self.observer = observer
        self.queue.set_listener(self._queue_event if observer is not None else None)

    def _queue_event(self, queue: str, qpi) -> None:
        self.observer.queue_event(queue, qpi, self.clock)

    def _hints_of(self, pod, plugin: str) -> dict:
        return self.frameworks[pod.scheduler_name].hints_of(plugin)

    def cluster_event(self, event: str, pod=None, *, old=None, new=None, only=None) -> None:
        """An event for the queue: `pod` is the pod added, updated (new) or deleted (old);
        `old` and `new` are the objects of any other event, for the plugins' QueueingHints."""
        self.changes += 1
        if pod is not None:
            old, new = (pod, None) if event.endswith("Delete") else (old, pod)
        if event == "AssignedPodAdd" and self.queue.unschedulable:
            only = self._concerned_by_assigned_pod(pod)   # (no pod to ask: not made)
        self.event_cause = event
        self.queue.move_all_to_active_or_backoff(ClusterEvent(event, old, new), only=only)
        self.event_cause = ""
        if event == "AssignedPodDelete" and pod is not None:
            self._release_claims(pod)

    def _release_claims(self, pod) -> None:
        """kube-controller-manager's resourceclaim controller reacting to the deletion: the
        claims it updates reach the queue as ResourceClaimUpdate events."""
        for old_claim, claim in release_claims(self.cluster.objects, pod.obj):
            self.cluster_event("ResourceClaimUpdate", old=old_claim, new=claim)

    def _concerned_by_assigned_pod(self, added):
        """AssignedPodAdded's getUnschedulablePodsWithCrossTopologyTerm: a newly bound pod can
        only help pods that PodTopologySpread rejected in its namespace, or whose required pod
        affinity it matches. (A pod that failed with no rejecting plugin is not held back.)"""
        from .plugins.interpodaffinity.terms import parsed_affinity
        from .plugins.names import POD_TOPOLOGY_SPREAD

        ns_labels = self.cluster.objects.namespace_labels(added.namespace)
        namespace = added.namespace

        def concerned(qpi) -> bool:
            # Asked of every pod in the pool on every binding: the common answers first,
            # and no generator for the pods without required affinity terms.
            plugins = qpi.unschedulable_plugins
            if not plugins and not qpi.pending_plugins:
                return True
            if POD_TOPOLOGY_SPREAD in plugins and qpi.pod.namespace == namespace:
                return True
            terms = parsed_affinity(qpi.pod).required_affinity
            return bool(terms) and any(term.matches(added, ns_labels) for term in terms)
        return concerned

    def activate(self, pods) -> None:
        self.queue.activate(pods)

    # --- the event loop ----------------------------------------------------------------------
    def at(self, time: float, action) -> int:
        seq = next(self._event_seq)
        heapq.heappush(self._events, (time, seq, action))
        return seq

    def cancel_events(self, seqs: set[int]) -> None:
        """Drop scheduled events (stopped timers), so that they no longer move the clock."""
        self._events = [e for e in self._events if e[1] not in seqs]
        heapq.heapify(self._events)

    def run(self, max_cycles: int | None = None) -> None:
        limit = max_cycles if max_cycles is not None else 50 * (len(self.pods) + 10)
        while self.cycle_count < limit:
            self._run_due_events()
            qpi = self.queue.pop()
            if qpi is not None:
                self.schedule_one(qpi)
            elif not self._advance_clock():
                break

    def step(self) -> bool:
        """One scheduling cycle (advancing the clock as needed); False when the run is over."""
        while True:
            self._run_due_events()
            qpi = self.queue.pop()
            if qpi is not None:
                self.schedule_one(qpi)
                # What the cycle set off at this time goes on before the step ends, as Go's
                # goroutines do: a pod it allowed at Permit (a gang's last member, a v1.36
                # group's Permit Success) is bound, not left waiting for the next step.
                self._run_due_events()
                return True
            if not self._advance_clock():
                return False

    def _run_due_events(self) -> None:
        while self._events and self._events[0][0] <= self.clock:
            _, _, action = heapq.heappop(self._events)
            action()

    def _advance_clock(self) -> bool:
        """Move time to the next thing that can happen; False when nothing can."""
        times = [t for t in (self._events[0][0] if self._events else None,
                             self.queue.next_backoff_expiry()) if t is not None]
        if not times:
            flush_at = self._next_useful_flush()
            if flush_at is None:
                return False
            if self.until is not None and flush_at > self.until:
                return False
            self.at(flush_at, self._flush_unschedulable)
            times = [flush_at]
        if self.until is not None and min(times) > self.until:
            return False
        self.clock = max(self.clock, min(times))
        return True

    def _next_useful_flush(self) -> float | None:
        """The flush tick that would retry a pod the cluster has changed around since it failed."""
        stale = [q.timestamp for uid, q in self.queue.unschedulable.items()
                 if q.queue == UNSCHEDULABLE and self._change_marks.get(uid, 0) < self.changes]
        if not stale:
            return None
        # flushUnschedulablePodsLeftover runs every 30s and moves pods that stayed strictly
        # longer than the maximum: the first tick after the due time, and not in the past.
        period = UNSCHEDULABLE_FLUSH_PERIOD
        due = min(stale) + MAX_UNSCHEDULABLE_STAY
        tick = (due // period + 1) * period
        return tick if tick >= self.clock else -(-self.clock // period) * period

    def _flush_unschedulable(self) -> None:
        self.event_cause = "UnschedulableTimeout"
        self.queue.flush_unschedulable_left_over()
        self.event_cause = ""

    # --- the scheduling cycle ----------------------------------------------------------------
    def schedule_one(self, qpi) -> None:
        """ScheduleOne: from v1.36 with GenericWorkload, a pod of a pod group goes to the pod
        group scheduling cycle with the rest of its group (podgroup_cycle.py)."""
        if self.pod_group_cycle and pod_group_name(qpi.pod) is not None:
            PodGroupCycle(self, qpi).run()
            return
        pod = qpi.pod
        fwk = self.frameworks[pod.scheduler_name]
        index, rec = self.begin_cycle(qpi, fwk)
        state = self.new_cycle_state()
        try:
            # Filter and Score record per node: only for a recorder that wants it.
            host = self._schedule_pod(fwk, state, pod, rec if rec is None or rec.per_node
                                      else None)
        except FitError as fit:
            self._handle_fit_error(fwk, state, qpi, fit, rec)
            return
        except SchedulingError as err:
            # "no nodes available" is UnschedulableAndUnresolvable in Go, not an error.
            outcome = "Unschedulable" if err.status.is_rejected() else "Error"
            self.fail(qpi, outcome, err.status.message(), rec, nominate="")
            return
        self.assume_reserve_permit(Binding(qpi, state, host, fwk, rec, index))

    def begin_cycle(self, qpi, fwk, popped: bool = True):
        """The cycle's index and recorder; `popped`: the pod won QueueSort to get here (not a
        pod group member popped with it), so the recorder gets the queue's points."""
        index = self.cycle_count
        self.cycle_count += 1
        rec = None
        if self.observer is not None:
            rec = self.observer.begin_cycle(index, self.clock, qpi.pod, fwk.profile_name)
        if rec is not None and rec.queue_sort and popped:
            q = self.queue
            rec.queue_points(fwk.queue_sort_entry(qpi, q.runner_up, q.popped_from,
                                                  q.active_head(QUEUE_SORT_BEFORE)),
                             self._gates.get(qpi.pod.uid, []))
        return index, rec

    def new_cycle_state(self) -> CycleState:
        """A fresh CycleState over a snapshot brought up to date with the cache."""
        state = CycleState()
        self.cache.update_snapshot(self.snapshot)
        if self.vector_path:
            state.write(COLUMNS_KEY, columns_of(self.snapshot))
        self._victims = []
        return state

    def _schedule_pod(self, fwk: Framework, state, pod, rec) -> str:
        nodes = self.snapshot.list()
        if not nodes:
            raise SchedulingError(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_NODES_AVAILABLE))
        feasible, diagnosis = self._find_nodes_that_fit(fwk, state, pod, rec)
        if not feasible:
            raise FitError(pod, len(nodes), diagnosis)
        if len(feasible) == 1:
            self._store_batch(fwk, state, feasible[0].name, None)
            return feasible[0].name
        totals = self._prioritize(fwk, state, pod, feasible, rec)
        best = select_index(totals, self.rng)
        if fwk.profile_name in self.batches:
            self._store_batch(fwk, state, feasible[best].name, _Ranking(feasible, totals, best))
        return feasible[best].name

    def _store_batch(self, fwk, state, host: str, others) -> None:
        """StoreScheduleResults: the ranking of the nodes after the host, for the next pod."""
        batch = self.batches.get(fwk.profile_name)
        if batch is not None:
            hint, signature, entry = state.get(BATCH_HINT_KEY)
            batch.store_schedule_results(signature, hint, host, others, self.cycle_count,
                                         self.clock, entry)

    def _find_nodes_that_fit(self, fwk, state, pod, rec):
        diagnosis = Diagnosis()
        all_nodes = self.snapshot.list()
        pre_res, status, narrowed_by = fwk.run_pre_filter_plugins(state, pod, all_nodes, rec)
        # Plugins whose PreFilterResult left nodes out rejected those nodes (Go sets this always).
        diagnosis.unschedulable_plugins = set(narrowed_by)
        if not status.is_success():
            if not status.is_rejected():
                raise SchedulingError(status)
            diagnosis.node_to_status.absent = status
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            return [], diagnosis
        hint = self._node_hint(fwk, state, pod, rec)
        if pod.nominated_node_name or hint:
            # A nominated node (preemption's) comes first; a batch hint is tried the same way.
            feasible = self._evaluate_nominated_node(fwk, state, pod, diagnosis, rec, hint)
            if feasible:
                return feasible, diagnosis
        nodes = all_nodes
        if pre_res is not None and not pre_res.all_nodes():
            # The named nodes in snapshot order, looked up rather than scanning every node.
            position = self.snapshot.position
            nodes = [all_nodes[row] for row in sorted(
                position[name] for name in pre_res.node_names if name in position)]
            diagnosis.node_to_status.absent = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(narrowed_by))}]")
        feasible = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes, rec)
        processed = len(feasible) + len(diagnosis.node_to_status)
        self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        return self._filter_with_extenders(pod, feasible, diagnosis, rec), diagnosis

    def _node_hint(self, fwk, state, pod, rec) -> str:
        """GetNodeHint, asked even when the pod has a nominated node (as Go does)."""
        batch = self.batches.get(fwk.profile_name)
        if batch is None:
            return ""
        hint, signature, entry = batch.get_node_hint(state, pod, self.cycle_count, self.clock)
        state.write(BATCH_HINT_KEY, (hint, signature, entry))
        if rec is not None and entry["signed"]:
            # Only a signed pod can take part: the key stays off every other cycle, as off the
            # contract's (a profile that signs no pod, the default one among them, has none).
            rec.batch(entry)
        return hint

    def _evaluate_nominated_node(self, fwk, state, pod, diagnosis, rec, hint: str = ""):
        ni = self.snapshot.get(pod.nominated_node_name or hint)
        if ni is None:
            return []
        feasible = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [ni], rec)
        return self._filter_with_extenders(pod, feasible, diagnosis, rec)

    def num_feasible_nodes_to_find(self, percentage: int | None, num_all: int) -> int:
        if num_all < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all
        if percentage is None:
            percentage = self.config.percentage_of_nodes_to_score or 0
        if percentage == 0:
            percentage = max(50 - num_all // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
        return max(num_all * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)

    def _find_nodes_that_pass_filters(self, fwk, state, pod, diagnosis, nodes, rec):
        num_all = len(nodes)
        to_find = self.num_feasible_nodes_to_find(fwk.profile.percentage_of_nodes_to_score,
                                                  num_all)
        if not self._has_extender_filters() and not self._has_scoring(fwk):
            to_find = 1  # nothing would rank a second feasible node: the first one wins
        start = self.next_start_node_index
        if not num_all:
            return []
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % num_all] for i in range(to_find)]
        feasible = []
        queue = self.queue
        nominator = queue.nominated_pods_for_node if queue.nominated else None
        cols = state.get(COLUMNS_KEY)
        # On the columns when every node of the snapshot is searched.
        if cols is not None and nodes is cols.node_infos:
            found = find_feasible(fwk, state, pod, cols, start, to_find, diagnosis, rec,
                                  nominator, queue.nominated_nodes())
            if found is not None:
                return found
        run = fwk.run_filter_plugins_with_nominated_pods
        set_status = diagnosis.node_to_status.set
        for i in range(num_all):
            ni = nodes[(start + i) % num_all]
            status = run(state, pod, ni, nominator, rec)
            if status.code == Code.SUCCESS:
                feasible.append(ni)
                if len(feasible) >= to_find:
                    break
            elif status.code == Code.ERROR:
                raise SchedulingError(status)
            else:
                set_status(ni.name, status)
                diagnosis.add_plugin_status(status)
        return feasible

    def _has_scoring(self, fwk) -> bool:
        return fwk.has_score_plugins() or any(e.config.prioritize_verb for e in self.extenders)

    def _has_extender_filters(self) -> bool:
        return any(e.config.filter_verb for e in self.extenders)

    def _filter_with_extenders(self, pod, feasible, diagnosis, rec):
        if not self.extenders or not feasible:
            return feasible
        before = len(feasible)
        feasible = filter_with_extenders(self.extenders, pod, feasible, diagnosis, rec)
        if len(feasible) != before:
            diagnosis.unschedulable_plugins.add("Extender")
        return feasible

    def _prioritize(self, fwk, state, pod, feasible, rec) -> list[int]:
        if not self.extenders and not fwk.has_score_plugins():
            totals = [1] * len(feasible)
        else:
            status = fwk.run_pre_score_plugins(state, pod, feasible, rec)
            if not status.is_success():
                raise SchedulingError(status)
            totals, status = fwk.run_score_plugins(state, pod, feasible, rec)
            if not status.is_success():
                raise SchedulingError(status)
            if self.extenders:
                totals = totals.tolist()   # extenders add their weighted scores node by node
                prioritize_with_extenders(self.extenders, pod, feasible, totals, rec)
        if rec is not None:
            rec.total_scores(feasible, totals)
        return totals

    # --- failures ----------------------------------------------------------------------------
    def _handle_fit_error(self, fwk, state, qpi, fit: FitError, rec) -> None:
        self.fail_fit(qpi, fit, rec, self.post_filter(fwk, state, qpi, fit, rec))

    def post_filter(self, fwk, state, qpi, fit: FitError, rec) -> str | None:
        """PostFilter after a FitError: the node to nominate, "" to clear the nomination (no
        PostFilter plugins: clearNominatedNode), None to leave it (no PostFilterResult)."""
        if not fwk.post_filter_plugins:
            return ""
        result, status = fwk.run_post_filter_plugins(
            state, qpi.pod, fit.diagnosis.node_to_status, rec)
        fit.diagnosis.post_filter_msg = status.message()
        if result is None:
            return None
        nominate = result.nominated_node_name
        if nominate and rec is not None:
            rec.preemption(nominate, self._victims, state.get(PREEMPTION_DETAIL_KEY))
        return nominate

    def fail_fit(self, qpi, fit: FitError, rec, nominate=None) -> None:
        """handleSchedulingFailure for a FitError: its plugins decide when the pod retries."""
        qpi.unschedulable_plugins = set(fit.diagnosis.unschedulable_plugins)
        qpi.pending_plugins = set(fit.diagnosis.pending_plugins)
        self.fail(qpi, "Unschedulable", str(fit), rec, nominate=nominate)

    def fail(self, qpi, outcome: str, message: str, rec, nominate=None, node=None) -> None:
        """handleSchedulingFailure: back to the queue, nomination updated, event recorded.

        An error goes to backoff as in Go; once it has retried at the maximum backoff with
        nothing changed in the cluster, the pod waits for a change, so such a run ends.
        """
        uid = qpi.pod.uid
        # No rejecting plugin: the pod goes to the error backoff queue, whatever the outcome.
        errored = not qpi.unschedulable_plugins and not qpi.pending_plugins
        if (errored and self._error_marks.get(uid) == self.changes
                and self.queue.backed_off_to_max(qpi)):
            self.queue.park(qpi, message)
        else:
            self.queue.add_unschedulable(qpi, message)
        if errored:
            self._error_marks[uid] = self.changes
        self._change_marks[uid] = self.changes
        if nominate is not None:
            self.queue.add_nominated(qpi.pod, nominate)
            qpi.pod.nominated_node_name = nominate   # also one set for an expectation
            if nominate and self.observer is not None:
                self.observer.pod_event("nominated", qpi.pod, self.clock, {"node": nominate})
        if rec is not None:
            rec.finish(outcome, node, message, self.clock)

    def _rejected_after_assume(self, b: Binding, status: Status,
                               in_binding_cycle: bool = False, fit_error: bool = True) -> None:
        """Reserve, Permit or binding failed: the pod leaves the node and is retried.

        Forgetting a pod in the binding cycle frees its node as a deletion would
        (handleBindingCycleError); that event moves the other pods, never the pod itself.
        A rejection at Reserve, Permit or while waiting on Permit becomes a FitError on the one
        node (the plugin rejected the pod there); one at PreBind or Bind keeps its own message
        and, like an error, sends the pod to backoff with no rejecting plugin.
        """
        b.fwk.run_reserve_plugins_unreserve(b.state, b.pod, b.host, b.rec)
        assumed = copy.copy(b.pod)   # the event's object keeps the node it was assumed on
        self.cache.forget(b.pod)
        # Go defers the event for a rejection, so that it never moves the pod itself; an
        # error's event comes first and is one of the pod's in-flight events.
        deferred = in_binding_cycle and status.is_rejected()
        if in_binding_cycle and not deferred:
            self.cluster_event("AssignedPodDelete", assumed)
        if status.is_rejected() and fit_error:
            b.qpi.unschedulable_plugins = {status.plugin} if status.plugin else set()
            diagnosis = Diagnosis()
            diagnosis.node_to_status.set(b.host, status)
            message = str(FitError(b.pod, 1, diagnosis))
            self.fail(b.qpi, "Rejected", message, b.rec, nominate="", node=b.host)
        else:
            outcome = "Rejected" if status.is_rejected() else "Error"
            self.fail(b.qpi, outcome, status.message(), b.rec, nominate="", node=b.host)
        if deferred:
            uid = b.pod.uid
            self.cluster_event("AssignedPodDelete", assumed, only=lambda q: q.pod.uid != uid)
            self._change_marks[uid] = self.changes   # its own forgetting does not help it

    # --- reserve, permit and the binding cycle -----------------------------------------------
    def prepare_for_binding_cycle(self, qpi, state, host: str, fwk, rec, index: int) -> None:
        """A pod group member placed by its group's cycle goes on as a pod placed by its own
        (prepareForBindingCycle, then the binding cycle)."""
        self.assume_reserve_permit(Binding(qpi, state, host, fwk, rec, index))

    def assume_reserve_permit(self, b: Binding) -> None:
        self.queue.delete_nominated(b.pod.uid)
        self.cache.assume(b.pod, b.host)
        status = b.fwk.run_reserve_plugins_reserve(b.state, b.pod, b.host, b.rec)
        if not status.is_success():
            self._rejected_after_assume(b, status)
            return
        status, waits = b.fwk.run_permit_plugins(b.state, b.pod, b.host, b.rec)
        if not status.is_wait() and not status.is_success():
            self._rejected_after_assume(b, status)
            return
        if self.expectation and not self._nominate_for_expectation(b, status.is_wait()):
            return
        if status.is_wait():
            self._wait_on_permit(b, waits)
            return
        self.queue.done(b.pod.uid)
        self._binding_cycle(b)

    def _nominate_for_expectation(self, b: Binding, waits: bool) -> bool:
        """The start of Go's bindingCycle with NominatedNodeNameForExpectation: when a PreBind
        plugin will work for the pod (PreBindPreFlight) or it waits on Permit, the pod's
        status.nominatedNodeName names its node until it is bound or fails; PreBind plugins
        whose preflight said Skip are left out. False when the preflight failed the binding."""
        status = b.fwk.run_pre_bind_pre_flights(b.state, b.pod, b.host)
        if status.code == Code.ERROR:
            self._rejected_after_assume(b, status, in_binding_cycle=True, fit_error=False)
            return False
        if status.is_success() or waits:
            b.pod.nominated_node_name = b.host
            if b.rec is not None:
                b.rec.nominated(b.host)
        return True

    def _wait_on_permit(self, b: Binding, waits: dict[str, float]) -> None:
        wp = WaitingPod(self, b, waits)
        self.waiting[b.pod.uid] = wp   # in flight until its binding cycle ends
        if self.observer is not None:
            self.observer.pod_event("waiting", b.pod, self.clock, {"plugins": dict(waits)})
        for plugin, timeout in waits.items():
            message = (f"rejected due to timeout after waiting {go_duration(timeout)} "
                       f"at plugin {plugin}")
            wp.timers[plugin] = self.at(
                self.clock + timeout,
                lambda wp=wp, plugin=plugin, m=message: plugin in wp.deadlines
                and wp.reject(plugin, m))

    def resolve_waiting(self, wp: WaitingPod) -> None:
        """A waiting pod was allowed or rejected: continue its binding cycle now."""
        self.waiting.pop(wp.pod.uid, None)
        # The framework stops the pod's timers once it is allowed or rejected.
        if wp.timers:
            self.cancel_events(set(wp.timers.values()))
            wp.timers.clear()
        self.at(self.clock, lambda: self._after_wait(wp))

    def _after_wait(self, wp: WaitingPod) -> None:
        if wp.status.is_success():
            self._binding_cycle(wp.binding)
            return
        self._rejected_after_assume(wp.binding, wp.status, in_binding_cycle=True)

    def _binding_cycle(self, b: Binding) -> None:
        self._after_pre_bind(b, b.fwk.run_pre_bind_plugins(b.state, b.pod, b.host, b.rec))

    def _poll_pre_bind(self, b: Binding, plugin: str, since: float) -> None:
        """A PreBind plugin blocks, polling (DynamicResources' binding conditions): the binding
        cycle waits in virtual time while the scheduling cycles go on, as Go's goroutine does."""
        pl = b.fwk.pre_bind_plugin(plugin)

        def poll():
            status = pl.pre_bind_poll(b.state, b.pod, b.host, self.clock - since) or Status()
            if status.is_wait():
                self.at(self.clock + pl.pre_bind_poll_delay(self.clock - since), poll)
                return
            self._after_pre_bind(b, b.fwk.resume_pre_bind(b.state, b.pod, b.host, plugin,
                                                          status, b.rec))
        self.at(self.clock + pl.pre_bind_poll_delay(0.0), poll)

    def _after_pre_bind(self, b: Binding, status: Status) -> None:
        if status.is_wait():
            self._poll_pre_bind(b, status.plugin, self.clock)
            return
        if status.is_success():
            status = self._bind(b)
        if not status.is_success():
            self._rejected_after_assume(b, status, in_binding_cycle=True, fit_error=False)
            return
        self.cache.finish_binding(b.pod)
        self.queue.done(b.pod.uid)
        b.pod.nominated_node_name = ""   # the binding API clears it (kubernetes#132443)
        b.pod.start_time = RUN_EPOCH + self.clock
        b.pod.obj.setdefault("spec", {})["nodeName"] = b.host
        if b.pod.key in self.bindings:
            self.bindings[b.pod.key] = b.host
        b.fwk.run_post_bind_plugins(b.state, b.pod, b.host, b.rec)
        if b.rec is not None:
            b.rec.finish("Bound", b.host, "", self.clock)
        if self.observer is not None:
            self.observer.pod_event("bound", b.pod, self.clock, {"node": b.host})
        self.cluster_event("AssignedPodAdd", b.pod)
        for hook in self.bind_hooks:
            hook(b.pod)

    def _bind(self, b: Binding) -> Status:
        if self.extenders:
            status = bind_with_extender(self.extenders, b.pod, b.host, b.rec)
            if status is not None:
                return status
        status = b.fwk.run_bind_plugins(b.state, b.pod, b.host, b.rec)
        if status.is_skip():
            return Status(Code.ERROR, f'no bind plugin bound pod "{b.pod.key}"')
        return status

    # --- deletions (preemption victims) ------------------------------------------------------
    def delete_pod(self, pod, reason: str) -> None:
        """Start a graceful deletion; the pod keeps its resources until the grace period ends."""
        wp = self.waiting.get(pod.uid)
        if wp is not None:
            wp.reject("DefaultPreemption" if reason == "preempted" else reason, reason)
            return
        if pod.terminating:
            return
        self._victims.append(pod.key)
        if self.observer is not None:
            self.observer.pod_event(reason, pod, self.clock, {"node": pod.node_name})
        self._start_deletion(pod)

    def _start_deletion(self, pod) -> None:
        """The pod keeps its node and resources for its grace period, then goes."""
        pod.deletion_time = self.clock
        if pod.node_name in self.cache.node_infos:
            self.cache.touch(pod.node_name)
        grace = pod.spec.get("terminationGracePeriodSeconds")
        grace = DEFAULT_GRACE_PERIOD if grace is None else float(grace)
        self.at(self.clock + grace, lambda: self._finish_deletion(pod))

    def _finish_deletion(self, pod) -> None:
        self.cache.remove_pod(pod)
        self.queue.delete(pod.uid)
        if self.observer is not None:
            self.observer.pod_event("deleted", pod, self.clock, {"node": pod.node_name})
        self.cluster_event("AssignedPodDelete", pod)

    # --- results -----------------------------------------------------------------------------
    def pending_reasons(self) -> dict[str, str]:
        """Why each still-pending pod of the input is pending."""
        out = {key: f'no profile for schedulerName "{name}"'
               for key, name in self.no_profile.items()}
        for qpi in self.queue.pending():
            out[qpi.pod.key] = qpi.message or qpi.queue
        for wp in self.waiting.values():
            out[wp.pod.key] = f"waiting on permit: {', '.join(wp.pending_plugins())}"
        return out


def _parse_time(text: str) -> float:
    from datetime import datetime
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return RUN_EPOCH



class _Ranking:
    """The scored nodes after the host, best first: what Go's sortedNodeScores heap pops next.
    Sorted only when the batch keeps it (a signed pod); its length is known at once. Go
    orders equal totals by a random number per node; here they keep the Filter order, one of
    the orders Go can draw."""

    def __init__(self, feasible, totals, best: int):
        self.feasible, self.totals, self.best = feasible, totals, best

    def __len__(self) -> int:
        return len(self.feasible) - 1

    def __iter__(self):
        order = np.argsort(-np.asarray(self.totals, dtype=np.int64), kind="stable")
        return (self.feasible[i].name for i in order.tolist() if i != self.best)
