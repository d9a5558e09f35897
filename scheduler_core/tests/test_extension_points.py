"""Every extension point's success and failure paths, as framework/runtime and schedule_one.go
run them, observed through the scheduler's trace and the plugins' own call logs."""
import pytest

from scheduler_core.framework.interfaces import PostFilterResult, PreFilterResult
from scheduler_core.framework.status import Code, Status
from scheduler_core.testing import make_node, make_pod
from scheduler_core.testing.fakes import fake, run

NODES = [make_node("n1"), make_node("n2"), make_node("n3")]
POD = make_pod("p")


def entry(plugin, code="Success", *reasons, **extra):
    return {"plugin": plugin, "code": code, "reasons": list(reasons), **extra}


def calls(log, point):
    return [c for c in log if c[1] == point]


# --- PreFilter ---------------------------------------------------------------------------------
def test_prefilter_unschedulable_lets_the_other_prefilters_run():
    log = []
    a = fake("A", log, pre_filter=(None, Status.unschedulable("a says no")))
    b = fake("B", log, pre_filter=(None, None))
    sched, cycles = run([a, b], NODES, [POD], max_cycles=1)
    assert [c[0] for c in calls(log, "pre_filter")] == ["A", "B"]
    cycle = cycles[0]
    assert cycle["preFilter"] == [entry("A", "Unschedulable", "a says no"), entry("B")]
    assert cycle["filter"] == {}
    assert (cycle["outcome"], cycle["message"]) == (
        "Unschedulable", "0/3 nodes are available: a says no.")
    assert sched.queue.unschedulable["default/p"].unschedulable_plugins == {"A"}


def test_prefilter_unschedulable_and_unresolvable_ends_the_point_at_once():
    log = []
    a = fake("A", log, pre_filter=(None, Status.unresolvable("a never")))
    b = fake("B", log, pre_filter=(None, None))
    _, cycles = run([a, b], NODES, [POD], max_cycles=1)
    assert [c[0] for c in calls(log, "pre_filter")] == ["A"]
    assert cycles[0]["preFilter"] == [entry("A", "UnschedulableAndUnresolvable", "a never")]
    assert cycles[0]["message"] == "0/3 nodes are available: a never."


def test_prefilter_error_fails_the_cycle_with_the_plugin_named():
    log = []
    a = fake("A", log, pre_filter=(None, Status.as_error("boom")))
    b = fake("B", log, pre_filter=(None, None))
    sched, cycles = run([a, b], NODES, [POD], max_cycles=1)
    assert [c[0] for c in calls(log, "pre_filter")] == ["A"]
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (
        "Error", 'running PreFilter plugin "A": boom')
    # An error is not a rejection by a plugin: the pod backs off instead of waiting for an event.
    assert "default/p" in sched.queue.backoff


def test_prefilter_skip_skips_the_plugins_filter_for_the_cycle():
    log = []
    a = fake("A", log, pre_filter=(None, Status.skip()), filter=Status.unresolvable("never"))
    sched, cycles = run([a], NODES, [POD], max_cycles=1)
    assert calls(log, "filter") == []
    assert cycles[0]["preFilter"] == [entry("A", "Skip")]
    assert cycles[0]["outcome"] == "Bound"
    assert sched.bindings["default/p"] is not None


# --- PreFilterResult ---------------------------------------------------------------------------
def test_prefilter_result_narrows_the_nodes_filtered():
    log = []
    a = fake("A", log, pre_filter=(PreFilterResult({"n2"}), None), filter=None)
    sched, cycles = run([a], NODES, [POD], max_cycles=1)
    assert calls(log, "filter") == [("A", "filter", "n2")]
    assert list(cycles[0]["filter"]) == ["n2"]
    assert sched.bindings["default/p"] == "n2"


def test_prefilter_results_of_several_plugins_intersect():
    a = fake("A", pre_filter=(PreFilterResult({"n1", "n2"}), None))
    b = fake("B", pre_filter=(PreFilterResult({"n2", "n3"}), None))
    sched, _ = run([a, b], NODES, [POD], max_cycles=1)
    assert sched.bindings["default/p"] == "n2"


