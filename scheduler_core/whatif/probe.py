"""Ask a scheduler's own Filter plugins whether a pod may run on one node, outside any cycle.

What `framework.RunFilterPluginsWithNominatedPods` would answer for that node in a cycle of
the pod: PreFilter over every node of the snapshot (spreading and inter-pod affinity count
the whole cluster), then each Filter plugin on the node, stopping at the first rejection.
Nominated pods are not added (a probe is asked outside the queue).

`refusals` asks it of a whole placement: each placed pod with every other one in place.
"""
from __future__ import annotations

from ..framework.cycle_state import CycleState
from ..framework.status import Code, Status
from ..framework.types import PodInfo
from ..scheduler import Scheduler


def filter_status(scheduler: Scheduler, pod: PodInfo, node_name: str) -> Status:
    fwk = scheduler.frameworks.get(pod.scheduler_name)
    if fwk is None:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      f'no profile for schedulerName "{pod.scheduler_name}"')
    scheduler.cache.update_snapshot(scheduler.snapshot)
    ni = scheduler.snapshot.node_info_map[node_name]
    state = CycleState()
    result, status, narrowed_by = fwk.run_pre_filter_plugins(state, pod,
                                                             scheduler.snapshot.list())
    if not status.is_success():
        return status
    if result is not None and not result.all_nodes() and node_name not in result.node_names:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't satisfy plugin(s) "
                      f"[{' '.join(sorted(narrowed_by))}]")
    return fwk.run_filter_plugins(state, pod, ni)


def refusals(scheduler: Scheduler, placement: dict[str, str | None],
             gone: frozenset[str] = frozenset()) -> list[dict]:
    """Each pod of `placement` (pod key -> node, None: pending) that a Filter plugin refuses
    on its node once every other pod of the placement is in place, and the running pods
    `gone` (preempted) are not, with the plugin's words.

    kube-scheduler checks a pod's required pod affinity and DoNotSchedule spread only in the
    pod's own cycle (IgnoredDuringExecution): a pod bound later, without such a constraint,
    can break an earlier pod's; the scheduler's placement can be refused here."""
    for pod in scheduler.pods:
        if pod.key in gone:
            scheduler.cache.remove_pod(pod)
    placed = [p for p in scheduler.pods if placement.get(p.key)]
    for pod in placed:
        scheduler.cache.assume(pod, placement[pod.key])
    out = []
    for pod in placed:
        node = placement[pod.key]
        scheduler.cache.remove_pod(pod)
        status = filter_status(scheduler, pod, node)
        if not status.is_success():
            out.append({"pod": pod.key, "node": node, "plugin": status.plugin,
                        "message": status.message()})
        scheduler.cache.assume(pod, node)
    return out
