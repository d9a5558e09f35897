"""plan: the fewest copies of a template node with which the scheduler binds every pod it can.

open-simulator's question, answered as it answers it: by running the scheduler itself over
the cluster with k copies added, never by a formula, so that affinities, taints, spreading,
priorities and preemption all count. One run is a Trial.

The search:
1. k = 0. With no pod pending, nothing is needed. Otherwise the pods still pending are asked,
   through the scheduler's own Filter plugins, whether one more empty copy would take them:
   their requests, summed, give a first guess of k (a guess only: it steers the search).
2. Grow from the guess until every pod binds, or no pending pod passes Filter on one more
   empty copy (more copies cannot help it), or k reaches --max-nodes; each step adds what the
   still placeable pods' requests need, and at least a quarter more (so the growth is
   geometric even when the requests underestimate, as with anti-affinity). The pods bound
   there are the target: every pod that adding such nodes can bind.
3. Narrow between the largest count tried that misses a target pod and the smallest that
   binds them all: the next count is what the target pods still pending need at the rate
   copies have bound them so far (copies fill nearly linearly), and bisection takes over
   when that estimate does not halve the interval, so the search stays logarithmic.

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

from ..framework.types import NodeInfo
from .capacity import DEFAULT_MAX_COPIES, capacity
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


def run_trial(scenario: Scenario, template: dict, count: int) -> Trial:
    """The scheduler run to the end with `count` copies; then one more empty copy is added
    to the finished cluster and each pending pod asked whether it passes Filter there."""
    scheduler = scenario.scheduler(copies(template, count))
    scheduler.run()
    extra = copies(template, 1, start=count + 1)[0]
    extra_name = extra["metadata"]["name"]
    scheduler.cache.add_node(extra)
    scheduler.snapshot = scheduler.cache.new_snapshot()
    by_key = {p.key: p for p in scheduler.pods}
    pending = [key for key, node in scheduler.bindings.items() if not node and key in by_key]
    placeable, refused = {}, {}
    for key in pending:
        status = filter_status(scheduler, by_key[key], extra_name)
        if status.is_success():
            placeable[key] = by_key[key].requests
        else:
            refused[key] = f"{status.plugin}: {status.message()}" if status.plugin \
                else status.message()
    scheduler.cache.remove_node(extra_name)
    scheduler.snapshot = scheduler.cache.new_snapshot()
    return Trial(count, dict(scheduler.bindings), scheduler.pending_reasons(), placeable,
                 refused, scheduler)


def first_guess(template: dict, trial: Trial) -> int:
    """Copies the pending pods an empty copy would take need by their summed requests alone."""
    room = NodeInfo(template).allocatable
    need = 1
    for name in room.names():
        total = sum(req.get(name) for req in trial.placeable.values())
        if name == "pods":
            total = len(trial.placeable)
        if total and room.get(name):
            need = max(need, math.ceil(total / room.get(name)))
    return need


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
        """From the first guess, add what the still placeable pods need by their requests, and
        at least a quarter more, until nothing is left to gain."""
        count = min(start, self.max_nodes)
        while True:
            t = self.trial(count, "grow")
            if not t.pending or not t.placeable or count >= self.max_nodes:
                return t
            count = min(count + max(first_guess(self.template, t), count // 4, 1),
                        self.max_nodes)

    def narrow(self, target: set[str]) -> Trial:
        def hits(k: int) -> int:
            return len(target & self.trials[k].bound)
        hi = min(k for k in self.trials if hits(k) == len(target))
        lo = max((k for k in self.trials if k < hi and hits(k) < len(target)), default=-1)
        base = hits(0)
        while hi - lo > 1:
            width = hi - lo
            guess = (lo + hi) // 2
            if lo > 0 and hits(lo) > base:
                # Target pods bound per copy so far: the copies still missing at that rate.
                rate = (hits(lo) - base) / lo
                guess = lo + math.ceil((len(target) - hits(lo)) / rate)
            guess = min(max(guess, lo + 1), hi - 1)
            if hits(self.trial(guess, "narrow").nodes) == len(target):
                hi = guess
            else:
                lo = guess
            if hi - lo > width // 2:    # the estimate did not halve it: bisect once
                mid = (lo + hi) // 2
                if lo < mid < hi:
                    if hits(self.trial(mid, "narrow").nodes) == len(target):
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
    base = search.trial(0, "start")
    if not base.pending or not base.placeable or max_nodes == 0:
        result = PlanResult(base, [base], max_nodes_reached=bool(base.placeable))
    else:
        upper = search.grow(first_guess(template, base))
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
