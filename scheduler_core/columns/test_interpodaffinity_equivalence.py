"""InterPodAffinity's kept counts against its rescan, on random clusters.

Per pending pod: PreFilter's per-pair counts, each node's Filter code and reasons, PreScore's
topology scores, each node's raw and normalized score are the same from the columns (counts
kept per node as pods come and go) as from the per-node reference that rescans every pod. The
kept counts follow pods added to and removed from nodes, and whole runs bind alike on both
paths.
"""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.columns import COLUMNS_KEY
from scheduler_core.columns._compare import assert_verdict_rows
from scheduler_core.columns.store import columns_of
from scheduler_core.columns.test_equivalence import run
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import ClusterObjects, FakeHandle
from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.plugins.interpodaffinity import filtering, scoring, vector
from scheduler_core.plugins.registry import default_registry
from scheduler_core.testing import make_node, make_pod, pod_info

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
RUN_SETTINGS = settings(max_examples=30, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                               HealthCheck.function_scoped_fixture])
HOSTNAME, ZONE, RACK = "kubernetes.io/hostname", "zone", "rack"
NAMESPACES = {"default": {}, "team-a": {"team": "a"}, "team-b": {"team": "b"}}
APPS = ("a", "b", "c")

selectors = st.sampled_from([
    None, {}, {"matchLabels": {"app": "a"}}, {"matchLabels": {"app": "b"}},
    {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a", "c"]}]},
    {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]},
])


@st.composite
def terms(draw):
    term = {"labelSelector": draw(selectors),
            "topologyKey": draw(st.sampled_from((HOSTNAME, ZONE, RACK)))}
    if draw(st.booleans()):
        term["namespaces"] = draw(st.lists(st.sampled_from(sorted(NAMESPACES)), max_size=2))
    if draw(st.integers(0, 2)) == 0:
        term["namespaceSelector"] = draw(st.sampled_from([{}, {"matchLabels": {"team": "a"}}]))
    return term


@st.composite
def affinity(draw):
    out = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        required = draw(st.lists(terms(), max_size=2))
        preferred = [{"weight": draw(st.integers(1, 100)), "podAffinityTerm": t}
                     for t in draw(st.lists(terms(), max_size=2))]
        if required or preferred:
            out[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": required,
                         "preferredDuringSchedulingIgnoredDuringExecution": preferred}
    return out


@st.composite
def pods(draw, prefix: str, max_size: int = 8):
    out = []
    for i in range(draw(st.integers(1, max_size))):
        app = draw(st.sampled_from(APPS + (None,)))
        spec = {}
        if draw(st.integers(0, 2)) != 0:
            spec["affinity"] = draw(affinity())
        out.append(make_pod(f"{prefix}{i}", namespace=draw(st.sampled_from(sorted(NAMESPACES))),
                            labels={"app": app} if app else {}, cpu="100m", **spec))
    return out


@st.composite
def nodes(draw):
    out = []
    for i in range(draw(st.integers(1, 8))):
        labels = {HOSTNAME: f"n{i}"}
        if draw(st.integers(0, 3)) != 0:
            labels[ZONE] = draw(st.sampled_from(("z1", "z2")))
        if draw(st.booleans()):
            labels[RACK] = draw(st.sampled_from(("r1", "r2", "r3")))
        out.append(make_node(f"n{i}", labels=labels))
    return out


def objects() -> ClusterObjects:
    out = ClusterObjects()
    for name, labels in NAMESPACES.items():
        out.namespaces[name] = {"metadata": {"name": name, "labels": labels}}
    return out


def snapshot_of(node_list, running, placements) -> Snapshot:
    placed = []
    for pi, at in zip(map(pod_info, running), placements):
        pi.node_name = node_list[at % len(node_list)]["metadata"]["name"]
        placed.append(pi)
    return Snapshot.from_objects(node_list, placed)


def plugin_for(snapshot, hard_weight: int, ignore_preferred: bool):
    spec = default_registry().spec("InterPodAffinity")
    args = {"hardPodAffinityWeight": hard_weight,
            "ignorePreferredTermsOfExistingPods": ignore_preferred}
    return spec.new(spec.default_args(args), FakeHandle(snapshot, objects()))


def status_tuple(status):
    return None if status is None else (status.code, status.reasons)


def check_filter(plugin, cols, pod, reference, columns) -> None:
    """Same counts in both states; each node's Filter from the columns' state, per node and
    vectorized, is the reference's."""
    ref_state = reference.get(filtering.PRE_FILTER_STATE_KEY)
    col_state = columns.get(filtering.PRE_FILTER_STATE_KEY)
    for name in ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts"):
        assert getattr(col_state, name) == getattr(ref_state, name), name
        assert bool(getattr(col_state, name)) == bool(getattr(ref_state, name)), name
    wants = [plugin.filter(reference, pod, ni) for ni in cols.node_infos]
    for ni, want in zip(cols.node_infos, wants, strict=True):
        assert status_tuple(plugin.filter(columns, pod, ni)) == status_tuple(want), ni.name
    verdict = plugin.filter_vector(columns, pod, cols)
    assert verdict is not None
    assert_verdict_rows(plugin, verdict, cols.node_infos, wants)


