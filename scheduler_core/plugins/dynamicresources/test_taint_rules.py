"""DeviceTaintRule: the ResourceSlice tracker's patches, ported from
dynamic-resource-allocation/resourceslice/tracker/tracker_test.go (TestListPatchedResourceSlices:
the cases whose end state is the patched slices), then the rules through the loader and the
scheduler per release and gate (DRADeviceTaintRules; DRADeviceTaints in v1.34)."""
from __future__ import annotations

import copy

import pytest
import yaml

from scheduler_core.errors import InputError
from scheduler_core.features import feature_gates
from scheduler_core.simulate import simulate

from .builders import device_class, request, resource_slice
from .builders import node as make_node
from .taint_rules import apply_rules

DRIVER1, DRIVER2 = "driver1.example.com", "driver2.example.com"
POOL1, POOL2 = "pool-1", "pool-2"
NOW = "2006-01-02T15:04:05Z"
TAINT1 = {"key": "example.com/taint", "value": "tainted", "effect": "NoExecute",
          "timeAdded": NOW}
TAINT2 = {"key": "example.com/taint2", "value": "tainted2", "effect": "NoExecute",
          "timeAdded": NOW}


def slice_of(name, driver, pool, *devices):
    return resource_slice(name, "node-1", pool, driver, *devices)


def dev(name, *taints):
    return {"name": name, **({"taints": list(taints)} if taints else {})}


def rule(name="rule", taint=TAINT1, **selector):
    spec = {"taint": dict(taint)}
    if selector:
        spec["deviceSelector"] = selector
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
            "metadata": {"name": name}, "spec": spec}


SLICE1 = slice_of("s1", DRIVER1, POOL1, dev("device-1"))
SLICE2 = slice_of("s2", DRIVER2, POOL2, dev("device-2"))
SLICE1_TAINTED = slice_of("s1", DRIVER1, POOL1, dev("device-1", TAINT1))
SLICE2_TAINTED = slice_of("s2", DRIVER2, POOL2, dev("device-2", TAINT1))
THREE = (dev("device-0"), dev("device-1"), dev("device-2"))


@pytest.mark.parametrize("slices, rules, want", [
    pytest.param([SLICE1], [], [SLICE1], id="add-slices-no-patches"),
    pytest.param([SLICE1], [rule()], [SLICE1_TAINTED], id="patch-all-slices"),
    pytest.param([SLICE1, SLICE2], [rule(pool=POOL2)], [SLICE1, SLICE2_TAINTED],
                 id="update-patch (the rule now names pool-2)"),
    pytest.param([slice_of("s1", DRIVER1, POOL1, dev("device-1", TAINT2))], [rule()],
                 [slice_of("s1", DRIVER1, POOL1, dev("device-1", TAINT2, TAINT1))],
                 id="merge-taints"),
    pytest.param([SLICE1, SLICE2], [rule(driver=DRIVER1)], [SLICE1_TAINTED, SLICE2],
                 id="add-taint-for-driver"),
    pytest.param([SLICE1, SLICE2], [rule(pool=POOL1)], [SLICE1_TAINTED, SLICE2],
                 id="add-taint-for-pool"),
    pytest.param([SLICE1, SLICE2], [rule(device="device-1")], [SLICE1_TAINTED, SLICE2],
                 id="add-taint-for-device"),
    pytest.param([SLICE1, SLICE2], [rule(driver=DRIVER1, pool=POOL1, device="device-1")],
                 [SLICE1_TAINTED, SLICE2], id="filter-all-criteria"),
    pytest.param([slice_of("s1", DRIVER1, POOL1, *THREE), slice_of("s2", DRIVER2, POOL2, dev(
        "device-1"))], [rule(device="device-1")],
        [slice_of("s1", DRIVER1, POOL1, dev("device-0"), dev("device-1", TAINT1),
                  dev("device-2")),
         slice_of("s2", DRIVER2, POOL2, dev("device-1", TAINT1))],
        id="update-patched-slice (the device's name alone selects in every slice)"),
])
def test_list_patched_resource_slices(slices, rules, want):
    before = copy.deepcopy(slices)
    assert apply_rules(slices, rules) == want
    assert slices == before   # the slices as the API has them are left alone


# --- through the loader and the scheduler ---------------------------------------------------------
def _cluster(tmp_path, rule_doc, tolerate=False):
    req = request("gpu", "gpu", 1)
    if tolerate:
        req["exactly"]["tolerations"] = [{"key": "example.com/broken", "operator": "Exists",
                                          "effect": "NoSchedule"}]
    docs = [make_node("node-1"), device_class("gpu", f'device.driver == "{DRIVER1}"'),
            resource_slice("s1", "node-1", POOL1, DRIVER1, dev("gpu-0")),
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [req]}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
             "spec": {"containers": [{"name": "c", "image": "i"}],
                      "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]}},
            rule_doc]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


