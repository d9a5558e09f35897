"""plugin_test.go Test_isSchedulableAfterPodChange / Test_isSchedulableAfterNodeChange."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_node, make_pod, pod_info

from .queueing_hints import is_schedulable_after_node_change, is_schedulable_after_pod_change


def term(key="service", value="securityscan", topology="region"):
    return {"labelSelector": {"matchLabels": {key: value}}, "topologyKey": topology}


def target(affinity=None, anti=None):
    spec = {}
    if affinity:
        spec.setdefault("affinity", {})["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": affinity}
    if anti:
        spec.setdefault("affinity", {})["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": anti}
    return pod_info(make_pod("p", **spec))


def other(labels=None, node="n1"):
    return pod_info(make_pod("other", node_name=node, labels=labels))


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(target([term()]), None, other({"service": "securityscan"}), QUEUE,
                 id="add a pod which matches the pod affinity"),
    pytest.param(target([term()]), None, other({"aaa": "a"}), QUEUE_SKIP,
                 id="add a pod which doesn't match the pod affinity"),
    pytest.param(target([term()]), None, other({"service": "securityscan"}, node=None),
                 QUEUE_SKIP, id="add an un-scheduled pod"),
    pytest.param(target([term()]), other({"aaa": "a"}), other({"service": "securityscan"}),
                 QUEUE, id="update a pod from non-match to match pod affinity"),
    pytest.param(target([term()]), other({"service": "securityscan"}),
                 other({"service": "securityscan", "x": "y"}), QUEUE_SKIP,
                 id="update a pod from match to match pod affinity"),
    pytest.param(target(anti=[term()]), other({"service": "securityscan"}), other({"aaa": "a"}),
                 QUEUE, id="update a pod from match to non-match the pod anti-affinity"),
    pytest.param(target(anti=[term()]), other({"service": "securityscan"}), None, QUEUE,
                 id="delete a pod which matches the pod anti-affinity"),
    pytest.param(target(anti=[term()]), other({"aaa": "a"}), None, QUEUE_SKIP,
                 id="delete a pod which doesn't match the pod anti-affinity"),
    pytest.param(target([term()]), other({"service": "securityscan"}), None, QUEUE_SKIP,
                 id="delete a pod which matches the pod affinity: no anti-affinity to lift"),
])
def test_is_schedulable_after_pod_change(pod, old, new, want):
    assert is_schedulable_after_pod_change(None, pod, old, new) == want


@pytest.mark.parametrize("pod, labels, want", [
    pytest.param(target([term()]), {"region": "r1"}, QUEUE,
                 id="add a new node with matched pod affinity topologyKey"),
    pytest.param(target(anti=[term()]), {"region": "r1"}, QUEUE,
                 id="add a new node with matched pod anti-affinity topologyKey"),
    pytest.param(target([term()]), {"zone": "z1"}, QUEUE_SKIP,
                 id="add a new node without matched topologyKey"),
])
def test_is_schedulable_after_node_change(pod, labels, want):
    assert is_schedulable_after_node_change(pod, None, make_node("n", labels=labels)) == want
