"""node_ports_test.go Test_isSchedulableAfterPodDeleted."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_pod, pod_info

from . import fits_ports, new
from .queueing_hints import is_schedulable_after_pod_deleted


def pod(name, node=None, ports=(), host_ip=None):
    container = {"name": "c", "image": "pause",
                 "ports": [{"containerPort": p, "hostPort": p, "protocol": "TCP",
                            **({"hostIP": host_ip} if host_ip else {})} for p in ports]}
    return pod_info(make_pod(name, node_name=node, containers=[container]))


@pytest.mark.parametrize("target, deleted, want", [
    pytest.param(pod("p", ports=[80]), pod("d", node="n", ports=[80]), QUEUE,
                 id="backoff-wrong-old-object is Queue: a pod holding the wanted port"),
    pytest.param(pod("p", ports=[80]), pod("d", ports=[80]), QUEUE_SKIP,
                 id="skip-queue-on-unscheduled: the deleted pod was never on a node"),
    pytest.param(pod("p", ports=[80]), pod("d", node="n", ports=[8080]), QUEUE_SKIP,
                 id="skip-queue-on-non-existent-port: a pod holding another port"),
    pytest.param(pod("p", ports=[80]), pod("d", node="n"), QUEUE_SKIP,
                 id="skip-queue-on-no-ports: the deleted pod used no host port"),
    pytest.param(pod("p", ports=[80], host_ip="10.0.0.1"),
                 pod("d", node="n", ports=[80], host_ip="10.0.0.2"), QUEUE_SKIP,
                 id="skip-queue: the same port on another host IP"),
])
def test_is_schedulable_after_pod_deleted(target, deleted, want):
    assert is_schedulable_after_pod_deleted(fits_ports, target, deleted, None) == want


def test_a_new_node_always_queues():
    hints = new({}, None).queueing_hints()
    assert set(hints) == {"AssignedPodDelete", "NodeAdd"} and hints["NodeAdd"] is None
