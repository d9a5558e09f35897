"""Builders mirroring kube-scheduler's noderesources test helpers (newResourcePod & co)."""
from __future__ import annotations

import pytest

from .. import testing
from ..errors import ConfigError
from ..framework.cycle_state import CycleState
from ..framework.snapshot import Snapshot
from ..framework.status import Status
from ..framework.types import NodeInfo, PodInfo
from ..plugins.noderesources import fit

EXTENDED_A = "example.com/aaa"
EXTENDED_B = "example.com/bbb"
KUBERNETES_IO_A = "kubernetes.io/something"
KUBERNETES_IO_B = "subdomain.kubernetes.io/something"
HUGE_PAGE_A = "hugepages-2Mi"


def usage(cpu: int = 0, memory: int = 0, ephemeral: int = 0, scalars: dict | None = None) -> dict:
    """A framework.Resource as a container's requests: cpu in millicores, the rest in units.

    Like newResourcePod, cpu and memory are always present, so zero means an explicit 0.
    """
    reqs = {"cpu": f"{cpu}m", "memory": str(memory)}
    if ephemeral:
        reqs["ephemeral-storage"] = str(ephemeral)
    reqs.update({k: str(v) for k, v in (scalars or {}).items()})
    return reqs


def _containers(prefix: str, usages) -> list[dict]:
    return [{"name": f"{prefix}{i}", "resources": {"requests": u}} for i, u in enumerate(usages)]


def resource_pod(*usages: dict, init=(), overhead: dict | None = None, name: str = "p",
                 node_name: str = "", sidecars=()) -> PodInfo:
    """newResourcePod / newResourceInitPod / newResourceOverheadPod in one."""
    spec: dict = {"containers": _containers("c", usages)}
    init_containers = _containers("i", init)
    for i, u in enumerate(sidecars):
        init_containers.append({"name": f"s{i}", "restartPolicy": "Always",
                                "resources": {"requests": u}})
    if init_containers:
        spec["initContainers"] = init_containers
    if overhead:
        spec["overhead"] = overhead
    if node_name:
        spec["nodeName"] = node_name
    return PodInfo({"metadata": {"name": name, "namespace": "default", "uid": name},
                    "spec": spec})


def st_pod(*requests: dict, name: str = "p", node_name: str = "", sidecar: dict | None = None,
           containers: int | None = None) -> PodInfo:
    """st.MakePod().Req(...)...: one container per Req, optional SidecarReq.

    containers=n adds n containers without requests (st.MakePod().Container(...)).
    """
    spec: dict = {"containers": [{"name": f"c{i}", "resources": {"requests": dict(r)}}
                                 for i, r in enumerate(requests)]}
    spec["containers"] += [{"name": f"e{i}"} for i in range(containers or 0)]
    if sidecar:
        spec["initContainers"] = [{"name": "sidecar", "restartPolicy": "Always",
                                   "resources": {"requests": dict(sidecar)}}]
    if node_name:
        spec["nodeName"] = node_name
    return PodInfo({"metadata": {"name": name, "namespace": "default", "uid": name},
                    "spec": spec})


def st_node(name: str, capacity: dict | None = None) -> dict:
    """st.MakeNode().Name(name).Capacity(capacity): allocatable equals capacity, no pods cap."""
    return testing.make_node(name, cpu=None, memory=None, pods=None,
                             allocatable={k: str(v) for k, v in (capacity or {}).items()})


def make_node(name: str, milli_cpu: int, memory: int, extended: dict | None = None) -> dict:
    """makeNode / makeNodeWithExtendedResource of the Go tests."""
    return testing.make_node(name, cpu=f"{milli_cpu}m", memory=str(memory), pods=None,
                             allocatable={k: str(v) for k, v in (extended or {}).items()})


def node_info(allocatable: dict, *pods: PodInfo) -> NodeInfo:
    ni = NodeInfo({"metadata": {"name": "node"}, "status": {"allocatable": allocatable}})
    for pod in pods:
        ni.add_pod(pod)
    return ni


def assert_status(got: Status | None, want: Status | None) -> None:
    if want is None:
        assert got is None or got.is_success(), got
        return
    assert got is not None, f"want {want!r}, got success"
    assert (got.code, got.reasons) == (want.code, want.reasons), got


def scores(plugin, pod: PodInfo, nodes: list[dict], existing=(), run_pre_score: bool = True):
    """[(node, score)] from PreScore + Score over a snapshot of nodes and existing pods."""
    snapshot = Snapshot.from_objects(nodes, list(existing))
    state = CycleState()
    if run_pre_score:
        status = plugin.pre_score(state, pod, snapshot.list())
        assert status is None or status.is_success(), status
    out = []
    for node in nodes:
        score, status = plugin.score(state, pod, snapshot.get(node["metadata"]["name"]))
        assert status is None or status.is_success(), status
        out.append((node["metadata"]["name"], score))
    return out


# The scoring strategies' tables (least_allocated_test.go, most_allocated_test.go).
DEFAULT_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXTENDED_RES = "abc.com/xyz"
EXTENDED_RESOURCE_SET = DEFAULT_RESOURCES + [{"name": EXTENDED_RES, "weight": 1}]
TWO_REQS = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})


def strategy_plugin(kind: str, resources: list[dict]):
    """NodeResourcesFit scoring with the strategy kind over resources."""
    return fit.new({"scoringStrategy": {"type": kind, "resources": resources}}, None)


def cap(cpu: int, memory: int, extended: int | None = None) -> dict:
    """A node capacity of cpu millicores and memory bytes, and EXTENDED_RES when given."""
    out = {"cpu": str(cpu), "memory": str(memory)}
    if extended is not None:
        out[EXTENDED_RES] = str(extended)
    return out


def cap_nodes(*caps: dict | None) -> list[dict]:
    """node1, node2, ... with the given capacities (None: no capacity at all)."""
    return [st_node(f"node{i + 1}", c) for i, c in enumerate(caps)]


def on(node: str, cpu: int, memory: int, name: str) -> PodInfo:
    """An existing pod on node requesting cpu millicores and memory bytes."""
    return st_pod({"cpu": str(cpu), "memory": str(memory)}, name=name, node_name=node)


def unconfigured_scores(kind: str) -> list[tuple[int, Status | None]]:
    """(score, status) on two nodes, PreScore first, of a strategy with no resources set."""
    plugin = strategy_plugin(kind, [])
    snapshot = Snapshot.from_objects(cap_nodes(cap(4000, 10000), cap(6000, 10000)))
    state = CycleState()
    pod = st_pod(*TWO_REQS)
    plugin.pre_score(state, pod, snapshot.list())
    return [plugin.score(state, pod, ni) for ni in snapshot.list()]


def rejected_fields(kind: str, resources: list[dict]) -> list[str]:
    """The field paths of the errors that building the strategy over resources raises."""
    with pytest.raises(ConfigError) as err:
        strategy_plugin(kind, resources)
    return [e.split(":")[0] for e in err.value.errors]
