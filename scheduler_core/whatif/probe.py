"""Ask a scheduler's own Filter plugins whether a pod may run on one node, outside any cycle.

What `framework.RunFilterPluginsWithNominatedPods` would answer for that node in a cycle of
the pod: PreFilter over every node of the snapshot (spreading and inter-pod affinity count
the whole cluster), then each Filter plugin on the node, stopping at the first rejection.
Nominated pods are not added (a probe is asked outside the queue).
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
