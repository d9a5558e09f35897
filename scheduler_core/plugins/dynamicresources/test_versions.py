"""resource.k8s.io v1beta1/v1beta2 objects converted to v1 as the API server converts them
(pkg/apis/resource/v1beta1/conversion.go: BasicDevice flattened, DeviceRequest's exact fields
under `exactly`), and unserved versions refused naming them."""
from __future__ import annotations

import copy

import pytest
import yaml

from scheduler_core.errors import InputError
from scheduler_core.loader import load_files
from scheduler_core.simulate import simulate

from .versions import to_v1

V1BETA1_SLICE = {
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice",
    "metadata": {"name": "node-1-gpu"},
    "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
             "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0", "basic": {
                 "attributes": {"model": {"string": "a100"}},
                 "capacity": {"memory": {"value": "40Gi"}},
                 "taints": [{"key": "maintenance", "effect": "NoSchedule"}]}}]},
}
V1BETA1_CLAIM = {
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
    "metadata": {"name": "gpu", "namespace": "default"},
    "spec": {"devices": {"requests": [
        {"name": "one", "deviceClassName": "gpu", "count": 2, "allocationMode": "ExactCount",
         "selectors": [{"cel": {"expression": "device.attributes['gpu.example.com'].model "
                                              "== 'a100'"}}],
         "tolerations": [{"key": "maintenance", "operator": "Exists"}]},
        {"name": "any", "firstAvailable": [{"name": "big", "deviceClassName": "gpu"}]},
    ]}},
}


def test_a_v1beta1_device_is_flattened_out_of_basic():
    device = to_v1(V1BETA1_SLICE, "ResourceSlice node-1-gpu")["spec"]["devices"][0]
    assert device == {"name": "gpu-0", "attributes": {"model": {"string": "a100"}},
                      "capacity": {"memory": {"value": "40Gi"}},
                      "taints": [{"key": "maintenance", "effect": "NoSchedule"}]}


def test_a_v1beta1_request_gets_its_exact_fields_under_exactly_unless_it_has_subrequests():
    requests = to_v1(V1BETA1_CLAIM, "ResourceClaim default/gpu")["spec"]["devices"]["requests"]
    assert requests[0] == {"name": "one", "exactly": {
        "deviceClassName": "gpu", "count": 2, "allocationMode": "ExactCount",
        "selectors": V1BETA1_CLAIM["spec"]["devices"]["requests"][0]["selectors"],
        "tolerations": [{"key": "maintenance", "operator": "Exists"}]}}
    assert requests[1] == {"name": "any",
                           "firstAvailable": [{"name": "big", "deviceClassName": "gpu"}]}


def test_a_v1beta1_template_is_converted_inside_its_claim_spec():
    template = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "t"}, "spec": {"spec": copy.deepcopy(V1BETA1_CLAIM["spec"])}}
    out = to_v1(template, "ResourceClaimTemplate default/t")
    assert out["apiVersion"] == "resource.k8s.io/v1"
    assert out["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 2


def test_the_source_object_is_not_changed():
    before = copy.deepcopy(V1BETA1_SLICE)
    to_v1(V1BETA1_SLICE, "ResourceSlice node-1-gpu")
    assert V1BETA1_SLICE == before


def test_v1beta2_has_the_shape_of_v1_and_only_changes_version():
    slice_ = {**copy.deepcopy(V1BETA1_SLICE), "apiVersion": "resource.k8s.io/v1beta2"}
    slice_["spec"]["devices"] = [{"name": "gpu-0", "attributes": {"model": {"string": "x"}}}]
    out = to_v1(slice_, "ResourceSlice node-1-gpu")
    assert out == {**slice_, "apiVersion": "resource.k8s.io/v1"}


@pytest.mark.parametrize("version", ["resource.k8s.io/v1alpha3", "resource.k8s.io/v1alpha2",
                                     "resource.k8s.io/v2", "v1"])
def test_an_unserved_version_is_refused_naming_it(version):
    with pytest.raises(InputError) as err:
        to_v1({**V1BETA1_SLICE, "apiVersion": version}, "ResourceSlice node-1-gpu")
    assert f'no matches for kind "ResourceSlice" in version "{version}"' in str(err.value)
    assert err.value.field == "apiVersion"


def test_a_v1beta1_slice_loads_with_its_attributes_so_a_cel_selector_can_read_them(tmp_path):
    """Issue 27: the `basic:` attributes were dropped and the selector failed with
    "no such key: model"."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}
    klass = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "DeviceClass",
             "metadata": {"name": "gpu"},
             "spec": {"selectors": [{"cel": {"expression":
                                             "device.driver == 'gpu.example.com'"}}]}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x"}],
                    "resourceClaims": [{"name": "g", "resourceClaimName": "gpu"}]}}
    claim = copy.deepcopy(V1BETA1_CLAIM)
    claim["spec"]["devices"]["requests"] = claim["spec"]["devices"]["requests"][:1]
    claim["spec"]["devices"]["requests"][0]["count"] = 1
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all([node, klass, V1BETA1_SLICE, claim, pod]))
    cluster = load_files([str(path)])
    (slice_,) = cluster.objects.resource_slices
    assert slice_["spec"]["devices"][0]["attributes"] == {"model": {"string": "a100"}}
    assert simulate([str(path)], seed=1).scheduler.bindings == {"default/p": "node-1"}


def test_a_v1alpha3_slice_in_a_file_is_refused_with_the_file_object_and_field(tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump({**V1BETA1_SLICE, "apiVersion": "resource.k8s.io/v1alpha3"}))
    with pytest.raises(InputError) as err:
        load_files([str(path)])
    assert str(err.value).startswith(
        f"{path}: document 1: ResourceSlice node-1-gpu: field apiVersion: no matches for kind "
        '"ResourceSlice" in version "resource.k8s.io/v1alpha3"')