def check_pod(plugin, snapshot, pod) -> None:
    """Every result of the columns path equals the rescan's for this pod, also after
    AddPod/RemovePod changed the counts."""
    cols = columns_of(snapshot)
    infos = snapshot.list()
    reference, columns = CycleState(), CycleState()
    columns.write(COLUMNS_KEY, cols)
    want = plugin.pre_filter(reference, pod, infos)
    got = plugin.pre_filter(columns, pod, infos)
    assert status_tuple(got[1]) == status_tuple(want[1])
    if reference.get(filtering.PRE_FILTER_STATE_KEY) is not None:
        check_filter(plugin, cols, pod, reference, columns)
        # Preemption's dry run: pods taken off their nodes, then one put back, on clones.
        reference, columns = reference.clone(), columns.clone()
        moved = [(p, ni) for ni in infos for p in ni.pods][::2]
        for state in (reference, columns):
            for p, ni in moved:
                assert plugin.remove_pod(state, pod, p, ni) is None
            for p, ni in moved[:1]:
                assert plugin.add_pod(state, pod, p, ni) is None
        check_filter(plugin, cols, pod, reference, columns)
    want = plugin.pre_score(reference, pod, infos)
    got = plugin.pre_score(columns, pod, infos)
    assert status_tuple(got) == status_tuple(want)
    ref_scores = reference.get(scoring.PRE_SCORE_STATE_KEY)
    if ref_scores is None:
        return
    assert columns.get(scoring.PRE_SCORE_STATE_KEY).topology_score == ref_scores.topology_score
    raw = plugin.score_vector(columns, pod, cols, np.arange(len(infos)))
    expected = [NodeScore(ni.name, plugin.score(reference, pod, ni)[0]) for ni in infos]
    assert raw.tolist() == [ns.score for ns in expected]
    plugin.normalize_score(reference, pod, expected)
    assert plugin.normalize_vector(columns, pod, raw).tolist() == [ns.score for ns in expected]


@SETTINGS
@given(node_list=nodes(), running=pods("r"), placements=st.lists(st.integers(0, 7), min_size=8),
       pending=pods("p", 4), hard_weight=st.sampled_from((0, 1, 7)), ignore=st.booleans())
def test_kept_counts_filter_and_scores_equal_the_rescan(node_list, running, placements, pending,
                                                        hard_weight, ignore):
    snapshot = snapshot_of(node_list, running, placements)
    plugin = plugin_for(snapshot, hard_weight, ignore)
    for manifest in pending:
        check_pod(plugin, snapshot, pod_info(manifest))


def swap(snapshot, name: str, change) -> None:
    """What the cache does when a node changes: a fresh copy swapped into the snapshot."""
    fresh = snapshot.get(name).clone()
    change(fresh)
    snapshot.replace(fresh)
    snapshot.refresh_lists()


def live_counts(index) -> dict:
    return {key: counts.tolist() for key, (_, counts) in index.entries.items() if counts.any()}


@SETTINGS
@given(node_list=nodes(), running=pods("r"), placements=st.lists(st.integers(0, 7), min_size=8),
       arriving=pods("x"), moves=st.lists(st.tuples(st.booleans(), st.integers(0, 7),
                                                    st.integers(0, 7)), max_size=12),
       pending=pods("p", 3))
def test_kept_counts_follow_pods_added_and_removed(node_list, running, placements, arriving,
                                                   moves, pending):
    snapshot = snapshot_of(node_list, running, placements)
    cols = columns_of(snapshot)
    plugin = plugin_for(snapshot, 1, False)
    check_pod(plugin, snapshot, pod_info(pending[0]))  # counts kept from here on
    waiting = list(map(pod_info, arriving))
    for add, pick, at in moves:
        node = snapshot.list()[at % len(node_list)]
        if add and waiting:
            pod = waiting.pop(pick % len(waiting))
            pod.node_name = node.name
            swap(snapshot, node.name, lambda ni, pod=pod: ni.add_pod(pod))
        elif node.pods:
            pod = node.pods[pick % len(node.pods)]
            swap(snapshot, node.name, lambda ni, pod=pod: ni.remove_pod(pod))
    fresh = vector.TermIndex(columns_of(Snapshot([ni.clone() for ni in snapshot.list()])))
    assert live_counts(vector.term_index(cols)) == live_counts(fresh)
    for manifest in pending:
        check_pod(plugin, snapshot, pod_info(manifest))


@RUN_SETTINGS
@given(node_list=nodes(), manifests=pods("p", 10), trace=st.booleans())
def test_a_run_with_pod_affinity_is_the_same_on_both_paths(monkeypatch, node_list, manifests,
                                                           trace):
    assert run(monkeypatch, "vector", node_list, manifests, trace) == \
        run(monkeypatch, "reference", node_list, manifests, trace)
