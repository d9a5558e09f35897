"""Test builders for resource.k8s.io/v1 objects, named after the Go tests' helpers."""
from __future__ import annotations

DRIVER_A = "driver-a"
POOL_A = "pool-a"
CLASS_A = "class-a"
NODE_1 = "node-1"
NAMESPACE = "default"


def device_class(name=CLASS_A, *expressions, config=None) -> dict:
    spec = {"selectors": [{"cel": {"expression": e}} for e in expressions]}
    if config:
        spec["config"] = config
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name}, "spec": spec}


def request(name="req-0", klass=CLASS_A, count=1, mode="ExactCount", selectors=(),
            admin=None) -> dict:
    exact = {"deviceClassName": klass, "allocationMode": mode}
    if mode == "ExactCount":
        exact["count"] = count
    if selectors:
        exact["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if admin is not None:
        exact["adminAccess"] = admin
    return {"name": name, "exactly": exact}


def first_available(name="req-0", *subrequests) -> dict:
    """A request with firstAvailable: subrequests built by request() (no adminAccess)."""
    return {"name": name, "firstAvailable": [
        {"name": sub["name"], **sub["exactly"]} for sub in subrequests]}


def claim(name="claim-0", *requests, constraints=None, namespace=NAMESPACE, owner=None,
          config=None) -> dict:
    devices = {"requests": list(requests or [request()])}
    if constraints:
        devices["constraints"] = [{"matchAttribute": a, **({"requests": r} if r else {})}
                                  for a, r in constraints]
    if config:
        devices["config"] = config
    meta = {"name": name, "namespace": namespace}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner[0],
                                    "uid": owner[1], "controller": True}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": devices}, "status": {}}


def device(name, attributes=None, capacity=None) -> dict:
    out = {"name": name}
    if attributes:
        out["attributes"] = {k: _attr(v) for k, v in attributes.items()}
    if capacity:
        out["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    return out


def _attr(value) -> dict:
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, str) and value.startswith("v"):
        return {"version": value[1:]}
    return {"string": value}


def resource_slice(name="slice-1", node=NODE_1, pool=POOL_A, driver=DRIVER_A, *devices,
                   generation=1, count=1, node_selector=None, all_nodes=False) -> dict:
    spec = {"driver": driver, "pool": {"name": pool, "generation": generation,
                                       "resourceSliceCount": count},
            "devices": list(devices)}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    elif all_nodes:
        spec["allNodes"] = True
    else:
        spec["nodeName"] = node
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name}, "spec": spec}


def node(name=NODE_1, labels=None) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": dict(labels or {})},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}


def result(request_name, device_name, driver=DRIVER_A, pool=POOL_A, admin=False) -> dict:
    out = {"request": request_name, "driver": driver, "pool": pool, "device": device_name}
    if admin:
        out["adminAccess"] = True
    return out


def local_to(node_name: str) -> dict:
    """The nodeSelector of an allocation from a slice with nodeName."""
    return {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def allocation(*results, node_name=NODE_1, config=None) -> dict:
    devices = {"results": list(results)}
    if config:
        devices["config"] = config
    out = {"devices": devices}
    if node_name:
        out["nodeSelector"] = local_to(node_name)
    return out