@pytest.mark.parametrize("results,want", [
    pytest.param({"A": set()}, "node(s) didn't satisfy plugin A",
                 id="one plugin keeps no node"),
    pytest.param({"A": {"n1"}, "B": {"n2"}},
                 "node(s) didn't satisfy plugin(s) [A B] simultaneously",
                 id="two plugins keep disjoint nodes"),
])
def test_prefilter_result_with_no_node_left_is_unresolvable(results, want):
    plugins = [fake(n, pre_filter=(PreFilterResult(nodes), None)) for n, nodes in results.items()]
    sched, cycles = run(plugins, NODES, [POD], max_cycles=1)
    assert cycles[0]["outcome"] == "Unschedulable"
    assert cycles[0]["message"] == f"0/3 nodes are available: {want}."
    assert sched.queue.unschedulable["default/p"].unschedulable_plugins == set(results)


def test_nodes_a_prefilter_result_left_out_count_in_the_histogram():
    a = fake("A", pre_filter=(PreFilterResult({"n1"}), None))
    f = fake("F", filter=Status.unschedulable("f says no"))
    sched, cycles = run([a, f], NODES, [POD], max_cycles=1)
    assert cycles[0]["message"] == (
        "0/3 nodes are available: 1 f says no, 2 node(s) didn't satisfy plugin(s) [A].")
    # The narrowing plugin is one of the rejectors: its events may make the pod schedulable.
    assert sched.queue.unschedulable["default/p"].unschedulable_plugins == {"A", "F"}


# --- Filter ------------------------------------------------------------------------------------
def test_filter_stops_at_the_first_plugin_that_rejects_a_node():
    log = []
    f1 = fake("F1", log, filter=lambda s, p, ni: Status.unschedulable("f1") if ni.name == "n1"
              else None)
    f2 = fake("F2", log, filter=lambda s, p, ni: Status.unresolvable("f2") if ni.name == "n2"
              else None)
    f3 = fake("F3", log, filter=None)
    sched, cycles = run([f1, f2, f3], NODES, [POD], max_cycles=1)
    assert calls(log, "filter") == [
        ("F1", "filter", "n1"),
        ("F1", "filter", "n2"), ("F2", "filter", "n2"),
        ("F1", "filter", "n3"), ("F2", "filter", "n3"), ("F3", "filter", "n3"),
    ]
    assert cycles[0]["filter"] == {
        "n1": [entry("F1", "Unschedulable", "f1")],
        "n2": [entry("F1"), entry("F2", "UnschedulableAndUnresolvable", "f2")],
        "n3": [entry("F1"), entry("F2"), entry("F3")],
    }
    # One feasible node: the framework skips scoring.
    assert cycles[0]["score"] == {}
    assert sched.bindings["default/p"] == "n3"


def test_filter_error_fails_the_cycle():
    f = fake("F", filter=Status.as_error("boom"))
    _, cycles = run([f], NODES, [POD], max_cycles=1)
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (
        "Error", 'running "F" filter plugin: boom')


# --- PostFilter --------------------------------------------------------------------------------
def test_postfilter_rejections_are_joined_into_the_message():
    log = []
    f = fake("F", filter=Status.unschedulable("f says no"))
    a = fake("PA", log, post_filter=(None, Status.unschedulable("pa cannot help")))
    b = fake("PB", log, post_filter=(None, Status.unschedulable("pb neither")))
    _, cycles = run([f, a, b], NODES, [POD], max_cycles=1)
    assert [c[0] for c in calls(log, "post_filter")] == ["PA", "PB"]
    assert cycles[0]["postFilter"] == [entry("PA", "Unschedulable", "pa cannot help"),
                                       entry("PB", "Unschedulable", "pb neither")]
    assert cycles[0]["message"] == (
        "0/3 nodes are available: 3 f says no. pa cannot help, pb neither")


