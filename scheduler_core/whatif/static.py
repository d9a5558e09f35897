"""What the engine's own plugins say about each pending pod on each node before any is placed.

For the solver: the Filter plugins whose verdict cannot change while other pending pods are
placed (NodeName, NodeUnschedulable, NodeAffinity, TaintToleration, NodeDeclaredFeatures,
VolumeZone, ...) are run
as the scheduler runs them, node by node, on the cluster as it is: their verdict is final.
NodeResourcesFit and NodePorts run too (a pod that does not fit a node alone never fits it),
the solver adding what pending pods take from each other. Of InterPodAffinity only the
anti-affinity between the pod and the pods already running is final (pending pods only add
to it); its affinity and PodTopologySpread are skipped here, since other pending pods can make
a node they reject today acceptable: the solver models them (scheduler_core.whatif.cpsat).

Scores: each Score plugin's weighted, normalized score of the pod on each node it may go to,
on the cluster before any pending pod is placed (the solver's objective after the count of
bound pods; a plugin's score on the final cluster is not modelled).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..framework.cycle_state import CycleState
from ..framework.types import PodInfo
from ..plugins.interpodaffinity.filtering import (
    PRE_FILTER_STATE_KEY as AFFINITY_STATE_KEY,
)
from ..plugins.interpodaffinity.filtering import (
    satisfy_existing_pods_anti_affinity,
    satisfy_pod_anti_affinity,
)
from ..plugins.names import INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD
from ..scheduler import Scheduler

# Filter plugins whose verdict depends on where the other pending pods go, and that the
# solver therefore models itself rather than taking from the cluster as it is.
PLACEMENT_DEPENDENT = frozenset({INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD})


@dataclass
class PodView:
    pod: PodInfo
    nodes: list[str]                                  # the nodes its static Filters accept
    scores: dict[str, int] = field(default_factory=dict)
    refused: str = ""                                 # why no node is left, when none is


def view_of(scheduler: Scheduler, pod: PodInfo) -> PodView:
    fwk = scheduler.frameworks[pod.scheduler_name]
    nodes = scheduler.snapshot.list()
    state = CycleState()
    result, status, _ = fwk.run_pre_filter_plugins(state, pod, nodes)
    if not status.is_success():
        return PodView(pod, [], refused=f"{status.plugin}: {status.message()}")
    if result is not None and not result.all_nodes():
        nodes = [ni for ni in nodes if ni.name in result.node_names]
    skipped = state.skip_filter_plugins
    state.skip_filter_plugins = skipped | PLACEMENT_DEPENDENT
    feasible, last = [], None
    for ni in nodes:
        status = fwk.run_filter_plugins(state, pod, ni)
        if status.is_success() and not _running_pods_repel(state, skipped, ni):
            feasible.append(ni)
        elif not status.is_success():
            last = status
    state.skip_filter_plugins = skipped
    view = PodView(pod, [ni.name for ni in feasible])
    if not feasible:
        view.refused = f"{last.plugin}: {last.message()}" if last is not None \
            else "no node left by PreFilter"
    elif len(feasible) > 1 and fwk.has_score_plugins():
        view.scores = _scores(fwk, state, pod, feasible)
    return view


def _running_pods_repel(state, skipped, node_info) -> bool:
    """InterPodAffinity's anti-affinity checks against the pods already running."""
    if INTER_POD_AFFINITY in skipped:
        return False
    affinity = state.get(AFFINITY_STATE_KEY)
    return affinity is not None and not (
        satisfy_existing_pods_anti_affinity(affinity, node_info)
        and satisfy_pod_anti_affinity(affinity, node_info))


def _scores(fwk, state, pod, feasible) -> dict[str, int]:
    if not fwk.run_pre_score_plugins(state, pod, feasible).is_success():
        return {}
    totals, status = fwk.run_score_plugins(state, pod, feasible)
    if not status.is_success():
        return {}
    return {ni.name: int(total) for ni, total in zip(feasible, totals)}


def filter_plugins(scheduler: Scheduler, pods: list[PodInfo]) -> list[str]:
    """The enabled Filter plugins of the profiles these pods use, in their order."""
    names: dict[str, None] = {}
    for name in dict.fromkeys(p.scheduler_name for p in pods):
        for plugin in scheduler.frameworks[name].names_by_point["filter"]:
            names.setdefault(plugin, None)
    return list(names)