BROKEN = {"key": "example.com/broken", "effect": "NoSchedule"}


def _broken_rule(version="v1"):
    return {**rule(taint=BROKEN, driver=DRIVER1, device="gpu-0"),
            "apiVersion": f"resource.k8s.io/{version}"}


@pytest.mark.parametrize("release, version, gates", [
    ("1.37", "v1", ""), ("1.37", "v1beta2", ""), ("1.36", "v1beta2", "DRADeviceTaintRules=true"),
    ("1.35", "v1alpha3", "DRADeviceTaints=true,DRADeviceTaintRules=true"),
    ("1.34", "v1alpha3", "DRADeviceTaints=true"),
])
def test_a_rule_taints_the_device_it_selects_and_a_toleration_lets_the_claim_have_it(
        tmp_path, release, version, gates):
    features = feature_gates(release, gates)
    out = simulate([_cluster(tmp_path, _broken_rule(version))], seed=1, features=features)
    assert out.scheduler.bindings["default/p"] is None
    assert "cannot allocate all claims" in out.to_json()["cycles"][0]["message"]
    ok = simulate([_cluster(tmp_path, _broken_rule(version), tolerate=True)], seed=1,
                  features=features)
    assert ok.scheduler.bindings["default/p"] == "node-1"


@pytest.mark.parametrize("release, gate", [("1.36", "DRADeviceTaintRules"),
                                           ("1.35", "DRADeviceTaintRules"),
                                           ("1.34", "DRADeviceTaints")])
def test_with_its_gate_off_the_rule_is_skipped_with_a_warning(tmp_path, release, gate):
    version = "v1alpha3" if release != "1.36" else "v1beta2"
    out = simulate([_cluster(tmp_path, _broken_rule(version))], seed=1,
                   features=feature_gates(release))
    assert out.scheduler.bindings["default/p"] == "node-1"
    assert any("DeviceTaintRule rule" in w and f"the {gate} feature gate is off" in w
               for w in out.scheduler.warnings.to_list())


def test_a_version_the_release_does_not_serve_is_refused_naming_the_served_ones(tmp_path):
    with pytest.raises(InputError, match=r'version "resource.k8s.io/v1" in kube-apiserver '
                                         r'v1.36 \(served: resource.k8s.io/v1alpha3, '
                                         r'resource.k8s.io/v1beta2\)'):
        simulate([_cluster(tmp_path, _broken_rule("v1"))], features=feature_gates(
            "1.36", "DRADeviceTaintRules=true"))


def test_an_unsupported_effect_is_refused_by_field(tmp_path):
    bad = _broken_rule()
    bad["spec"]["taint"]["effect"] = "Sometimes"
    with pytest.raises(InputError, match=r'field spec.taint.effect: Unsupported value: '
                                         r'"Sometimes"'):
        simulate([_cluster(tmp_path, bad)])


def test_v134_class_and_cel_selectors_are_not_modelled_and_the_rule_is_skipped(tmp_path):
    doc = _broken_rule("v1alpha3")
    doc["spec"]["deviceSelector"]["deviceClassName"] = "gpu"
    out = simulate([_cluster(tmp_path, doc)], seed=1,
                   features=feature_gates("1.34", "DRADeviceTaints=true"))
    assert out.scheduler.bindings["default/p"] == "node-1"
    assert any("field spec.deviceSelector.deviceClassName" in w
               for w in out.scheduler.warnings.to_list())


def test_a_rule_updated_by_a_timeline_is_a_slice_update_for_the_queue(tmp_path):
    """The tracker re-patches the slices when a rule changes: the pod the rule kept off its
    device is retried and gets it once the rule selects another device."""
    moved = _broken_rule()
    moved["spec"]["deviceSelector"]["device"] = "gpu-9"
    path = _cluster(tmp_path, _broken_rule())
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("---\n" + yaml.safe_dump({
            "apiVersion": "playground.k8s.local/v1", "kind": "Timeline",
            "metadata": {"name": "t"},
            "spec": {"steps": [{"at": 30, "action": "Update", "object": moved}]}}))
    out = simulate([path], seed=1)
    assert out.scheduler.bindings["default/p"] == "node-1"
    cycles = out.to_json()["cycles"]
    assert [c["time"] for c in cycles] == [0.0, 30.0]
