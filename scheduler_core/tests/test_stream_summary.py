"""The live stream's summary of a cycle is what summarize() makes of its contract trace."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.build import build_scheduler
from scheduler_core.columns.test_equivalence import nodes, pods
from scheduler_core.loader import Cluster
from scheduler_core.observe import MultiObserver, TraceObserver
from scheduler_core.simulate import load_scheduler
from scheduler_core.stream import SummaryObserver, summarize

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def observed(sched) -> list[tuple[dict, dict]]:
    trace, summaries = TraceObserver(), []
    sched.set_observer(MultiObserver([trace, SummaryObserver(
        lambda kind, payload: summaries.append(payload) if kind == "cycle" else None)]))
    sched.run()
    return list(zip(trace.to_list(), summaries, strict=True))


def assert_summaries(pairs) -> None:
    for cycle, summary in pairs:
        expected = summarize(cycle, end_time=summary["endTime"])
        assert {k: v for k, v in summary.items() if k not in ("queueSort", "preEnqueue")} == \
            expected


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(node_list=nodes(), manifests=pods(), seed=st.integers(0, 5))
def test_random_runs(node_list, manifests, seed):
    assert_summaries(observed(build_scheduler(Cluster(nodes=node_list, pods=manifests),
                                              seed=seed)))


@pytest.mark.parametrize("fixture", ["gpu-cluster.yaml", "taints-affinity.yaml",
                                     "spread-antiaffinity.yaml", "preemption-lesson.yaml"])
def test_fixtures(fixture):
    pairs = observed(load_scheduler([str(FIXTURES / fixture)], seed=1))
    assert pairs
    assert_summaries(pairs)
