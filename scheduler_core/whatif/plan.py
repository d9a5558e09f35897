"""plan: the fewest copies of a template node with which the scheduler binds every pod it can.

open-simulator's question, answered as it answers it: by running the scheduler itself over
the cluster with k copies added, never by a formula, so that affinities, taints, spreading,
priorities and preemption all count. One run is a Trial.

The search:
1. A first guess, before any run: the pending pods that pass the scheduler's own Filter
   plugins on an empty copy (one probe per pod shape), their requests summed, less what the
   cluster's nodes have free, in copies. A guess only: it steers the search, and saves the
   run with no copy (the costliest one: every pod that does not fit fails a cycle and
   dry-runs preemption) when copies are needed anyway. A guess of 0 runs that one first.
2. Grow from the guess until every pod binds, or no pending pod passes Filter on one more
   empty copy (more copies cannot help it), or k reaches --max-nodes. Each step adds what the
   still placeable pods' requests need, and at least a quarter more (so the growth is
   geometric even when the requests underestimate, as with anti-affinity; and one step from
   a close guess usually passes the answer at once, leaving no failed count above the guess
   to bisect from). The pods bound there are the target: every pod that adding such nodes can
   bind.
3. If no count below that one was run and missed a target pod, gallop down (1, 2, 4, ...
   copies fewer) until one does, or 0 binds them all.
4. Bisect between the largest count run that misses a target pod and the smallest that binds
   them all.

The scheduler is not monotone in the node count: scores, tie-breaks and preemption change
with the nodes, so k copies may bind the target where k + 1 do not. The answer is always a
count the engine was run at and bound every target pod with (its bindings are the ones
reported), and one copy fewer was run and missed one; smaller counts left untried by the
search are not claimed to fail. Every trial is listed in `search`.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..framework.types import PODS, NodeInfo, Resource
from .capacity import DEFAULT_MAX_COPIES, capacity, shape_key
from .probe import filter_status
from .scenario import Scenario
from .template import check_names, copies

DEFAULT_MAX_NODES = 1000


@dataclass
class Trial:
    nodes: int
    bindings: dict[str, str | None]
    reasons: dict[str, str]
    # Requests of the pending pods one more empty copy would take, by pod.
    placeable: dict[str, object]
    # Why one more empty copy would not take each other pending pod: its first Filter plugin
    # to refuse, and that plugin's reasons.
    refused: dict[str, str] = field(default_factory=dict)
    # The finished run, kept while the trial may be the answer (its cluster is where more
    # copies of each pod are counted).
    scheduler: object = field(default=None, repr=False)

    @property
    def bound(self) -> set[str]:
        return {pod for pod, node in self.bindings.items() if node}

    @property
    def pending(self) -> list[str]:
        return [pod for pod, node in self.bindings.items() if not node]

    def row(self) -> dict:
        bound = len(self.bound)
        return {"nodes": self.nodes, "bound": bound, "pending": len(self.bindings) - bound}


@dataclass
class PlanResult:
    answer: Trial
    trials: list[Trial]
    max_nodes_reached: bool
    capacity: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        a = self.answer
        return {
            "schemaVersion": 1,
            "nodesToAdd": a.nodes,
            "bindings": a.bindings,
            "stillPending": [{"pod": pod, "message": a.reasons.get(pod, "pending"),
                              "onTemplate": a.refused.get(pod, "")} for pod in a.pending],
            "maxNodesReached": self.max_nodes_reached,
            "search": [t.row() for t in sorted(self.trials, key=lambda t: t.nodes)],
            "capacity": self.capacity,
        }


def probe(scheduler, pods: list, node_name: str) -> tuple[dict, dict]:
    """(placeable, refused) for `pods` on the empty node `node_name` of the scheduler's
    cluster: the requests of those that pass Filter there, and for the others the first
    plugin to refuse with its reasons. Pods of one shape get one answer (Filter sees nothing
    that tells replicas apart)."""
    verdicts: dict[str, object] = {}
    placeable, refused = {}, {}
    for pi in pods:
        key = shape_key(pi.obj)
        if key not in verdicts:
            verdicts[key] = filter_status(scheduler, pi, node_name)
        status = verdicts[key]
        if status.is_success():
            placeable[pi.key] = pi.requests
        else:
            refused[pi.key] = f"{status.plugin}: {status.message()}" if status.plugin \
                else status.message()
    return placeable, refused


def run_trial(scenario: Scenario, template: dict, count: int) -> Trial:
    """The scheduler run to the end with `count` copies; then one more empty copy is added
    to the finished cluster and each pending pod asked whether it passes Filter there."""
    scheduler = scenario.scheduler(copies(template, count))
    scheduler.run()
    extra = copies(template, 1, start=count + 1)[0]
    extra_name = extra["metadata"]["name"]
    scheduler.cache.add_node(extra)
    scheduler.snapshot = scheduler.cache.new_snapshot()
    pending = {key for key, node in scheduler.bindings.items() if not node}
    placeable, refused = probe(scheduler, [p for p in scheduler.pods if p.key in pending],
                               extra_name)
    scheduler.cache.remove_node(extra_name)
    scheduler.snapshot = scheduler.cache.new_snapshot()
    return Trial(count, dict(scheduler.bindings), scheduler.pending_reasons(), placeable,
                 refused, scheduler)


def copies_for(room, placeable: dict[str, object], free=None) -> int:
    """Copies of a node with allocatable `room` that the requests of `placeable` pods need,
    beyond `free` (a Resource: what the cluster has free) if given; 0 when they fit."""
    need = 0
    for name in room.names():
        if not room.get(name):
            continue
        total = len(placeable) if name == PODS else \
            sum(req.get(name) for req in placeable.values())
        total -= free.get(name) if free is not None else 0
        if total > 0:
            need = max(need, math.ceil(total / room.get(name)))
    return need


def first_guess(template: dict, trial: Trial) -> int:
    """Copies the pending pods an empty copy would take need by their summed requests alone."""
    return max(copies_for(NodeInfo(template).allocatable, trial.placeable), 1)


def static_guess(scenario: Scenario, template: dict) -> int:
    """Copies the pods pending at the start need beyond what the nodes have free, counting
    only those that pass Filter on an empty copy; before any run (0: run with none first)."""
    copy = copies(template, 1)[0]
    scheduler = scenario.scheduler([copy])
    pending = [p for p in scheduler.pods if p.key in set(scheduler.pending_at_start)]
    placeable, _ = probe(scheduler, pending, copy["metadata"]["name"])
    free = Resource()
    for ni in scheduler.snapshot.list():
        if ni.name == copy["metadata"]["name"]:
            continue
        for name in ni.allocatable.names():
            used = len(ni.pods) if name == PODS else ni.requested.get(name)
            left = ni.allocatable.get(name) - used
            if left > 0:
                free.set(name, free.get(name) + left)
    return copies_for(NodeInfo(template).allocatable, placeable, free)


class Search:
    """The trials of one plan, each run once, each reported to `progress` as it ends."""

    def __init__(self, scenario: Scenario, template: dict, max_nodes: int,
                 progress: Callable[[dict], None] | None):
        self.scenario, self.template, self.max_nodes = scenario, template, max_nodes
        self.progress = progress
        self.trials: dict[int, Trial] = {}

    def trial(self, count: int, phase: str) -> Trial:
        if count not in self.trials:
            self.trials[count] = run_trial(self.scenario, self.template, count)
            if self.progress is not None:
                self.progress({"phase": phase, "trials": len(self.trials),
                               **self.trials[count].row()})
        return self.trials[count]

    def grow(self, start: int) -> Trial:
        """From the first guess, add what the still placeable pods need by their requests,
        and at least a quarter more, until nothing is left to gain."""
        count = min(start, self.max_nodes)
        while True:
            t = self.trial(count, "grow")
            if not t.pending or not t.placeable or count >= self.max_nodes:
                return t
            count = min(count + max(first_guess(self.template, t), count // 4, 1),
                        self.max_nodes)

    def narrow(self, target: set[str]) -> Trial:
        def binds_all(k: int) -> bool:
            return target <= self.trials[k].bound
        hi = min(k for k in self.trials if binds_all(k))
        misses = [k for k in self.trials if k < hi and not binds_all(k)]
        if misses:
            lo = max(misses)
        else:
            # Gallop down from the smallest count that binds them all to one that does not.
            lo, step = hi, 1
            while lo > 0:
                lo = max(hi - step, 0)
                if not binds_all(self.trial(lo, "narrow").nodes):
                    break
                hi, step = lo, 2 * step
                self.forget(keep=hi)
            else:
                return self.trials[hi]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if binds_all(self.trial(mid, "narrow").nodes):
                hi = mid
            else:
                lo = mid
            self.forget(keep=hi)
        return self.trials[hi]

    def forget(self, keep: int) -> None:
        """Drop the finished runs of every trial but `keep`: only the answer's is used."""
        for k, t in self.trials.items():
            if k != keep:
                t.scheduler = None


