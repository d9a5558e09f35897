"""resource.k8s.io versions: v1beta1 and v1beta2 objects converted to v1 as the API server
converts them (pkg/apis/resource/v1beta1 and v1beta2 conversions through the internal type).

v1beta2 has v1's shape: only apiVersion changes. v1beta1 differs in two places:
- a ResourceSlice device keeps its fields under `basic:` (v1beta1.BasicDevice), which v1
  flattens into the device;
- a claim's DeviceRequest holds the exact request's fields itself (deviceClassName, selectors,
  allocationMode, count, adminAccess, tolerations, capacity), which v1 puts under `exactly:`
  unless the request has `firstAvailable`.
Every release from v1.34 on serves v1 (on by default) and still has the v1beta1 and v1beta2
storage versions; v1alpha3 serves only DeviceTaintRule since v1.34, so a ResourceSlice,
DeviceClass or claim of v1alpha3 (or of any other version) is refused naming it, as kubectl
is refused ("no matches for kind ... in version ...").
"""
from __future__ import annotations

import copy

from ...errors import InputError

GROUP = "resource.k8s.io"
V1 = f"{GROUP}/v1"
SERVED = (V1, f"{GROUP}/v1beta2", f"{GROUP}/v1beta1")
# DeviceRequest fields v1beta1 keeps on the request and v1 under `exactly`.
_EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
                 "tolerations", "capacity")


def to_v1(obj: dict, label: str) -> dict:
    """The object as resource.k8s.io/v1; InputError for a version no release serves."""
    version = obj.get("apiVersion") or ""
    if version == V1:
        return obj
    if version not in SERVED:
        raise InputError(f'no matches for kind "{obj.get("kind")}" in version "{version}": '
                         f'the resource.k8s.io versions served are {", ".join(SERVED)}',
                         obj=label, field="apiVersion")
    out = copy.deepcopy(obj)
    out["apiVersion"] = V1
    if version.endswith("/v1beta1"):
        _from_v1beta1(out)
    return out


def _from_v1beta1(obj: dict) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    kind = obj.get("kind")
    if kind == "ResourceSlice":
        for device in spec.get("devices") or []:
            if isinstance(device, dict) and isinstance(device.get("basic"), dict):
                device.update(device.pop("basic"))
    elif kind == "ResourceClaim":
        _requests_to_v1(spec)
    elif kind == "ResourceClaimTemplate" and isinstance(spec.get("spec"), dict):
        _requests_to_v1(spec["spec"])


def _requests_to_v1(claim_spec: dict) -> None:
    devices = claim_spec.get("devices")
    if not isinstance(devices, dict):
        return
    for request in devices.get("requests") or []:
        if not isinstance(request, dict):
            continue
        exact = {f: request.pop(f) for f in _EXACT_FIELDS if f in request}
        if not request.get("firstAvailable"):
            request["exactly"] = exact