def test_postfilter_sees_every_rejected_nodes_status():
    seen = {}

    def post_filter(state, pod, node_to_status):
        seen.update({n: node_to_status.get(n).reasons for n in ("n1", "n2", "n3")})
        return None, Status.unschedulable("no")

    f = fake("F", filter=lambda s, p, ni: Status.unschedulable(f"f on {ni.name}"))
    run([f, fake("P", post_filter=post_filter)], NODES, [POD], max_cycles=1)
    assert seen == {"n1": ["f on n1"], "n2": ["f on n2"], "n3": ["f on n3"]}


def test_postfilter_success_nominates_a_node_and_stops_the_point():
    log = []
    f = fake("F", filter=Status.unschedulable("f says no"))
    a = fake("PA", log, post_filter=(PostFilterResult("n2"), None))
    b = fake("PB", log, post_filter=(None, Status.unschedulable("never asked")))
    sched, cycles = run([f, a, b], NODES, [POD], max_cycles=1)
    assert [c[0] for c in calls(log, "post_filter")] == ["PA"]
    assert cycles[0]["preemption"] == {"nominatedNode": "n2", "victims": []}
    assert cycles[0]["message"] == "0/3 nodes are available: 3 f says no."
    assert sched.queue.nominated == {"default/p": "n2"}


def test_a_rejecting_postfilter_result_clears_the_nomination():
    # DefaultPreemption answers "no candidates" with an empty nomination to clear a stale one.
    f = fake("F", filter=Status.unschedulable("f says no"))
    p = fake("P", post_filter=(PostFilterResult(""), Status.unschedulable("no candidates")))
    pod = make_pod("p")
    pod["status"] = {"nominatedNodeName": "n1"}
    sched, _ = run([f, p], NODES, [pod], max_cycles=1)
    assert sched.queue.nominated == {}


# --- PreScore and Score ------------------------------------------------------------------------
def test_prescore_skip_skips_the_plugins_score():
    log = []
    s = fake("S", log, pre_score=Status.skip(), score=lambda *a: pytest.fail("S scored"))
    t = fake("T", log, score=(10, None))
    _, cycles = run([s, t], NODES, [POD], max_cycles=1)
    assert cycles[0]["preScore"] == [entry("S", "Skip")]
    assert list(cycles[0]["score"]) == ["T"]
    assert [c[0] for c in calls(log, "score")] == ["T", "T", "T"]


def test_prescore_error_fails_the_cycle():
    s = fake("S", pre_score=Status.as_error("boom"), score=(0, None))
    _, cycles = run([s], NODES, [POD], max_cycles=1)
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (
        "Error", 'running PreScore plugin "S": boom')


RAW = {"n1": 10, "n2": 20, "n3": 40}


def set_scores(scores, value):
    for s in scores:
        s.score = value


def scale_to_100(state, pod, scores):
    top = max(s.score for s in scores)
    for s in scores:
        s.score = s.score * 100 // top


def test_scores_are_normalized_weighted_and_summed():
    a = fake("A", score=lambda s, p, ni: (RAW[ni.name], None), normalize=scale_to_100)
    b = fake("B", score=(30, None))
    sched, cycles = run([a, b], NODES, [POD], enabled=[("A", 2), "B"], max_cycles=1)
    cycle = cycles[0]
    assert cycle["score"]["A"] == {
        "n1": {"raw": 10, "normalized": 25, "weighted": 50},
        "n2": {"raw": 20, "normalized": 50, "weighted": 100},
        "n3": {"raw": 40, "normalized": 100, "weighted": 200},
    }
    assert cycle["score"]["B"]["n1"] == {"raw": 30, "normalized": 30, "weighted": 30}
    assert cycle["totalScore"] == {"n1": 80, "n2": 130, "n3": 230}
    assert sched.bindings["default/p"] == "n3"


@pytest.mark.parametrize("kwargs,score", [
    pytest.param({"score": (101, None)}, 101, id="score above MaxNodeScore"),
    pytest.param({"score": (-1, None)}, -1, id="score below MinNodeScore"),
    pytest.param({"score": (50, None), "normalize": lambda st, p, scores: set_scores(scores, 101)},
                 101, id="normalized score above MaxNodeScore"),
])
def test_a_score_out_of_range_is_an_error(kwargs, score):
    _, cycles = run([fake("A", **kwargs)], NODES, [POD], max_cycles=1)
    assert cycles[0]["outcome"] == "Error"
    assert cycles[0]["message"] == (
        f'applying score defaultWeights on Score plugins: plugin "A" returns an invalid score '
        f"{score}, it should in the range of [0, 100] after normalizing")


