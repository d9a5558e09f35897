"""fit_test.go Test_isSchedulableAfterPodEvent and Test_isSchedulableAfterNodeChange."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_node, make_pod, pod_info

from .fit import fits
from .queueing_hints import is_schedulable_after_node_change, is_schedulable_after_pod_event


def pod(name="pod1", node=None, nominated=None, **requests):
    manifest = make_pod(name, node_name=node, requests=requests or None)
    if nominated:
        manifest["status"] = {"nominatedNodeName": nominated}
    return pod_info(manifest)


@pytest.mark.parametrize("target, old, new, want", [
    pytest.param(pod(cpu="1"), pod("other", cpu="1"), None, QUEUE_SKIP,
                 id="backoff-wrong-old-object: an unscheduled pod was deleted"),
    pytest.param(pod(cpu="1"), pod("other", node="fake", cpu="1"), None, QUEUE,
                 id="queue-on-deleted: a scheduled pod was deleted"),
    pytest.param(pod(cpu="1"), pod("other", nominated="fake", cpu="1"), None, QUEUE,
                 id="queue-on-deleted: a nominated pod was deleted"),
    pytest.param(pod(cpu="1"), pod("other", node="fake", cpu="2"),
                 pod("other", node="fake", cpu="1"), QUEUE,
                 id="queue-on-scale-down: a scheduled pod's cpu request was reduced"),
    pytest.param(pod(cpu="1"), pod("other", node="fake", memory="2Gi"),
                 pod("other", node="fake", memory="1Gi"), QUEUE_SKIP,
                 id="skip-queue-on-other-resource-scale-down: memory the pod does not request"),
    pytest.param(pod(cpu="1"), pod("other", cpu="2"), pod("other", cpu="1"), QUEUE_SKIP,
                 id="skip-queue-on-unscheduled-pod-scale-down"),
    pytest.param(pod(cpu="2"), pod(cpu="2"), pod(cpu="1"), QUEUE,
                 id="queue-on-target-pod-scale-down: the pod itself asks for less"),
])
def test_is_schedulable_after_pod_event(target, old, new, want):
    assert is_schedulable_after_pod_event(target, old, new) == want


def node(cpu="4", memory="32Gi", pods="110", **scalars):
    return make_node("fake", cpu=cpu, memory=memory, pods=pods, allocatable=scalars)


@pytest.mark.parametrize("target, old, new, want", [
    pytest.param(pod(cpu="1"), None, node(cpu="4"), QUEUE,
                 id="queue-on-node-add: the pod fits the new node"),
    pytest.param(pod(cpu="8"), None, node(cpu="4"), QUEUE_SKIP,
                 id="skip-queue-on-node-add: the new node is too small"),
    pytest.param(pod(cpu="4"), node(cpu="2"), node(cpu="4"), QUEUE,
                 id="queue-on-node-changes: the node gained the cpu the pod needs"),
    pytest.param(pod(cpu="8"), node(cpu="2"), node(cpu="4"), QUEUE_SKIP,
                 id="skip-queue-on-node-unrelated-changes: still too small"),
    pytest.param(pod(cpu="1"), node(cpu="4", memory="16Gi"), node(cpu="4", memory="32Gi"),
                 QUEUE_SKIP, id="skip-queue-on-node-changes-from-suitable-to-suitable: memory "
                                "the pod does not request grew"),
    pytest.param(pod(cpu="1"), node(pods="1"), node(pods="2"), QUEUE,
                 id="queue-on-node-changes: more pods allowed"),
    pytest.param(pod(**{"example.com/gpu": "1"}), node(**{"example.com/gpu": "0"}),
                 node(**{"example.com/gpu": "1"}), QUEUE,
                 id="queue-on-node-changes: an extended resource the pod requests appeared"),
])
def test_is_schedulable_after_node_change(target, old, new, want):
    assert is_schedulable_after_node_change(fits, target, old, new) == want


def test_the_plugin_registers_its_hints():
    from .fit import new
    hints = new({"scoringStrategy": {"type": "LeastAllocated", "resources": []}},
                None).queueing_hints()
    assert set(hints) == {"AssignedPodDelete", "AssignedPodUpdate", "NodeAdd", "NodeUpdate"}
