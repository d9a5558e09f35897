"""Fit's Room (a node's sums as pods come to it) against Filter on a copy of the node with those
pods added, on random nodes and pods."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from scheduler_core.columns.test_equivalence import nodes, pods, snapshot_with_running
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins.noderesources.fit import Fit, default_args
from scheduler_core.testing import pod_info


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_list=nodes(), running=pods("r"), arriving=pods("a"), pending=pods())
def test_a_rooms_verdict_is_filters_on_the_node_with_the_pods_added(node_list, running,
                                                                  arriving, pending):
    snapshot = snapshot_with_running(node_list, running)
    fit = Fit(default_args({}))
    added = [pod_info(p) for p in arriving]
    for manifest in pending:
        pod = pod_info(manifest)
        state = CycleState()
        fit.pre_filter(state, pod, snapshot.list())
        for ni in snapshot.list():
            room, copy = fit.room(state, ni), ni.clone()
            for other in added:
                room.add(other)
                copy.add_pod(other)
                want, got = fit.filter(state, pod, copy), room.status()
                assert (got and (got.code, got.reasons)) == (want and (want.code, want.reasons))
