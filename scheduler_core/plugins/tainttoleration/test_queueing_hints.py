"""taint_toleration_test.go Test_isSchedulableAfterNodeChange / PodTolerationChange."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_node, make_pod, pod_info

from .queueing_hints import (
    is_schedulable_after_node_change,
    is_schedulable_after_pod_toleration_change,
)

TAINT = {"key": "foo", "value": "bar", "effect": "NoSchedule"}
TOLERATION = {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}


def pod(name="p", tolerations=None):
    return pod_info(make_pod(name, tolerations=tolerations or []))


def node(*taints):
    return make_node("n", taints=list(taints))


@pytest.mark.parametrize("target, old, new, want", [
    pytest.param(pod(), None, node(TAINT), QUEUE_SKIP,
                 id="skip-queue-on-untoleratedtaint-node-added"),
    pytest.param(pod(tolerations=[TOLERATION]), None, node(TAINT), QUEUE,
                 id="queue-on-toleratedtaint-node-added"),
    pytest.param(pod(tolerations=[TOLERATION]), node(), node(TAINT), QUEUE_SKIP,
                 id="skip-unrelated-change: the node was already acceptable"),
    pytest.param(pod(), node(TAINT), node(), QUEUE,
                 id="queue-on-taint-removed"),
    pytest.param(pod(), node(TAINT), node(TAINT, {"key": "x", "effect": "PreferNoSchedule"}),
                 QUEUE_SKIP, id="skip-queue-on-still-untolerated"),
])
def test_is_schedulable_after_node_change(target, old, new, want):
    assert is_schedulable_after_node_change(target, old, new) == want


@pytest.mark.parametrize("target, old, new, want", [
    pytest.param(pod("p"), pod("p"), pod("p", [TOLERATION]), QUEUE,
                 id="queue-on-the-unschedulable-pod-getting-a-toleration"),
    pytest.param(pod("p"), pod("other"), pod("other", [TOLERATION]), QUEUE_SKIP,
                 id="skip-queue-on-another-pod's-toleration-change"),
])
def test_is_schedulable_after_pod_toleration_change(target, old, new, want):
    assert is_schedulable_after_pod_toleration_change(target, old, new) == want
