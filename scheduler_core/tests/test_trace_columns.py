"""The columnar trace renders the contract's JSON exactly as json.dumps(indent=2) would."""
import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.bench import WORKLOADS, write_input
from scheduler_core.build import build_scheduler
from scheduler_core.columns.test_equivalence import nodes, pods
from scheduler_core.framework.status import Code, Status
from scheduler_core.loader import Cluster
from scheduler_core.observe import TraceObserver, TraceRecorder
from scheduler_core.simulate import SimulationResult, load_scheduler
from scheduler_core.testing import make_pod, pod_info
from scheduler_core.tracecols import Tables, dump_at, int_column


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(node_list=nodes(), manifests=pods(), seed=st.integers(0, 5))
def test_rendered_text_is_json_dumps_of_the_cycles(node_list, manifests, seed):
    trace = TraceObserver()
    sched = build_scheduler(Cluster(nodes=node_list, pods=manifests), observer=trace, seed=seed)
    sched.run()
    out = io.StringIO()
    head = {"schemaVersion": 1, "bindings": dict(sched.bindings)}
    trace.write_json(out, head)
    assert out.getvalue() == json.dumps({**head, "cycles": trace.to_list()}, indent=2)


def test_odd_names_reasons_extenders_and_repeated_nodes_render_exactly():
    rec = TraceRecorder(3, 1.5, pod_info(make_pod("p")), "default-scheduler")
    rejected = Status(Code.UNSCHEDULABLE, 'Insufficient "cpu"', "é\n")
    rec.filter("n\u00e9\"1", [("A", None), ("B", rejected)])
    rec.filter("n2", [("A", None), ("B", None)])
    rec.filter("n\u00e9\"1", [("A", None)])        # evaluated again: keeps its place
    rec.filter_many(["A", "B"], ["n0", "n5", "n4"], [2, 1], [2, 1], {1: rejected})
    # Extenders filter after the plugins, also nodes no plugin filtered.
    rec.extender_filter("n2", "extender:http://x", Status(Code.UNSCHEDULABLE, "no"))
    rec.extender_filter("n3", "extender:http://x", Status())
    rec.finish("Unschedulable", None, "0/5 nodes", 2.0)
    want = json.dumps(rec.data, indent=2).replace("\n", "\n    ")
    assert rec.pretty(4) == want
    assert list(rec.data["filter"]) == ["n\u00e9\"1", "n2", "n4", "n5", "n3"]
    assert rec.data["filter"]["n\u00e9\"1"] == [
        {"plugin": "A", "code": "Success", "reasons": []}]


@pytest.mark.parametrize("name", ["SchedulingBasic", "SchedulingWithExtendedResource",
                                  "PreemptionBasic", "SchedulingWithNodeInclusionPolicy"])
def test_bench_workloads_render_the_same_bytes_to_a_text_stream_and_to_the_bytes_under_it(
        name, tmp_path):
    # Runs of nodes alike (Basic), a shape per node (ExtendedResource), preemption and
    # tainted nodes, with 300 nodes so that long runs are kept (and start at node 0 with two
    # lengths, the start index wrapping around); the second render reads what the
    # first kept.
    path = write_input(WORKLOADS[name](300, 40), "default", str(tmp_path))
    trace = TraceObserver()
    sched = load_scheduler([path], observer=trace)
    sched.run()
    result = SimulationResult(sched, trace)
    want = json.dumps(result.to_json(), indent=2)
    for _ in range(2):
        text = io.StringIO()
        result.write_json(text)
        assert text.getvalue() == want
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding="utf-8", write_through=False)
        stream.write("before ")
        result.write_json(stream)
        stream.write(" after")
        stream.flush()
        assert raw.getvalue().decode() == "before " + want + " after"


@pytest.mark.parametrize("value", [
    pytest.param([{"plugin": "A", "code": "Success", "reasons": []}], id="plain entries"),
    pytest.param({"t": 1e-05, "u": 1e16, "v": -0.0, "w": 2.5}, id="floats orjson writes apart"),
    pytest.param([float("nan"), float("inf"), None], id="NaN, infinity and null"),
    pytest.param(["é\u007f\n\u2028"], id="non-ASCII, DEL and control characters"),
    pytest.param({"a": {}, "b": [[]], "c": 2**70}, id="empty containers and a big int"),
    pytest.param({1: "x"}, id="a key that is not a string"),
])
def test_kept_entries_are_json_dumps_of_the_value(value):
    tables = Tables()
    for depth in (0, 4, 4):     # the second time at a depth is read from what was kept
        assert tables.dumped(value, depth).decode() == dump_at(value, depth)
    # A value orjson writes as it writes the one just rendered does not take its text.
    nulls = [None] * len(value)
    assert tables.dumped(nulls, 4).decode() == dump_at(nulls, 4)


@pytest.mark.parametrize("values, typecode", [
    ([0, 127], "b"), ([0, 128], "h"), ([-128, 5], "b"), ([-129, 5], "h"), ([-1, 0], "b"),
    ([64, 63], "b"), ([0, 2**15 - 1], "h"), ([0, 2**15], "i"), ([-2**31, 0], "i"),
    ([0, 2**31], "q"), ([-(2**63), 2**63 - 1], "q"),
])
def test_a_numpy_column_is_narrowed_to_the_smallest_type_that_holds_it(values, typecode):
    column = int_column(np.array(values, np.int64))
    assert column.typecode == typecode and column.tolist() == values


def test_unsigned_values_beyond_int64_stay_a_list():
    assert int_column(np.array([1, 2**63], np.uint64)) == [1, 2**63]
