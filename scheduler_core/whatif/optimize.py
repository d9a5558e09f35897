"""optimize: the global placement of the pending pods beside the scheduler's, one at a time.

kube-scheduler is greedy: each pod takes the best node for itself at its turn, so an early pod
can take the only node a later, larger pod fits. The global placement is solved in one step
(scheduler_core.whatif.cpsat) under the constraints the enabled Filter plugins express; the
plugins it does not model are named in `unmodelled`, their verdict on the cluster as it is
before any pending pod is placed still honoured (scheduler_core.whatif.static).

For each pod the scheduler left pending that the global placement binds, `gained` names the
early decision that blocked it: the first pod the scheduler bound to that node which the
global placement puts elsewhere (or leaves out).

The global placement holds as a whole: every pod passes every modelled Filter plugin with all
the others in place. The scheduler's need not: a pod's required pod affinity and DoNotSchedule
spread are checked in its own cycle only, and a pod bound later can break them. Those pods are
the scheduler's `violations`. The global placement also keeps the running pods where they
are, while the scheduler may have `preempted` some. When neither happened, the solver binds at
least as many pods (the scheduler's placement is its starting point and lower bound).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InputError
from ..observe import OutcomeObserver
from ..plugins.names import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_DECLARED_FEATURES,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    POD_TOPOLOGY_SPREAD,
    TAINT_TOLERATION,
    VOLUME_ZONE,
)
from .cpsat import PlacementModel
from .probe import refusals
from .scenario import Scenario
from .static import filter_plugins, view_of

DEFAULT_TIME_LIMIT = 30.0
DEFAULT_MAX_NODES = 50
DEFAULT_MAX_PODS = 300
DEFAULT_WORKERS = 2
# Filter plugins whose constraint holds in the global placement: judged on the node alone
# (static.py), or modelled across the pending pods (cpsat.py).
MODELLED = frozenset({NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY,
                      NODE_DECLARED_FEATURES, VOLUME_ZONE, NODE_PORTS, NODE_RESOURCES_FIT,
                      INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD})


@dataclass
class Limits:
    nodes: int = DEFAULT_MAX_NODES
    pods: int = DEFAULT_MAX_PODS
    # What sets each limit, for the error: the command line's flags, or a setting's name.
    knobs: tuple[str, str] = ("--max-solver-nodes", "--max-solver-pods")

    def check(self, nodes: int, pods: int) -> None:
        if nodes > self.nodes:
            raise InputError(f"the cluster has {nodes} nodes, more than the solver's limit of "
                             f"{self.nodes} ({self.knobs[0]})")
        if pods > self.pods:
            raise InputError(f"the cluster has {pods} pending pods, more than the solver's limit "
                             f"of {self.pods} ({self.knobs[1]})")


class _Outcomes(OutcomeObserver):
    """The cycles' outcomes and the running pods preemption evicted."""

    def __init__(self):
        super().__init__()
        self.preempted: list[str] = []

    def pod_event(self, event, pod, time, detail=None):
        if event == "preempted":
            self.preempted.append(pod.key)


def scheduler_placement(scenario: Scenario) -> tuple[dict, list[dict], list[str]]:
    """The scheduler's bindings, the cycles that bound pods in order, and the pods it
    preempted."""
    outcomes = _Outcomes()
    scheduler = scenario.scheduler(observer=outcomes)
    scheduler.run()
    bound = [c for c in outcomes.to_list() if c["outcome"] == "Bound"]
    return dict(scheduler.bindings), bound, outcomes.preempted


def _admitted(scheduler, pod) -> bool:
    """The pod has a profile and its PreEnqueue plugins (scheduling gates) let it queue."""
    fwk = scheduler.frameworks.get(pod.scheduler_name)
    if fwk is None:
        return False
    status = fwk.run_pre_enqueue_plugins(pod)
    return status is None or status.is_success()


def blocked_by(bindings: dict, optimal: dict, bound_cycles: list[dict]) -> list[dict]:
    """Each pod the scheduler left pending and the optimum binds, with the early decision
    that took its node."""
    out = []
    for pod, node in optimal.items():
        if not node or bindings.get(pod):
            continue
        blocker = next((c for c in bound_cycles
                        if c["node"] == node and optimal.get(c["pod"]) != node), None)
        out.append({"pod": pod, "optimalNode": node, "blockedBy": None if blocker is None else {
            "pod": blocker["pod"], "cycle": blocker["index"], "schedulerNode": node,
            "optimalNode": optimal.get(blocker["pod"])}})
    return out


def optimize(scenario: Scenario, *, time_limit: float = DEFAULT_TIME_LIMIT,
             limits: Limits | None = None, workers: int = DEFAULT_WORKERS,
             progress: Callable[[dict], None] | None = None) -> dict:
    """The contract's object: the scheduler's placement, the optimal one, what is unmodelled."""
    began = time.perf_counter()
    base = scenario.scheduler()
    pending = [p for p in base.pods if p.key in base.bindings]
    (limits or Limits()).check(len(base.cache.node_infos), len(pending))
    if base.life is not None and base.life.steps:
        scenario.warnings.append("optimize: the timeline's steps are not part of the global "
                                 "placement; it places the pods pending at the start")
    bindings, bound_cycles, preempted = scheduler_placement(scenario)
    # A pending pod bound, then preempted by a later one, is gone: not bound at the end.
    scheduler_bindings = {p.key: None if p.key in preempted else bindings.get(p.key)
                          for p in pending}
    violations = refusals(scenario.scheduler(), scheduler_bindings, gone=frozenset(preempted))
    placeable = [p for p in pending if _admitted(base, p)]
    started = time.perf_counter()
    views = [view_of(base, p) for p in placeable]
    if progress is not None:
        progress({"phase": "model", "pods": len(views), "nodes": len(base.cache.node_infos)})
    model = PlacementModel(base, views).build()
    remaining = time_limit - (time.perf_counter() - began)
    status, placed = model.solve(bindings, remaining, workers, scenario.seed)
    if progress is not None:
        progress({"phase": "solved", "status": status,
                  "seconds": round(time.perf_counter() - started, 3)})
    if not placed and status not in ("OPTIMAL", "FEASIBLE"):
        raise InputError(f"the solver stopped with {status} before finding any placement; "
                         "raise --time-limit")
    optimal = {p.key: placed.get(p.key) for p in pending}
    used = filter_plugins(base, placeable)
    return {
        "schemaVersion": 1,
        "release": scenario.features.release,
        "scheduler": {"bound": sum(1 for n in scheduler_bindings.values() if n),
                      "bindings": scheduler_bindings, "violations": violations,
                      "preempted": preempted},
        "optimal": {"bound": len(placed), "bindings": optimal, "status": status},
        "unmodelled": [name for name in used if name not in MODELLED],
        "gained": blocked_by(scheduler_bindings, optimal, bound_cycles),
        "solverSeconds": round(time.perf_counter() - started, 3),
        "warnings": scenario.warnings.to_list(),   # the scheduler's run's too
    }
