"""The contract's queueSort and preEnqueue per cycle: the QueueSort plugin with the pods the
cycle's pod was popped ahead of (at most 10, in queue order), and the PreEnqueue calls it
passed on its way into activeQ (scheduling_queue.go's pop; PrioritySort's Less)."""
import random

import pytest

from scheduler_core.build import build_scheduler
from scheduler_core.loader import Cluster
from scheduler_core.observe import TraceObserver
from scheduler_core.queue import SchedulingQueue
from scheduler_core.testing import make_node, make_pod, pod_info


def traced(nodes, pods):
    trace = TraceObserver()
    build_scheduler(Cluster(nodes=nodes, pods=pods), observer=trace).run()
    return trace.to_list()


def test_the_first_pod_was_popped_ahead_of_the_rest_in_priority_order():
    pods = [make_pod("low", priority=1), make_pod("high", priority=100),
            make_pod("mid", priority=50)]
    cycles = traced([make_node("n1")], pods)
    assert [c["pod"] for c in cycles] == ["default/high", "default/mid", "default/low"]
    assert [c["queueSort"] for c in cycles] == [
        {"plugin": "PrioritySort", "before": ["default/mid", "default/low"]},
        {"plugin": "PrioritySort", "before": ["default/low"]},
        {"plugin": "PrioritySort", "before": []}]


def test_before_lists_at_most_ten_pods():
    cycles = traced([make_node("n1", pods="20")], [make_pod(f"p{i:02}") for i in range(12)])
    assert cycles[0]["queueSort"]["before"] == [f"default/p{i:02}" for i in range(1, 11)]


def test_pre_enqueue_lists_the_calls_the_pod_passed():
    cycles = traced([make_node("n1")], [make_pod("p")])
    assert cycles[0]["preEnqueue"] == [
        {"plugin": "SchedulingGates", "code": "Success", "reasons": []},
        {"plugin": "DynamicResources", "code": "Success", "reasons": []}]


@pytest.mark.parametrize("size", [0, 1, 5, 40])
def test_active_head_is_the_sorted_queue_cut_at_the_count(size):
    rng = random.Random(size)
    # A total order, as PrioritySort's (priority, then arrival) is.
    queue = SchedulingQueue(lambda a, b: (-a.pod.priority, a.seq) < (-b.pod.priority, b.seq),
                            lambda pod: None, lambda: 0.0)
    for i in range(size):
        queue.add(pod_info(make_pod(f"p{i}", priority=rng.randrange(5))))
    assert queue.active_head(10) == sorted(queue.active)[:10]
