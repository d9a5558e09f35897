"""scheduling_gates_test.go Test_isSchedulableAfterUpdatePodSchedulingGatesEliminated."""
from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_pod, pod_info

from .queueing_hints import is_schedulable_after_gates_eliminated


def test_the_pods_own_update_queues_it():
    target = pod_info(make_pod("p"))
    assert is_schedulable_after_gates_eliminated(target, target, pod_info(make_pod("p"))) == QUEUE


def test_another_pods_update_is_skipped():
    target = pod_info(make_pod("p"))
    other = pod_info(make_pod("other"))
    assert is_schedulable_after_gates_eliminated(target, other, other) == QUEUE_SKIP
