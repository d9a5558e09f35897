# ruff: noqa: E501  (the case names are Go's, whole, so a failure names the Go case)
"""TaintTolerationComparisonOperators (alpha, off by default from v1.35): Lt and Gt
tolerations, ported from staging/src/k8s.io/api/core/v1/toleration_test.go
(TestCompareNumericValues and the Gt/Lt cases of TestTolerationToleratesTaint); validation
takes them only with the gate on, as the API server does."""
import json

import pytest

from scheduler_core.object_validation import validate_object
from scheduler_core.taints import compare_numeric_values, toleration_tolerates_taint
from scheduler_core.testing import make_node, make_pod

from .test_cli import simulate, write

MAX, MIN = "9223372036854775807", "-9223372036854775808"


@pytest.mark.parametrize("tol,taint,op,want", [
    pytest.param("100", "200", "Gt", True, id="Gt operator - taint value greater than toleration value, expect true"),
    pytest.param("200", "100", "Gt", False, id="Gt operator - taint value less than toleration value, expect false"),
    pytest.param("100", "100", "Gt", False, id="Gt operator - taint value equal to toleration value, expect false"),
    pytest.param("-100", "-50", "Gt", True, id="Gt operator - negative numbers, taint greater, expect true"),
    pytest.param("-50", "-100", "Gt", False, id="Gt operator - negative numbers, taint less, expect false"),
    pytest.param("0", "1", "Gt", True, id="Gt operator - zero and positive, expect true"),
    pytest.param("9223372036854775806", MAX, "Gt", True, id="Gt operator - large int64 values, taint greater, expect true"),
    pytest.param("200", "100", "Lt", True, id="Lt operator - taint value less than toleration value, expect true"),
    pytest.param("100", "200", "Lt", False, id="Lt operator - taint value greater than toleration value, expect false"),
    pytest.param("100", "100", "Lt", False, id="Lt operator - taint value equal to toleration value, expect false"),
    pytest.param("-50", "-100", "Lt", True, id="Lt operator - negative numbers, taint less, expect true"),
    pytest.param("-100", "-50", "Lt", False, id="Lt operator - negative numbers, taint greater, expect false"),
    pytest.param("0", "-1", "Lt", True, id="Lt operator - zero and negative, expect true"),
    pytest.param("abc", "100", "Gt", False, id="Gt operator - invalid toleration value (non-numeric), expect false"),
    pytest.param("", "100", "Gt", False, id="Gt operator - invalid toleration value (empty string), expect false"),
    pytest.param("0100", "200", "Gt", False, id="Gt operator - invalid toleration value (leading zero), expect false"),
    pytest.param("+100", "200", "Gt", False, id="Gt operator - invalid toleration value (plus sign), expect false"),
    pytest.param("100.5", "200", "Gt", False, id="Gt operator - invalid toleration value (floating point), expect false"),
    pytest.param("-", "100", "Gt", False, id="Gt operator - invalid toleration value (just minus sign), expect false"),
    pytest.param("100", "xyz", "Gt", False, id="Gt operator - invalid taint value (non-numeric), expect false"),
    pytest.param("100", "", "Gt", False, id="Gt operator - invalid taint value (empty string), expect false"),
    pytest.param("100", "0200", "Gt", False, id="Gt operator - invalid taint value (leading zero), expect false"),
    pytest.param("100", "+200", "Lt", False, id="Lt operator - invalid taint value (plus sign), expect false"),
    pytest.param("100", " 200 ", "Lt", False, id="Lt operator - invalid taint value (spaces), expect false"),
    pytest.param("100", "100", "Equal", False, id="Equal operator (unsupported for numeric comparison), expect false"),
    pytest.param("100", "100", "Exists", False, id="Exists operator (unsupported for numeric comparison), expect false"),
    pytest.param("0", "0", "Gt", False, id="Gt operator - both zero, expect false"),
    pytest.param("0", "0", "Lt", False, id="Lt operator - both zero, expect false"),
    pytest.param("0", MAX, "Gt", True, id="Gt operator - max int64 as taint, expect true"),
    pytest.param("0", MIN, "Lt", True, id="Lt operator - min int64 as taint, expect true"),
])
def test_compare_numeric_values(tol, taint, op, want):
    assert compare_numeric_values(tol, taint, op) is want


SLA = "node.kubernetes.io/sla"


@pytest.mark.parametrize("op,tol,taint,want", [
    pytest.param("Gt", "950", "800", False, id="toleration with Gt operator - taint value less than toleration value, expect not tolerated"),
    pytest.param("Gt", "750", "950", True, id="toleration with Gt operator - taint value greater than toleration value, expect tolerated"),
    pytest.param("Lt", "800", "950", False, id="toleration with Lt operator - taint value greater than toleration value, expect not tolerated"),
    pytest.param("Lt", "950", "800", True, id="toleration with Lt operator - taint value less than toleration value, expect tolerated"),
    pytest.param("Gt", "950", "950", False, id="toleration with Gt operator and taint with equal numeric value, expect not tolerated"),
    pytest.param("Gt", "950", "high", False, id="toleration with Gt operator and taint with non-numeric value, expect not tolerated"),
])
def test_toleration_tolerates_taint(op, tol, taint, want):
    toleration = {"key": SLA, "operator": op, "value": tol, "effect": "NoSchedule"}
    assert toleration_tolerates_taint(toleration, {"key": SLA, "value": taint,
                                                   "effect": "NoSchedule"}) is want


def sla_pod(value="900"):
    pod = make_pod("p")
    pod["spec"]["tolerations"] = [{"key": SLA, "operator": "Gt", "value": value,
                                   "effect": "NoSchedule"}]
    return pod


@pytest.mark.parametrize("gate,want", [(False, 1), (True, 0)])
def test_validation_takes_gt_only_with_the_gate(gate, want):
    assert len(validate_object(sla_pod(), comparison_operators=gate)) == want


def test_with_the_gate_on_a_gt_toleration_needs_an_integer():
    problems = validate_object(sla_pod("09"), comparison_operators=True)
    assert [path for path, _ in problems] == ["spec.tolerations[0].value"]


def test_a_pod_tolerating_a_higher_sla_taint_is_bound_with_the_gate_on(tmp_path):
    node = make_node("n1")
    node["spec"] = {"taints": [{"key": SLA, "value": "950", "effect": "NoSchedule"}]}
    path = write(tmp_path / "in.yaml", node, sla_pod("900"))
    out = simulate(path, "--output", "json", "--release", "1.35",
                   "--feature-gates", "TaintTolerationComparisonOperators=true")
    assert out.returncode == 0, out.stderr.decode()
    assert json.loads(out.stdout)["bindings"] == {"default/p": "n1"}
