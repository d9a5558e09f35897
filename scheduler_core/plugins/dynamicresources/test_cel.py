"""Device selectors, after dynamic-resource-allocation/cel's compile_test.go: the `device`
variable, attributes and capacity by domain, quantity() and semver(), and the errors."""
from __future__ import annotations

import pytest

from .builders import device
from .cel import CELError, compile_selector, device_variables

DRIVER = "dra.example.com"
GPU = device("gpu-0", {"model": "a100", "numa": 1, "dra.example.com/healthy": True,
                       "driverVersion": "v1.2.3", "other.example.com/zone": "z1"},
             {"memory": "40Gi"})


def matches(expression: str, dev: dict = GPU) -> bool:
    attributes, capacity = device_variables(dev, DRIVER)
    return compile_selector(expression).matches(DRIVER, attributes, capacity)


@pytest.mark.parametrize("expression,want", [
    pytest.param('device.driver == "dra.example.com"', True, id="driver_name"),
    pytest.param('device.attributes["dra.example.com"].model == "a100"', True,
                 id="unqualified names are in the driver's domain"),
    pytest.param('device.attributes["dra.example.com"].numa == 1', True, id="int attribute"),
    pytest.param('device.attributes["dra.example.com"].healthy', True, id="qualified name"),
    pytest.param('device.attributes["other.example.com"].zone == "z1"', True,
                 id="another domain"),
    pytest.param('has(device.attributes["none.example.com"].model)', False,
                 id="a domain without attributes is an empty map"),
    pytest.param('"model" in device.attributes["dra.example.com"]', True, id="in operator"),
    pytest.param('device.capacity["dra.example.com"].memory.compareTo(quantity("40Gi")) == 0',
                 True, id="quantity compareTo"),
    pytest.param('device.capacity["dra.example.com"].memory.isGreaterThan(quantity("32Gi"))',
                 True, id="quantity isGreaterThan"),
    pytest.param('device.attributes["dra.example.com"].driverVersion.isGreaterThan('
                 'semver("1.2.0"))', True, id="version attribute"),
    pytest.param('device.attributes["dra.example.com"].driverVersion.major() == 1', True,
                 id="semver major"),
    pytest.param('device.attributes["dra.example.com"].exists(k, k == "numa")', True,
                 id="macro variables are declared"),
])
def test_selector(expression, want):
    assert matches(expression) is want


@pytest.mark.parametrize("expression,message", [
    pytest.param('device.attributes["dra.example.com"].nosuch', "no such key: nosuch",
                 id="missing attribute"),
    pytest.param('device.attributes["none.example.com"].model', "no such key: model",
                 id="missing attribute in an unknown domain"),
    pytest.param('device.driver', "CEL result of type str could not be converted to bool",
                 id="not a bool"),
])
def test_runtime_errors(expression, message):
    with pytest.raises(CELError, match=message):
        matches(expression)


@pytest.mark.parametrize("expression,message", [
    pytest.param("noSuchVar", "undeclared reference to 'noSuchVar' (in container '')",
                 id="undeclared variable"),
    pytest.param("device.driver ==", "Failed to parse expression", id="syntax error"),
])
def test_compile_errors(expression, message):
    with pytest.raises(CELError) as err:
        compile_selector(expression)
    assert str(err.value).startswith(message)


# --- list values (DRAListTypeAttributes, KEP-5491): a CEL list of the attribute's kind ---------
LISTED = {"name": "cpu-0", "attributes": {
    "numaNodes": {"ints": [0, 1]}, "pcieRoots": {"strings": ["pci0000:00", "pci0000:40"]},
    "driverVersions": {"versions": ["1.2.0", "2.0.1"]}, "flags": {"bools": [True]}}}


@pytest.mark.parametrize("expression, want", [
    pytest.param('1 in device.attributes["dra.example.com"].numaNodes', True, id="int in list"),
    pytest.param('2 in device.attributes["dra.example.com"].numaNodes', False,
                 id="int not in list"),
    pytest.param('"pci0000:40" in device.attributes["dra.example.com"].pcieRoots', True,
                 id="string in list"),
    pytest.param('device.attributes["dra.example.com"].pcieRoots.size() == 2', True,
                 id="size of a list"),
    pytest.param('device.attributes["dra.example.com"].driverVersions.exists(v, '
                 'v.isGreaterThan(semver("2.0.0")))', True, id="versions are semvers"),
    pytest.param('device.attributes["dra.example.com"].flags.all(f, f)', True,
                 id="bools"),
])
def test_list_values_are_cel_lists_with_the_gate_on(expression, want):
    attributes, capacity = device_variables(LISTED, DRIVER, lists=True)
    assert compile_selector(expression).matches(DRIVER, attributes, capacity) is want


@pytest.mark.parametrize("attribute", [{"ints": [0, 1]}, {"strings": []}, {}])
def test_a_list_value_with_the_gate_off_or_an_empty_list_is_unsupported(attribute):
    """cel/compile.go: "attribute <name>: unsupported attribute value" (an empty list is no
    value with the gate on too: KEP-5491's lists are non-empty)."""
    dev = {"name": "d", "attributes": {"numaNodes": attribute}}
    with pytest.raises(CELError, match="attribute numaNodes: unsupported attribute value"):
        device_variables(dev, DRIVER, lists="ints" not in attribute)
