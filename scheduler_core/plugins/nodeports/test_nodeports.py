"""NodePorts, ported from node_ports_test.go."""
from __future__ import annotations

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeInfo, PodInfo
from scheduler_core.plugins.nodeports import ERR_REASON, fits, new


def port_pod(*host_port_infos: str, name: str = "p", sidecar: bool = False) -> PodInfo:
    """newPod: ports written "PROTOCOL/hostIP/hostPort", all in one container."""
    ports = []
    for info in host_port_infos:
        protocol, ip, port = info.split("/")
        ports.append({"containerPort": int(port), "hostPort": int(port), "hostIP": ip,
                      "protocol": protocol})
    container = {"name": "c", "ports": ports}
    spec = {"containers": [container]}
    if sidecar:
        spec = {"containers": [{"name": "main"}],
                "initContainers": [dict(container, restartPolicy="Always")]}
    return PodInfo({"metadata": {"name": name, "namespace": "default", "uid": name},
                    "spec": spec})


def node_with(*pods: PodInfo) -> NodeInfo:
    ni = NodeInfo({"metadata": {"name": "m1"}})
    for pod in pods:
        ni.add_pod(pod)
    return ni


def on_node(*host_port_infos: str) -> NodeInfo:
    """A node running one pod that holds the given host ports."""
    return node_with(port_pod(*host_port_infos, name="e"))


def run(pod: PodInfo, ni: NodeInfo):
    plugin = new({}, None)
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, [])
    if status is not None and status.is_skip():
        return "skip"
    assert status is None
    return plugin.filter(state, pod, ni)


CONFLICT = "conflict"
CASES = [
    pytest.param(PodInfo({"metadata": {"name": "p"}, "spec": {}}), node_with(), "skip",
                 id="skip filter"),
    pytest.param(port_pod("UDP/127.0.0.1/8080"), on_node("UDP/127.0.0.1/9090"),
                 None, id="other port"),
    pytest.param(port_pod("UDP/127.0.0.1/8080"), on_node("UDP/127.0.0.1/8080"),
                 CONFLICT, id="same udp port"),
    pytest.param(port_pod("TCP/127.0.0.1/8080"), on_node("TCP/127.0.0.1/8080"),
                 CONFLICT, id="same tcp port"),
    pytest.param(port_pod("TCP/127.0.0.1/8080"), on_node("TCP/127.0.0.2/8080"),
                 None, id="different host ip"),
    pytest.param(port_pod("UDP/127.0.0.1/8080"), on_node("TCP/127.0.0.1/8080"),
                 None, id="different protocol"),
    pytest.param(port_pod("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
                 on_node("UDP/127.0.0.1/8080"), CONFLICT,
                 id="second udp port conflict"),
    pytest.param(port_pod("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
                 node_with(port_pod("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081", name="e")),
                 CONFLICT, id="first tcp port conflict"),
    pytest.param(port_pod("TCP/0.0.0.0/8001"), on_node("TCP/127.0.0.1/8001"),
                 CONFLICT, id="first tcp port conflict due to 0.0.0.0 hostIP"),
    pytest.param(port_pod("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
                 on_node("TCP/127.0.0.1/8001"), CONFLICT,
                 id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
    pytest.param(port_pod("TCP/127.0.0.1/8001"), on_node("TCP/0.0.0.0/8001"),
                 CONFLICT, id="second tcp port conflict to 0.0.0.0 hostIP"),
    pytest.param(port_pod("UDP/127.0.0.1/8001"), on_node("TCP/0.0.0.0/8001"),
                 None, id="second different protocol"),
    pytest.param(port_pod("UDP/127.0.0.1/8001"),
                 node_with(port_pod("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001", name="e")), CONFLICT,
                 id="UDP hostPort conflict due to 0.0.0.0 hostIP"),
    pytest.param(port_pod("TCP//8001"), on_node("TCP/127.0.0.1/8001"),
                 CONFLICT, id="an empty hostIP means 0.0.0.0"),
    pytest.param(port_pod("/127.0.0.1/8001"), on_node("TCP/127.0.0.1/8001"),
                 CONFLICT, id="an empty protocol means TCP"),
    pytest.param(port_pod("TCP/127.0.0.1/8001", sidecar=True),
                 on_node("TCP/127.0.0.1/8001"), CONFLICT,
                 id="host ports of restartable init containers count"),
    pytest.param(port_pod("TCP/127.0.0.1/8001"),
                 node_with(port_pod("TCP/127.0.0.1/8001", name="e", sidecar=True)), CONFLICT,
                 id="host ports of a sidecar on the node are in use"),
]


@pytest.mark.parametrize("pod,ni,want", CASES)
def test_node_ports(pod, ni, want):
    status = run(pod, ni)
    if want == "skip":
        assert status == "skip"
    elif want is None:
        assert status is None
    else:
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE, [ERR_REASON])
    if want != "skip":
        assert fits(pod, ni) is (want is None)


def test_ports_freed_when_the_pod_leaves_the_node():
    existing = port_pod("TCP/127.0.0.1/8001", name="e")
    ni = node_with(existing)
    ni.remove_pod(existing)
    assert run(port_pod("TCP/127.0.0.1/8001"), ni) is None


def test_pre_filter_disabled():
    status = new({}, None).filter(CycleState(), port_pod("TCP/127.0.0.1/8001"), node_with())
    assert status.code == Code.ERROR


def test_events_to_register():
    assert new({}, None).events_to_register() == {"AssignedPodDelete", "NodeAdd"}
