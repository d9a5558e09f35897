"""NodeName, ported from node_name_test.go."""
from __future__ import annotations

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeInfo, PodInfo
from scheduler_core.plugins.nodename import ERR_REASON, new


def pod_on(node_name: str) -> PodInfo:
    spec = {"containers": [{"name": "c"}]}
    if node_name:
        spec["nodeName"] = node_name
    return PodInfo({"metadata": {"name": "p"}, "spec": spec})


@pytest.mark.parametrize("pod_node,node,want", [
    pytest.param("", "foo", None, id="no host specified"),
    pytest.param("foo", "foo", None, id="host matches"),
    pytest.param("bar", "foo", ERR_REASON, id="host doesn't match"),
])
def test_node_name(pod_node, node, want):
    status = new({}, None).filter(CycleState(), pod_on(pod_node),
                                  NodeInfo({"metadata": {"name": node}}))
    if want is None:
        assert status is None
    else:
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [want])


def test_events_to_register():
    assert new({}, None).events_to_register() == {"NodeAdd"}