def test_score_and_normalize_errors_name_the_plugin():
    _, cycles = run([fake("A", score=(0, Status.as_error("boom")))], NODES, [POD], max_cycles=1)
    assert cycles[0]["message"] == 'running Score plugins: plugin "A" failed with: boom'
    norm = fake("A", score=(1, None), normalize=Status.as_error("bad"))
    _, cycles = run([norm], NODES, [POD], max_cycles=1)
    assert cycles[0]["message"] == (
        'running Normalize on Score plugins: plugin "A" failed with: bad')


def test_equal_scores_are_broken_by_the_seed_reproducibly():
    # A Score plugin: without one, kube-scheduler binds the first feasible node it finds.
    def equal():
        return [fake("Equal", score=(1, None))]
    picks = {seed: run(equal(), NODES, [POD], seed=seed)[0].bindings["default/p"]
             for seed in range(12)}
    again = {seed: run(equal(), NODES, [POD], seed=seed)[0].bindings["default/p"]
             for seed in range(12)}
    assert picks == again
    assert len(set(picks.values())) > 1


# --- Reserve -----------------------------------------------------------------------------------
def test_reserve_failure_unreserves_every_reserve_plugin_in_reverse_order():
    log = []
    r1 = fake("R1", log, reserve=None)
    r2 = fake("R2", log, reserve=Status.unschedulable("r2 is full"))
    r3 = fake("R3", log, reserve=None)
    sched, cycles = run([r1, r2, r3], [make_node("n1")], [POD], max_cycles=1)
    assert log == [("R1", "reserve", "n1"), ("R2", "reserve", "n1"),
                   ("R3", "unreserve", "n1"), ("R2", "unreserve", "n1"),
                   ("R1", "unreserve", "n1")]
    cycle = cycles[0]
    assert [e["plugin"] for e in cycle["unreserve"]] == ["R3", "R2", "R1"]
    assert (cycle["outcome"], cycle["node"], cycle["message"]) == (
        "Rejected", "n1", "0/1 nodes are available: 1 r2 is full.")
    assert sched.bindings["default/p"] is None
    assert sched.cache.node_infos["n1"].pods == []
    assert sched.queue.unschedulable["default/p"].unschedulable_plugins == {"R2"}


def test_reserve_error_is_an_error():
    r = fake("R", reserve=Status.as_error("boom"))
    _, cycles = run([r], NODES, [POD], max_cycles=1)
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (
        "Error", 'running Reserve plugin "R": boom')


# --- Permit ------------------------------------------------------------------------------------
WAIT = Status(Code.WAIT)


def test_permit_success_binds():
    _, cycles = run([fake("G", permit=(None, 0))], NODES, [POD], max_cycles=1)
    assert cycles[0]["permit"][0]["code"] == "Success"
    assert cycles[0]["outcome"] == "Bound"


def test_permit_rejection_unreserves_and_rejects():
    log = []
    r = fake("R", log, reserve=None)
    g = fake("G", log, permit=(Status.unschedulable("gang incomplete"), 0))
    sched, cycles = run([r, g], [make_node("n1")], [POD], max_cycles=1)
    assert log == [("R", "reserve", "n1"), ("G", "permit", "n1"), ("R", "unreserve", "n1")]
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (
        "Rejected", "0/1 nodes are available: 1 gang incomplete.")


def gang(action):
    """Permit: pod "a" waits 10s; pod "b" then acts on a's waiting pod through the handle."""
    plugin = None

    def permit(state, pod, node_name):
        if pod.name == "a":
            return WAIT, 10
        action(plugin.handle.get_waiting_pod("default/a"))
        return None, 0

    plugin = fake("Gang", permit=permit)
    return plugin


