"""NodeUnschedulable, ported from node_unschedulable_test.go."""
from __future__ import annotations

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeInfo, PodInfo
from scheduler_core.plugins.nodeunschedulable import ERR_REASON_UNSCHEDULABLE, new

UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


def pod_tolerating(*tolerations: dict) -> PodInfo:
    return PodInfo({"metadata": {"name": "p"},
                    "spec": {"containers": [{"name": "c"}], "tolerations": list(tolerations)}})


def node(unschedulable: bool) -> NodeInfo:
    return NodeInfo({"metadata": {"name": "n"}, "spec": {"unschedulable": unschedulable}})


@pytest.mark.parametrize("pod,unschedulable,want", [
    pytest.param(pod_tolerating(), True, ERR_REASON_UNSCHEDULABLE,
                 id="Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)"),
    pytest.param(pod_tolerating(), False, None, id="Schedule pod to normal node"),
    pytest.param(pod_tolerating({"key": UNSCHEDULABLE, "effect": "NoSchedule"}), True, None,
                 id="Schedule pod with toleration to unschedulable node "
                    "(node.Spec.Unschedulable==true)"),
    pytest.param(pod_tolerating({"operator": "Exists"}), True, None,
                 id="a toleration of every taint also tolerates the cordon"),
    pytest.param(pod_tolerating({"key": UNSCHEDULABLE, "operator": "Exists"}), True, None,
                 id="a toleration of the key with any effect tolerates the cordon"),
    pytest.param(pod_tolerating({"key": UNSCHEDULABLE, "effect": "NoExecute"}), True,
                 ERR_REASON_UNSCHEDULABLE,
                 id="a toleration of another effect does not tolerate the cordon"),
    pytest.param(pod_tolerating({"key": UNSCHEDULABLE, "value": "x", "effect": "NoSchedule"}),
                 True, ERR_REASON_UNSCHEDULABLE,
                 id="an Equal toleration with a value does not match the valueless taint"),
])
def test_node_unschedulable(pod, unschedulable, want):
    status = new({}, None).filter(CycleState(), pod, node(unschedulable))
    if want is None:
        assert status is None
    else:
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [want])


def test_events_to_register():
    assert new({}, None).events_to_register() == {"NodeAdd", "NodeUpdate",
                                                  "UnscheduledPodUpdate"}
