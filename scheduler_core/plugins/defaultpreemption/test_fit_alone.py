"""SelectVictimsOnNode reprieving with NodeResourcesFit alone (when only it can change its mind)
gives what the full Filter run with AddPod/RemovePod gives, on random nodes and pods."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.plugins.defaultpreemption.default_preemption import DefaultPreemption
from scheduler_core.plugins.defaultpreemption.test_default_preemption import Env, node, pdb, pod

PROFILES = (("NodeResourcesFit",), ("NodeResourcesFit", "TaintToleration", "NodeAffinity"),
            ("NodeResourcesFit", "NodePorts", "InterPodAffinity"))


@st.composite
def victims(draw):
    out = []
    for i in range(draw(st.integers(0, 6))):
        req = {"cpu": f"{draw(st.integers(0, 4)) * 100}m", "memory": str(draw(st.integers(0, 5)))}
        out.append(pod(f"v{i}", on="node1", priority=draw(st.integers(0, 3)), req=req,
                       labels={"app": draw(st.sampled_from(("db", "web")))},
                       start=draw(st.integers(0, 3))))
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(running=victims(), cpu=st.integers(1, 8), pods=st.integers(1, 8),
       want=st.integers(0, 6), allowed=st.integers(0, 2), profile=st.sampled_from(PROFILES))
def test_reprieving_with_fit_alone_gives_the_full_filters_victims(running, cpu, pods, want,
                                                                  allowed, profile):
    e = Env([node("node1", {"cpu": f"{cpu * 100}m", "memory": "10", "pods": str(pods)})],
            [pod("p", priority=2, req={"cpu": f"{want * 100}m", "memory": "1"}), *running],
            plugins=profile)
    p = e.pod("p")
    ni = e.sched.snapshot.get("node1")
    pdbs = [pdb("db", {"app": "db"}, allowed)]
    state = e.pre_filter(p)
    fit = e.plugin._deciding_fit(e.fwk, state, p, ni)
    if profile == PROFILES[0]:
        assert fit is not None  # the reprieves below take the short way

    def outcome(plugin):
        got, violations, status = plugin.select_victims_on_node(state.clone(), p, ni.clone(),
                                                                pdbs)
        return ([v.name for v in got or ()], violations, status.code, status.reasons)

    fast = outcome(e.plugin)
    full = outcome(_FullFilters(e.plugin))
    assert fast == full


class _FullFilters(DefaultPreemption):
    """The plugin always running every Filter plugin with AddPod/RemovePod."""

    def __init__(self, plugin):
        self.__dict__.update(plugin.__dict__)

    def _deciding_fit(self, fwk, state, pod, node_info):
        return None
