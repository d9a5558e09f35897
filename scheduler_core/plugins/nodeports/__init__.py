"""NodePorts: the node must have the pod's host ports free (framework/plugins/nodeports)."""
from __future__ import annotations

from ...framework.cycle_state import CycleState
from ...framework.interfaces import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from ...framework.status import Status
from ...framework.types import NodeInfo, PodInfo
from .. import names
from . import queueing_hints

NAME = names.NODE_PORTS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


class _WantPorts(tuple):
    """preFilterState: the pod's (hostIP, protocol, hostPort) triples; never mutated."""

    def clone(self) -> _WantPorts:
        return self


def check_conflict(used_ports: dict, ip: str, protocol: str, port: int) -> bool:
    """HostPortInfo.CheckConflict over NodeInfo.used_ports {(protocol, port): [ips]}.

    0.0.0.0 on either side claims the (protocol, port) on every address.
    """
    if port <= 0:
        return False
    ips = used_ports.get((protocol or "TCP", port))
    if not ips:
        return False
    ip = ip or DEFAULT_BIND_ALL_HOST_IP
    return ip == DEFAULT_BIND_ALL_HOST_IP or DEFAULT_BIND_ALL_HOST_IP in ips or ip in ips


def fits_ports(want_ports, used_ports: dict) -> bool:
    return not any(check_conflict(used_ports, ip, protocol, port)
                   for ip, protocol, port in want_ports)


def fits(pod: PodInfo, node_info: NodeInfo) -> bool:
    """Fits: no host port of the pod is taken on the node."""
    return fits_ports(pod.host_ports, node_info.used_ports)


class NodePorts(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    NAME = NAME

    # PreFilter --------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes):
        if not pod.host_ports:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _WantPorts(pod.host_ports))
        return None, None

    # Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        want_ports = state.get(PRE_FILTER_STATE_KEY)
        if want_ports is None:
            return Status.as_error(
                f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not node_info.used_ports or fits_ports(want_ports, node_info.used_ports):
            return None
        return Status.unschedulable(ERR_REASON)

    # EnqueueExtensions ------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        # Ports are immutable in a pod spec, so only a deleted pod or a new node frees one.
        return {"AssignedPodDelete", "NodeAdd"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_node_ports(fits_ports)


def new(args: dict, handle) -> NodePorts:
    return NodePorts()
