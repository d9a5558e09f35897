"""schedule_one.go details: how many feasible nodes to look for, and fair node evaluation."""
import pytest

from scheduler_core.config import parse_configuration
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Status
from scheduler_core.loader import Cluster
from scheduler_core.scheduler import Scheduler, go_duration
from scheduler_core.testing import make_node, make_pod, pod_info
from scheduler_core.testing.fakes import configuration, fake, profile, registry


@pytest.mark.parametrize("global_pct,profile_pct,num_all,want", [
    pytest.param(0, None, 10, 10,
                 id="not set percentageOfNodesToScore and nodes number not more than 50"),
    pytest.param(0, 40, 10, 10,
                 id="set profile percentageOfNodesToScore and nodes number not more than 50"),
    pytest.param(0, None, 1000, 420,
                 id="not set percentageOfNodesToScore and nodes number more than 50"),
    pytest.param(0, 40, 1000, 400,
                 id="set profile percentageOfNodesToScore and nodes number more than 50"),
    pytest.param(100, 40, 1000, 400,
                 id="set global and profile percentageOfNodesToScore and nodes number more "
                 "than 50"),
    pytest.param(40, None, 1000, 400,
                 id="set global percentageOfNodesToScore and nodes number more than 50"),
    pytest.param(0, None, 6000, 300,
                 id="not set profile percentageOfNodesToScore and nodes number more than 50*125"),
    pytest.param(0, 40, 6000, 2400,
                 id="set profile percentageOfNodesToScore and nodes number more than 50*125"),
])
def test_num_feasible_nodes_to_find(global_pct, profile_pct, num_all, want):
    sched = Scheduler(Cluster(), parse_configuration(None, registry()), registry=registry())
    sched.config.percentage_of_nodes_to_score = global_pct
    assert sched.num_feasible_nodes_to_find(profile_pct, num_all) == want


def test_fair_evaluation_for_nodes():
    """TestFairEvaluationForNodes: each cycle starts where the last one stopped."""
    num_all = 500
    nodes = [make_node(str(i)) for i in range(num_all)]
    true_filter = fake("TrueFilter", filter=None)
    # A Score plugin, as in Go: without one a cycle stops at the first feasible node.
    equal = fake("EqualPrioritizer", score=(1, None))
    config = configuration(profile("TrueFilter", "EqualPrioritizer"), percentageOfNodesToScore=30)
    reg = registry(true_filter, equal)
    sched = Scheduler(Cluster(nodes=nodes), parse_configuration(config, reg), registry=reg)
    fwk = sched.frameworks["default-scheduler"]
    to_find = sched.num_feasible_nodes_to_find(None, num_all)
    assert to_find == 150
    for i in range(2 * (num_all // to_find + 1)):
        feasible, _ = sched._find_nodes_that_fit(fwk, CycleState(), pod_info(make_pod("p")),
                                                  None)
        assert len(feasible) == to_find
        assert sched.next_start_node_index == (i + 1) * to_find % num_all


def test_rejected_nodes_count_as_processed_for_the_next_start():
    nodes = [make_node(f"n{i}") for i in range(4)]
    f = fake("F", filter=lambda s, p, ni: Status.unschedulable("no") if ni.name == "n0" else None)
    scorer = fake("S", score=(1, None))  # scoring makes the cycle look for every feasible node
    reg = registry(f, scorer)
    sched = Scheduler(Cluster(nodes=nodes),
                      parse_configuration(configuration(profile("F", "S")), reg), registry=reg)
    fwk = sched.frameworks["default-scheduler"]
    feasible, diagnosis = sched._find_nodes_that_fit(fwk, CycleState(),
                                                     pod_info(make_pod("p")), None)
    assert [ni.name for ni in feasible] == ["n1", "n2", "n3"]
    assert len(diagnosis.node_to_status) == 1
    assert sched.next_start_node_index == 0


@pytest.mark.parametrize("seconds,want", [
    (10, "10s"), (900, "15m0s"), (90, "1m30s"), (0.5, "500ms"), (3600, "1h0m0s"), (0, "0s"),
    (1.5, "1.5s"), (-60, "-1m0s"), (0.0015, "1.5ms"), (2.5e-6, "2.5\u00b5s"), (5e-9, "5ns"),
    (93784.5, "26h3m4.5s"),
])
def test_go_duration(seconds, want):
    assert go_duration(seconds) == want
