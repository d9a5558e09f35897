"""The columnar trace renders the contract's JSON exactly as json.dumps(indent=2) would."""
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.build import build_scheduler
from scheduler_core.columns.test_equivalence import nodes, pods
from scheduler_core.framework.status import Code, Status
from scheduler_core.loader import Cluster
from scheduler_core.observe import TraceObserver, TraceRecorder
from scheduler_core.testing import make_pod, pod_info


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
