"""The dry run's victims worked on the columns for many nodes at once (victims_vector.py) are
those SelectVictimsOnNode gives node by node, on random nodes, pods and PDBs."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.columns import COLUMNS_KEY
from scheduler_core.columns.store import columns_of
from scheduler_core.plugins.defaultpreemption.test_default_preemption import Env, node, pdb, pod

PROFILES = (("NodeResourcesFit",), ("NodeResourcesFit", "TaintToleration", "NodeAffinity"),
            ("NodeResourcesFit", "NodePorts", "InterPodAffinity"))
NODES = 5
TAINT = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]


@st.composite
def running(draw):
    out = []
    for i in range(draw(st.integers(0, 24))):
        req = {"cpu": f"{draw(st.integers(0, 4)) * 100}m", "memory": str(draw(st.integers(0, 5)))}
        out.append(pod(f"v{i}", on=f"node{draw(st.integers(0, NODES - 1))}",
                       priority=draw(st.integers(0, 3)), req=req,
                       labels={"app": draw(st.sampled_from(("db", "web")))},
                       start=draw(st.integers(0, 3))))
    return out


@st.composite
def nodes(draw):
    return [node(f"node{i}", {"cpu": f"{draw(st.integers(1, 8)) * 100}m", "memory": "10",
                              "pods": str(draw(st.integers(1, 8)))},
                 taints=TAINT if draw(st.integers(0, 4)) == 0 else None)
            for i in range(NODES)]


def outcome(result) -> tuple:
    victims, violations, status = result
    return [v.name for v in victims or ()], violations, status.code, status.reasons


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_list=nodes(), pods=running(), want=st.integers(0, 6), allowed=st.integers(0, 2),
       with_pdb=st.booleans(), profile=st.sampled_from(PROFILES),
       nominated=st.sampled_from((None, "node0")))
def test_victims_on_the_columns_are_the_per_node_victims(node_list, pods, want, allowed,
                                                         with_pdb, profile, nominated):
    e = Env(node_list, [pod("p", priority=2, req={"cpu": f"{want * 100}m", "memory": "1"}),
                        pod("n", priority=2), *pods], plugins=profile)
    p = e.pod("p")
    if nominated is not None:
        e.sched.queue.add_nominated(e.pod("n"), nominated)
    pdbs = [pdb("db", {"app": "db"}, allowed)] if with_pdb else []
    state = e.pre_filter(p)
    state.write(COLUMNS_KEY, columns_of(e.sched.snapshot))
    infos = e.node_infos()
    select = e.plugin.victims_on_nodes(state, p, pdbs)
    # Node by node where a running plugin other than NodeResourcesFit looks at the pods (a
    # plugin with nothing to check for this pod skips its Filter).
    assert (select is None) == (e.fwk.sums_filter(state.skip_filter_plugins) is None)
    if select is None:
        return
    decided = select(infos)
    for ni, result in zip(infos, decided):
        alone = e.plugin.select_victims_on_node(state.clone(), p, ni.clone(), pdbs)
        if result is None:
            # Left to the per-node path only where its answer is not the plain one.
            untolerated = bool(ni.taints) and "TaintToleration" in profile
            assert untolerated or ni.name == nominated or not alone[2].is_success()
            continue
        assert outcome(result) == outcome(alone)
