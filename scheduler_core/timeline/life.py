"""A cluster that lives while the scheduler runs: its controllers, its taint manager, pods
that finish, and the steps of its timelines at their virtual times."""
from __future__ import annotations

from ..errors import InputError
from ..workloads.manager import ControllerManager, workload_rng
from ..workloads.persistentvolume import sync_claims
from ..workloads.pods import RUN_SECONDS_ANNOTATION, name_of, namespace_of
from .actions import ACTIONS, StepSkipped
from .document import parse_timelines
from .eviction import TaintManager
from .informer import Informer
from .recorder import TimelineRecorder
from .world import TIMED_KINDS, LiveWorld

BIND_WATCHERS = ("StatefulSet",)


class ClusterLife:
    def __init__(self, scheduler, steps, timer=None):
        self.s = scheduler
        self.steps = steps
        self.manager = scheduler.cluster.controllers or ControllerManager(workload_rng(0))
        self.informer = Informer(scheduler, on_change=self.sync)
        self.world = LiveWorld(self.informer, self.manager)
        self.taints = TaintManager(scheduler, self.informer)
        self.recorder = TimelineRecorder(scheduler, timer)
        self._syncing = False
        scheduler.bind_hooks.append(self._bound)
        # Steps taken on a paused run wait for their cycle rather than their time, so that a
        # replay applies them exactly where they were taken (see apply_due_actions).
        self.actions = sorted((s for s in steps if s.after_cycle is not None),
                              key=lambda s: s.after_cycle)
        for step in steps:
            if step.after_cycle is None:
                scheduler.at(step.at, lambda step=step: self.apply(step))
        for pi in list(self.informer.pods.values()):
            if pi.uid in scheduler.cache.pods:
                self._placed(pi)
        for qpi in scheduler.queue.pending():
            self.recorder.queue_event(qpi.queue, qpi, scheduler.clock)
        self.recorder.sample(scheduler.clock)
        if self.manager.of_kind("CronJob"):
            self.sync(TIMED_KINDS)   # the CronJobs set their first wake-up

    def sync(self, kinds: tuple[str, ...] | None = None) -> None:
        """Let the controllers react (kinds: only those); changes they make do not re-enter."""
        if self._syncing:
            return
        self._syncing = True
        try:
            self.manager.sync(self.world, kinds)
            self._bind_claims()
        finally:
            self._syncing = False

    def _bind_claims(self) -> None:
        """The PV controller on claims and volumes that came during the run (a StatefulSet's
        claim, a timeline's Create): each binding reaches the scheduler as its updates."""
        bound, waiting = sync_claims(self.s.cluster.objects)
        for pvc, pv in bound:
            self.informer.put_object(pv, created=False)
            self.informer.put_object(pvc, created=False)
        for pvc, why in waiting:
            line = f"PersistentVolumeClaim {namespace_of(pvc)}/{name_of(pvc)}: {why}"
            if line not in self.s.cluster.warnings:
                self.s.cluster.warnings.append(line)

    def apply(self, step) -> None:
        try:
            outcome = ACTIONS[step.action](self, step)
        except StepSkipped as skipped:
            outcome = f"skipped: {skipped}"
        self.recorder.step_applied(step, self.s.clock, outcome)

    def apply_due_actions(self) -> None:
        """Apply the paused-run steps taken after the cycles done so far."""
        while self.actions and self.actions[0].after_cycle <= self.s.cycle_count:
            self.apply(self.actions.pop(0))

    def _placed(self, pi) -> None:
        """A pod on a node: NoExecute taints may evict it, and it may run for a while."""
        self.taints.pod_placed(pi)
        seconds = ((pi.obj.get("metadata") or {}).get("annotations") or {}).get(
            RUN_SECONDS_ANNOTATION)
        if seconds is not None:
            self.s.at(self.s.clock + float(seconds), lambda: self._finish(pi))

    def _bound(self, pi) -> None:
        self._placed(pi)
        # Of the controllers, only an OrderedReady StatefulSet waits for its pods to run.
        self.sync(BIND_WATCHERS)

    def _finish(self, pi) -> None:
        if pi.key in self.informer.pods and not pi.terminating and pi.uid in self.s.cache.pods:
            self.informer.complete_pod(pi)

    def to_json(self) -> dict:
        return self.recorder.to_json()


def attach(scheduler, timer=None, always: bool = False) -> ClusterLife | None:
    """Bring the scheduler's cluster to life when it has timelines or workloads (or `always`,
    to record samples for the charts); checks every step first (InputError). A cluster with
    neither runs exactly as before."""
    cluster = scheduler.cluster
    steps = parse_timelines(cluster)
    if not always and not steps and not (cluster.controllers and cluster.controllers.workloads):
        return None
    _check_run_seconds(cluster)
    return ClusterLife(scheduler, steps, timer)


def _check_run_seconds(cluster) -> None:
    for obj in list(cluster.pods) + list(cluster.workloads):
        meta = obj.get("metadata") or {}
        template_meta = ((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}
        for where, notes in (("metadata", meta.get("annotations")),
                                   ("spec.template.metadata", template_meta.get("annotations"))):
            value = (notes or {}).get(RUN_SECONDS_ANNOTATION)
            if value is None:
                continue
            try:
                ok = float(value) >= 0
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise InputError(f"must be a non-negative number of seconds: {value!r}",
                                 obj=f"{obj.get('kind')} {meta.get('name')}",
                                 field=f"{where}.annotations[{RUN_SECONDS_ANNOTATION}]")
