"""node_name_test.go TestIsSchedulableAfterNodeAdd."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_node, make_pod, pod_info

from .queueing_hints import is_schedulable_after_node_add


@pytest.mark.parametrize("spec, node, want", [
    pytest.param({"nodeName": "foo"}, "foo", QUEUE, id="the node the pod names was added"),
    pytest.param({"nodeName": "foo"}, "bar", QUEUE_SKIP, id="another node was added"),
    pytest.param({}, "bar", QUEUE, id="a pod that names no node fits any"),
])
def test_is_schedulable_after_node_add(spec, node, want):
    assert is_schedulable_after_node_add(pod_info(make_pod("p", **spec)), None,
                                         make_node(node)) == want
