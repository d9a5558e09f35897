"""A packed cycle unpacks to the contract's CYCLE object and text, exactly as recorded."""
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.build import build_scheduler
from scheduler_core.columns.test_equivalence import nodes, pods
from scheduler_core.framework.status import Code, Status
from scheduler_core.loader import Cluster
from scheduler_core.observe import TraceObserver, TraceRecorder
from scheduler_core.simulate import simulate
from scheduler_core.testing import make_pod, pod_info
from scheduler_core.tracepack import pack, unpack

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def assert_round_trip(rec: TraceRecorder) -> None:
    back = unpack(pack(rec))
    assert back.data == rec.data
    assert back.pretty(4) == rec.pretty(4)
    assert back.pretty(0) == json.dumps(rec.data, indent=2)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(node_list=nodes(), manifests=pods(), seed=st.integers(0, 5))
def test_every_cycle_of_a_random_run_round_trips(node_list, manifests, seed):
    trace = TraceObserver()
    build_scheduler(Cluster(nodes=node_list, pods=manifests), observer=trace, seed=seed).run()
    for rec in trace.cycles:
        assert_round_trip(rec)


OUT_OF_TREE = {"Coscheduling": "scheduler_core.outoftree.coscheduling",
               "GPUScorer": "scheduler_core.outoftree.gpu_scorer",
               "CapacityScheduling": "scheduler_core.outoftree.capacity_scheduling",
               "BindAudit": "scheduler_core.outoftree.bind_audit"}


@pytest.mark.parametrize("fixture", sorted(
    p.name for p in FIXTURES.glob("*.yaml") if p.stem not in ("scale-500", "extender-lesson")))
def test_every_cycle_of_the_fixtures_round_trips(fixture):
    """Preemption, Permit waits, volumes, gangs, timelines: every part of a cycle."""
    result = simulate([str(FIXTURES / fixture)], seed=1, out_of_tree=OUT_OF_TREE)
    assert result.trace.cycles
    for rec in result.trace.cycles:
        assert_round_trip(rec)


def test_odd_names_reasons_extenders_and_repeated_nodes_round_trip():
    rec = TraceRecorder(3, 1.5, pod_info(make_pod("p")), "default-scheduler")
    rejected = Status(Code.UNSCHEDULABLE, 'Insufficient "cpu"', "é\n")
    rec.filter("n\u00e9\"1", [("A", None), ("B", rejected)])
    rec.filter("n2", [("A", None), ("B", None)])
    rec.filter("n\u00e9\"1", [("A", None)])
    rec.filter_many(["A", "B"], ["n0", "n5", "n4"], [2, 1], [2, 1], {1: rejected})
    rec.extender_filter("n2", "extender:http://x", Status(Code.UNSCHEDULABLE, "no"))
    rec.extender_filter("n3", "extender:http://x", Status())
    nodes_scored = [type("N", (), {"name": n})() for n in ("n2", "n4", "n9")]
    rec.score("A", nodes_scored, [1, 2**40, -3], [10, 0, 100], 2)
    rec.score("B", nodes_scored, [0.5, True, 3], [1, 2, 3], 1, detail={"why": "x"})
    rec.total_scores(nodes_scored, [21, 2, 203])
    rec.finish("Bound", "n9", "", 2.0)
    assert_round_trip(rec)


def test_a_value_orjson_refuses_round_trips_through_json():
    """An integer beyond 64 bits (here a score detail) falls back to json, read back alike."""
    rec = TraceRecorder(1, 0.0, pod_info(make_pod("p")), "default-scheduler")
    nodes_scored = [type("N", (), {"name": "n1"})()]
    rec.score("A", nodes_scored, [2**70], [2**70], 1, detail={"big": 2**70})
    rec.total_scores(nodes_scored, [2**70])
    rec.finish("Bound", "n1", "", 1.0)
    assert_round_trip(rec)
    assert unpack(pack(rec)).data["score"]["A"]["n1"]["detail"] == {"big": 2**70}


def test_an_empty_cycle_round_trips():
    rec = TraceRecorder(0, 0.0, pod_info(make_pod("p")), "default-scheduler")
    assert_round_trip(rec)
    assert unpack(pack(rec)).data["filter"] == {}


def test_an_unknown_format_is_refused():
    import zlib
    blob = zlib.compress(b"\x07" + bytes(4))
    with pytest.raises(ValueError, match="unknown format 7"):
        unpack(blob)


def test_a_cycle_packed_by_zlib_before_reads_as_one_packed_now():
    """Rows stored before ISA-L wrote the stream (zlib's own deflate) read alike: the bytes
    under the compression are the same, and so is the cycle read back."""
    import zlib
    rec = TraceRecorder(2, 1.0, pod_info(make_pod("p")), "default-scheduler")
    nodes_scored = [type("N", (), {"name": f"n{i}"})() for i in range(40)]
    rec.filter_many(["A"], [n.name for n in nodes_scored], [0] * 40, [0] * 40, {})
    rec.score("A", nodes_scored, list(range(40)), list(range(40)), 1)
    rec.total_scores(nodes_scored, list(range(40)))
    rec.finish("Bound", "n39", "", 2.0)
    now = pack(rec)
    before = zlib.compress(zlib.decompress(now), 1)
    assert before != now
    assert unpack(before).data == unpack(now).data == rec.data
    assert unpack(before).pretty(4) == rec.pretty(4)
