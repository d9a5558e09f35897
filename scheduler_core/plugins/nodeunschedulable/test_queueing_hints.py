"""node_unschedulable_test.go TestIsSchedulableAfterNodeChange / PodTolerationChange."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_node, make_pod, pod_info

from . import tolerates_unschedulable
from .queueing_hints import (
    is_schedulable_after_node_change,
    is_schedulable_after_pod_toleration_change,
)

TOLERATION = {"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
              "effect": "NoSchedule"}


def pod(name="p", tolerations=None):
    return pod_info(make_pod(name, tolerations=tolerations or []))


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, make_node("n"), QUEUE, id="node was added"),
    pytest.param(None, make_node("n", unschedulable=True), QUEUE_SKIP,
                 id="an unschedulable node was added"),
    pytest.param(make_node("n", unschedulable=True), make_node("n"), QUEUE,
                 id="the node became schedulable"),
    pytest.param(make_node("n"), make_node("n", unschedulable=True), QUEUE_SKIP,
                 id="the node became unschedulable"),
    pytest.param(make_node("n"), make_node("n", labels={"a": "b"}), QUEUE_SKIP,
                 id="the node stayed schedulable"),
])
def test_is_schedulable_after_node_change(old, new, want):
    assert is_schedulable_after_node_change(pod(), old, new) == want


@pytest.mark.parametrize("old, new, want", [
    pytest.param(pod(), pod(tolerations=[TOLERATION]), QUEUE,
                 id="the pod got the unschedulable toleration"),
    pytest.param(pod(tolerations=[TOLERATION]), pod(tolerations=[TOLERATION]), QUEUE_SKIP,
                 id="the pod already tolerated it"),
    pytest.param(pod("other"), pod("other", [TOLERATION]), QUEUE_SKIP,
                 id="another pod got the toleration"),
])
def test_is_schedulable_after_pod_toleration_change(old, new, want):
    assert is_schedulable_after_pod_toleration_change(tolerates_unschedulable, pod(), old,
                                                      new) == want
