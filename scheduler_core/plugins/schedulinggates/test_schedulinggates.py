"""SchedulingGates, ported from scheduling_gates_test.go."""
import pytest

from scheduler_core.framework.status import Code, Status
from scheduler_core.plugins.schedulinggates import new
from scheduler_core.testing import make_pod, pod_info


def gated(*gates):
    spec = {"schedulingGates": [{"name": g} for g in gates]} if gates else {}
    return pod_info(make_pod("p", **spec))


@pytest.mark.parametrize("pod,want", [
    pytest.param(gated(), None, id="pod does not carry scheduling gates"),
    pytest.param(gated("foo", "bar"),
                 Status.unresolvable("waiting for scheduling gates: [foo bar]"),
                 id="pod carries scheduling gates"),
    pytest.param(gated("example.com/one"),
                 Status.unresolvable("waiting for scheduling gates: [example.com/one]"),
                 id="pod carries one scheduling gate"),
])
def test_pre_enqueue(pod, want):
    status = new({}, None).pre_enqueue(pod)
    assert status == want
    if want is not None:
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_events_to_register():
    assert new({}, None).events_to_register() == {"UnscheduledPodUpdate"}
