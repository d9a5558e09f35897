"""The FailedScheduling message (FitError.Error in framework/types.go), from types_test.go's
TestFitError_Error table and from whole scheduling cycles with in-tree plugins."""
import pytest

from scheduler_core.framework.diagnosis import Diagnosis, FitError
from scheduler_core.framework.status import Status
from scheduler_core.testing import make_node, make_pod
from scheduler_core.testing.fakes import fake, run

PREFILTER_MSG = "Node(s) failed PreFilter plugin FalsePreFilter"
POSTFILTER_MSG = "Error running PostFilter plugin FailedPostFilter"


def diagnosis(statuses, pre_filter_msg="", post_filter_msg=""):
    d = Diagnosis()
    for node, reason in statuses.items():
        d.node_to_status.set(node, Status.unschedulable(reason))
    d.pre_filter_msg, d.post_filter_msg = pre_filter_msg, post_filter_msg
    return d


FILTER_1 = "Node(s) failed Filter plugin FalseFilter-1"
FILTER_2 = "Node(s) failed Filter plugin FalseFilter-2"
ALL_PREFILTER = dict.fromkeys(("node1", "node2", "node3"), PREFILTER_MSG)
ALL_FILTER_1 = dict.fromkeys(("node1", "node2", "node3"), FILTER_1)
TWO_FILTERS = {"node1": FILTER_1, "node2": FILTER_1, "node3": FILTER_2}


@pytest.mark.parametrize("num_all,diag,want", [
    pytest.param(3, diagnosis(ALL_PREFILTER, PREFILTER_MSG),
                 f"0/3 nodes are available: {PREFILTER_MSG}.",
                 id="nodes failed Prefilter plugin"),
    pytest.param(3, diagnosis(ALL_PREFILTER, PREFILTER_MSG, POSTFILTER_MSG),
                 f"0/3 nodes are available: {PREFILTER_MSG}. {POSTFILTER_MSG}",
                 id="nodes failed Prefilter plugin and the preemption also failed"),
    pytest.param(3, diagnosis(ALL_FILTER_1), f"0/3 nodes are available: 3 {FILTER_1}.",
                 id="nodes failed one Filter plugin with an empty PostFilterMsg"),
    pytest.param(3, diagnosis(ALL_FILTER_1, post_filter_msg=POSTFILTER_MSG),
                 f"0/3 nodes are available: 3 {FILTER_1}. {POSTFILTER_MSG}",
                 id="nodes failed one Filter plugin with a non-empty PostFilterMsg"),
    pytest.param(3, diagnosis(TWO_FILTERS),
                 f"0/3 nodes are available: 1 {FILTER_2}, 2 {FILTER_1}.",
                 id="nodes failed two Filter plugins with an empty PostFilterMsg"),
    pytest.param(3, diagnosis(TWO_FILTERS, post_filter_msg=POSTFILTER_MSG),
                 f"0/3 nodes are available: 1 {FILTER_2}, 2 {FILTER_1}. {POSTFILTER_MSG}",
                 id="nodes failed two Filter plugins with a non-empty PostFilterMsg"),
    pytest.param(1, diagnosis({"node1": "Node failed Permit plugin Permit-1"}),
                 "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
                 id="failed to Permit on node"),
    pytest.param(1, diagnosis({"node1": "Node failed Reserve plugin Reserve-1"}),
                 "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
                 id="failed to Reserve on node"),
])
def test_fit_error_message(num_all, diag, want):
    assert str(FitError(None, num_all, diag)) == want


def test_histogram_is_sorted_as_go_sorts_strings_not_by_count():
    statuses = {f"n{i}": "Insufficient memory" for i in range(10)}
    statuses |= {"n10": "Insufficient cpu", "n11": "Insufficient cpu"}
    # "10 ..." sorts before "2 ..." byte by byte, as sort.Strings puts them.
    assert str(FitError(None, 12, diagnosis(statuses))) == (
        "0/12 nodes are available: 10 Insufficient memory, 2 Insufficient cpu.")


def test_a_status_with_several_reasons_counts_each():
    d = Diagnosis()
    d.node_to_status.set("n1", Status.unschedulable("Insufficient cpu", "Insufficient memory"))
    d.node_to_status.set("n2", Status.unschedulable("Insufficient cpu"))
    assert str(FitError(None, 2, d)) == (
        "0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.")


def test_absent_nodes_take_the_absent_status_reasons():
    d = diagnosis({"n1": "f says no"})
    d.node_to_status.absent = Status.unresolvable("node(s) didn't satisfy plugin(s) [A]")
    assert str(FitError(None, 4, d)) == (
        "0/4 nodes are available: 1 f says no, 3 node(s) didn't satisfy plugin(s) [A].")


def test_no_reason_at_all_leaves_the_bare_count():
    assert str(FitError(None, 2, Diagnosis())) == "0/2 nodes are available:"


# --- from whole cycles -------------------------------------------------------------------------
def test_message_of_in_tree_filters():
    nodes = [make_node("n1", unschedulable=True), make_node("n2", cpu="1"),
             make_node("n3", unschedulable=True)]
    _, cycles = run([], nodes, [make_pod("p", cpu="2")],
                    enabled=["NodeUnschedulable", "NodeResourcesFit"], max_cycles=1)
    assert cycles[0]["outcome"] == "Unschedulable"
    assert cycles[0]["message"] == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were unschedulable.")
    assert cycles[0]["filter"]["n1"] == [{
        "plugin": "NodeUnschedulable", "code": "UnschedulableAndUnresolvable",
        "reasons": ["node(s) were unschedulable"]}]


def test_message_when_a_prefilter_rejects():
    pf = fake("PF", pre_filter=(None, Status.unschedulable("pod has unbound immediate claims")))
    _, cycles = run([pf], [make_node("n1"), make_node("n2")], [make_pod("p")], max_cycles=1)
    assert cycles[0]["message"] == (
        "0/2 nodes are available: pod has unbound immediate claims.")


def test_message_with_the_postfilter_part():
    f = fake("F", filter=Status.unschedulable("Insufficient cpu"))
    post = fake("Preempt", post_filter=(
        None, Status.unschedulable("preemption: 0/2 nodes are available: "
                                   "2 No preemption victims found for incoming pod.")))
    _, cycles = run([f, post], [make_node("n1"), make_node("n2")], [make_pod("p")],
                    max_cycles=1)
    assert cycles[0]["message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
        "2 No preemption victims found for incoming pod.")


def test_no_nodes_at_all():
    sched, cycles = run([], [], [make_pod("p")], max_cycles=1)
    assert (cycles[0]["outcome"], cycles[0]["message"]) == (
        "Unschedulable", "no nodes available to schedule pods")
    # No plugin rejected the pod: it backs off rather than waiting for a cluster event.
    assert "default/p" in sched.queue.backoff