def test_a_waiting_pod_allowed_through_the_handle_is_bound():
    g = gang(lambda wp: wp.allow("Gang"))
    sched, cycles = run([g], NODES, [make_pod("a"), make_pod("b")])
    assert cycles[0]["permit"] == [
        entry("Gang", "Wait", node=cycles[0]["node"], timeout=10.0)]
    assert [(c["pod"], c["outcome"]) for c in cycles] == [
        ("default/a", "Bound"), ("default/b", "Bound")]
    assert all(c["time"] == 0.0 for c in cycles)
    assert sched.waiting == {}


def test_a_waiting_pod_rejected_through_the_handle_is_rejected():
    g = gang(lambda wp: wp.reject("Gang", "gang member b gave up"))
    sched, cycles = run([g], NODES, [make_pod("a"), make_pod("b")])
    first = cycles[0]
    assert (first["outcome"], first["message"]) == (
        "Rejected", "0/1 nodes are available: 1 gang member b gave up.")
    assert sched.bindings == {"default/a": None, "default/b": sched.bindings["default/b"]}


@pytest.mark.parametrize("asked,waited,text", [
    pytest.param(10, 10.0, "10s", id="timeout as asked"),
    pytest.param(3600, 900.0, "15m0s", id="a longer wait is capped at 15 minutes"),
])
def test_a_waiting_pod_is_rejected_when_its_timeout_passes(asked, waited, text):
    log = []
    r = fake("R", log, reserve=None)
    g = fake("Gang", log, permit=(WAIT, asked))
    sched, cycles = run([r, g], [make_node("n1")], [POD])
    first = cycles[0]
    assert first["permit"][0]["timeout"] == waited
    assert (first["outcome"], first["message"]) == (
        "Rejected",
        f"0/1 nodes are available: 1 rejected due to timeout after waiting {text} at plugin Gang.")
    assert ("R", "unreserve", "n1") in log
    assert sched.bindings["default/p"] is None
    assert sched.clock >= waited
    # Nothing else changed in the cluster: the pod waits in the unschedulable pool.
    assert len(cycles) == 1
    assert sched.queue.unschedulable["default/p"].unschedulable_plugins == {"Gang"}


# --- PreBind, Bind, PostBind -------------------------------------------------------------------
@pytest.mark.parametrize("status,outcome,message", [
    pytest.param(Status.as_error("volume not ready"), "Error",
                 'running PreBind plugin "PB": volume not ready', id="error"),
    # Only Reserve/Permit rejections become a FitError; a PreBind one keeps its own message.
    pytest.param(Status.unschedulable("volume gone"), "Rejected", "volume gone", id="rejection"),
])
def test_prebind_failure_unreserves_and_fails_the_binding_cycle(status, outcome, message):
    log = []
    r = fake("R", log, reserve=None)
    pb = fake("PB", log, pre_bind=status)
    b = fake("B", log, bind=None)
    sched, cycles = run([r, pb, b], [make_node("n1")], [POD], max_cycles=1)
    assert log == [("R", "reserve", "n1"), ("PB", "pre_bind", "n1"), ("R", "unreserve", "n1")]
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (outcome, message)
    assert sched.cache.node_infos["n1"].pods == []


def test_a_bind_plugin_that_skips_hands_over_to_the_next():
    log = []
    b = fake("B", log, bind=Status.skip())
    pb = fake("Post", log, post_bind=None)
    sched, cycles = run([b, pb], [make_node("n1")], [POD], max_cycles=1)
    assert cycles[0]["bind"] == [entry("B", "Skip", node="n1"),
                                 entry("DefaultBinder", node="n1")]
    assert cycles[0]["postBind"] == [entry("Post", node="n1")]
    assert log == [("B", "bind", "n1"), ("Post", "post_bind", "n1")]
    assert sched.bindings["default/p"] == "n1"
    assert sched.cache.node_infos["n1"].pods[0].key == "default/p"


def test_a_bind_error_stops_the_bind_point():
    b = fake("B", bind=Status.as_error("api down"))
    sched, cycles = run([b], [make_node("n1")], [POD], max_cycles=1)
    assert [e["plugin"] for e in cycles[0]["bind"]] == ["B"]
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (
        "Error", 'running Bind plugin "B": api down')
    assert cycles[0]["postBind"] == []
    assert sched.bindings["default/p"] is None