def plan(scenario: Scenario, template: dict, *, template_file: str = "",
         max_nodes: int = DEFAULT_MAX_NODES, max_copies: int = DEFAULT_MAX_COPIES,
         progress: Callable[[dict], None] | None = None) -> PlanResult:
    """The search above; then, with the answer's copies, how many more copies of each pending
    pod's shape fit (max_copies 0: not measured)."""
    check_names(template, max_nodes + 1, scenario.node_names, template_file)
    search = Search(scenario, template, max_nodes, progress)
    guess = static_guess(scenario, template) if max_nodes else 0
    base = search.trial(0, "start") if guess == 0 else None
    if base is not None and (not base.pending or not base.placeable or max_nodes == 0):
        result = PlanResult(base, [base], max_nodes_reached=bool(base.placeable))
    else:
        upper = search.grow(guess or first_guess(template, base))
        answer = search.narrow(upper.bound)
        result = PlanResult(answer, list(search.trials.values()),
                            max_nodes_reached=upper.nodes >= max_nodes and bool(upper.placeable))
    if max_copies and result.answer.bindings:
        added = copies(template, result.answer.nodes)
        result.capacity = capacity(lambda: scenario.scheduler(added), scenario.cluster().pods,
                                   set(result.answer.bindings), max_copies=max_copies,
                                   finished=result.answer.scheduler)
        if progress is not None:
            progress({"phase": "capacity", "shapes": len(result.capacity["shapes"])})
    search.forget(keep=-1)
    return result
