"""DynamicResourcesArgs validated as ValidateDynamicResourcesArgs (apis/config/validation):
fields of a gate that is off are errors, bindingTimeout at least 1s, filterTimeout >= 0."""
from __future__ import annotations

import pytest

from scheduler_core.errors import ConfigError
from scheduler_core.features import feature_gates
from scheduler_core.framework.handle import FakeHandle

from . import new
from .args import validate_args

PATH = "profiles[0].pluginConfig[0].args"


@pytest.mark.parametrize(("args", "release", "errors"), [
    pytest.param({"bindingTimeout": "600s", "filterTimeout": "10s"}, "1.37", [],
                 id="both fields with their gates on"),
    pytest.param({"bindingTimeout": "500ms"}, "1.37",
                 [f"{PATH}.bindingTimeout: Invalid value: 500ms: must be at least 1 second"],
                 id="a binding timeout under a second, printed as Go prints a Duration"),
    pytest.param({"bindingTimeout": "0.5s"}, "1.37",
                 [f"{PATH}.bindingTimeout: Invalid value: 500ms: must be at least 1 second"],
                 id="the Duration's String, not the text given"),
    pytest.param({"filterTimeout": "-60s"}, "1.37",
                 [f"{PATH}.filterTimeout: Invalid value: -1m0s: must be zero or positive"],
                 id="a negative filter timeout"),
    pytest.param({"filterTimeout": "0"}, "1.37", [], id="a zero filter timeout turns it off"),
    pytest.param({"bindingTimeout": "10m"}, "1.35",
                 [f"{PATH}.bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                  "DRAResourceClaimDeviceStatus feature gate is disabled"],
                 id="a binding timeout while binding conditions are off"),
    pytest.param({"bindingTimeout": "soon"}, "1.37",
                 [f'{PATH}.bindingTimeout: Invalid value: "soon": time: invalid duration '
                  '"soon"'], id="not a duration"),
])
def test_validate_args(args, release, errors):
    assert validate_args(args, PATH, feature_gates(release)) == errors


def test_the_plugin_refuses_a_field_its_release_forbids():
    with pytest.raises(ConfigError, match="bindingTimeout: Forbidden"):
        new({"bindingTimeout": "5m"}, FakeHandle(features=feature_gates("1.34")))
    assert new({"bindingTimeout": "5m"}, FakeHandle()).binding_timeout == 300
