"""node_affinity_test.go Test_isSchedulableAfterNodeChange."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_node, make_pod, pod_info

from . import node_affinity
from .queueing_hints import is_schedulable_after_node_change

SELECTOR_POD = pod_info(make_pod("p", nodeSelector={"foo": "bar"}))


def node(**labels):
    return make_node("n", labels=labels)


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, node(foo="bar"), QUEUE, id="node add and it matches the pod"),
    pytest.param(None, node(), QUEUE_SKIP, id="node add and it doesn't match the pod"),
    pytest.param(node(), node(foo="bar"), QUEUE, id="update: the node now matches"),
    pytest.param(node(foo="bar"), node(foo="bar", x="y"), QUEUE_SKIP,
                 id="update: the node matched before too"),
    pytest.param(node(foo="bar"), node(), QUEUE_SKIP, id="update: the node no longer matches"),
])
def test_is_schedulable_after_node_change(old, new, want):
    assert is_schedulable_after_node_change(None, SELECTOR_POD, old, new) == want


def test_a_node_outside_the_scheduler_enforced_affinity_is_skipped():
    plugin = node_affinity.new({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                {"nodeSelectorTerms": [{"matchExpressions": [
                                    {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
                               None)
    hint = plugin.queueing_hints()["NodeAdd"]
    assert hint(SELECTOR_POD, None, node(foo="bar")) == QUEUE_SKIP
    assert hint(SELECTOR_POD, None, node(foo="bar", zone="a")) == QUEUE
