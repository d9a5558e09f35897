"""DefaultBinder, ported from default_binder_test.go."""
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code, Status
from scheduler_core.plugins.defaultbinder import new
from scheduler_core.testing import make_pod, pod_info

NODE = "foohost.kubernetes.mydomain.com"


class BindingHandle:
    """Records the bindings it is asked for; answers with an injected error if given one."""

    def __init__(self, error=None):
        self.error = error
        self.bindings = []

    def bind_pod(self, pod, node_name):
        if self.error is not None:
            return Status.as_error(self.error)
        self.bindings.append((pod.key, node_name))
        return None


@pytest.mark.parametrize("inject_err,want_bindings", [
    pytest.param(None, [("ns/foo", NODE)], id="successful"),
    pytest.param(RuntimeError("binding error"), [], id="binding error"),
])
def test_default_binder(inject_err, want_bindings):
    handle = BindingHandle(inject_err)
    status = new({}, handle).bind(CycleState(), pod_info(make_pod("foo", namespace="ns")), NODE)
    if inject_err is None:
        assert status is None
    else:
        assert status.code == Code.ERROR
        assert status.message() == "binding error"
    assert handle.bindings == want_bindings
