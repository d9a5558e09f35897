"""The live stream's summary of a cycle is what summarize() makes of its contract trace, and
what TracedSummaryObserver reads from its own trace is SummaryObserver's, key for key."""
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.build import build_scheduler
from scheduler_core.columns.test_equivalence import nodes, pods
from scheduler_core.framework.status import Code, Status
from scheduler_core.loader import Cluster
from scheduler_core.observe import MultiObserver
from scheduler_core.simulate import load_scheduler
from scheduler_core.stream import SummaryObserver, TracedSummaryObserver, summarize
from scheduler_core.testing import make_pod, pod_info

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def observed(sched) -> list[tuple[dict, dict]]:
    """(contract cycle, SummaryObserver's summary) per cycle; the events the traced observer
    emitted are the same as SummaryObserver's, in the same order, keys in the same order."""
    summaries, events, traced_events = [], [], []

    def emit(kind, payload):
        events.append((kind, payload))
        if kind == "cycle":
            summaries.append(payload)

    trace = TracedSummaryObserver(lambda kind, payload: traced_events.append((kind, payload)))
    sched.set_observer(MultiObserver([trace, SummaryObserver(emit)]))
    sched.run()
    assert json.dumps(traced_events) == json.dumps(events)
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


def test_traced_summaries_count_extender_verdicts_as_summary_observer_does():
    # An unreachable extender's Error is no rejection to SummaryRecorder (summarize() reads
    # the trail's last entry and differs there); the traced observer follows SummaryRecorder.
    pairs = observed(load_scheduler([str(FIXTURES / "extender-lesson.yaml")], seed=1))
    assert pairs


def test_traced_summary_of_odd_calls_is_summary_recorders():
    # A node filtered twice, columns with rejections, an extender's rejection, totals tied
    # across the fifth place (names out of order), preemption beside a batch entry, reasons
    # beyond three and a long message.
    summaries = {}
    observer = MultiObserver([
        SummaryObserver(lambda kind, p: summaries.setdefault("recorder", p)),
        TracedSummaryObserver(lambda kind, p: summaries.setdefault("traced", p))])
    rec = observer.begin_cycle(7, 1.5, pod_info(make_pod("p")), "default-scheduler")
    rec.queue_points({"plugin": "PrioritySort", "before": [], "from": "activeQ",
                      "runnerUp": None, "criterion": "priority", "why": "only"}, [])
    rec.batch({"signed": True})
    rec.point("preFilter", "A", Status(Code.UNSCHEDULABLE, "1", "2", "3", "4"))
    rejected = Status(Code.UNSCHEDULABLE, "no")
    rec.filter("n9", [("A", None), ("B", rejected)])
    rec.filter("n9", [("A", None), ("B", None)])
    rec.filter_many(["A", "B", "C"], [f"n{i}" for i in range(8)], [3, 1, 0, 2], [3, 0, 3, 1],
                    {1: Status(Code.UNSCHEDULABLE, "a"), 2: Status(Code.UNSCHEDULABLE, "b")})
    rec.extender_filter("n3", "extender:http://x", Status(Code.UNSCHEDULABLE, "no"))
    rec.extender_filter("n0", "extender:http://x", Status())
    nodes = [SimpleNamespace(name=n) for n in ("n7", "n2", "n5", "n1", "n6", "n3", "n4")]
    rec.total_scores(nodes, np.array([9, 4, 9, 9, 9, 12, 9]))
    rec.preemption("n5", [f"v{i}" for i in range(25)], None)
    rec.finish("Unschedulable", None, "m" * 3000, 2.0)
    assert json.dumps(summaries["traced"]) == json.dumps(summaries["recorder"])
    assert summaries["traced"]["topScores"] == [
        {"node": "n3", "score": 12}, {"node": "n1", "score": 9}, {"node": "n4", "score": 9},
        {"node": "n5", "score": 9}, {"node": "n6", "score": 9}]
