"""Extended resources backed by DRA (DRAExtendedResource; dynamicresources/extended and
extendeddynamicresources.go): a DeviceClass with `extendedResourceName` (or any class, through
its implicit name `deviceclass.resource.kubernetes.io/<class>`) serves a pod's extended resource
requests, such as `example.com/gpu: 2`, on nodes that do not advertise that resource: the
scheduler allocates them through a claim of its own, created at PreBind as
`<pod>-extended-resources-<5 characters>`, and records it in the pod's
`status.extendedResourceClaimStatus`.
"""
from __future__ import annotations

from ...quantity import int_value
from ..noderesources.resource_allocation import is_extended_resource_name

IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"
CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
# specialClaimInMemName: not a valid name, so never one of the API's claims.
IN_MEMORY_NAME = "<extended-resources>"


def is_dra_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName."""
    return is_extended_resource_name(name) or name.startswith(IMPLICIT_PREFIX)


def device_class_for(classes: dict[str, dict], resource: str) -> dict | None:
    """DeviceClassResolver.GetDeviceClass: the class whose extendedResourceName is the resource
    (the newest one when several are, then by name), else the class the implicit name names."""
    explicit = [c for c in classes.values()
                if (c.get("spec") or {}).get("extendedResourceName") == resource]
    if explicit:
        return max(explicit, key=lambda c: ((c.get("metadata") or {}).get("creationTimestamp")
                                            or "", c["metadata"]["name"]))
    if resource.startswith(IMPLICIT_PREFIX):
        return classes.get(resource[len(IMPLICIT_PREFIX):])
    return None


def backed_resources(classes: dict[str, dict], scalars) -> dict[str, int]:
    """The pod's extended resource requests a device class backs (zero requests skipped)."""
    return {name: amount for name, amount in scalars
            if amount and is_dra_extended_resource_name(name)
            and device_class_for(classes, name) is not None}


def find_claim(claims, pod_meta: dict, pod_uid: str) -> dict | None:
    """findExtendedResourceClaim: the claim annotated as the pod's, controlled by it."""
    for claim in claims:
        meta = claim.get("metadata") or {}
        if (meta.get("annotations") or {}).get(CLAIM_ANNOTATION) != "true":
            continue
        if any(ref.get("name") == pod_meta.get("name") and ref.get("controller")
               and ref.get("uid") == pod_uid for ref in meta.get("ownerReferences") or []):
            return claim
    return None


def in_memory_claim(pod_meta: dict, pod_uid: str) -> dict:
    """The claim PreFilter keeps in memory until PreBind creates it (no requests yet)."""
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {
            "name": IN_MEMORY_NAME, "namespace": pod_meta.get("namespace") or "default",
            "generateName": f"{pod_meta.get('name')}-extended-resources-",
            "uid": f"{pod_uid}/extended-resources",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_meta.get("name"),
                                 "uid": pod_uid, "controller": True}],
            "annotations": {CLAIM_ANNOTATION: "true"},
        },
        "spec": {}, "status": {},
    }


def node_needs(backed: dict[str, int], pod_scalars, node_scalars: dict[str, int]):
    """filterExtendedResources on one node: (what DRA must provide there, the resource the node
    can serve neither way or None). A backed resource the node advertises (non-zero) is the
    device plugin's, NodeResourcesFit checks it."""
    needs = {}
    for name, amount in pod_scalars:
        if not amount or not is_dra_extended_resource_name(name):
            continue
        if name in backed and not node_scalars.get(name):
            needs[name] = amount
        elif name not in node_scalars:
            return {}, name
    return needs, None


def _container_request(index: int, container: dict, resource: str, class_name: str,
                       reusable: list) -> tuple[dict | None, list[dict]]:
    """createResourceRequestAndMappings: the container's request for the resource (None when
    it needs no request of its own: none asked, or later long-lived requests cover it)."""
    requests = ((container.get("resources") or {}).get("requests") or {})
    if resource not in requests:
        return None, []
    wanted = int_value(requests[resource])
    if wanted == 0:
        return None, []
    mappings, total = [], 0
    for request in reusable:
        if request is None:
            continue
        total += request["exactly"]["count"]
        mappings.append({"containerName": container.get("name"), "resourceName": resource,
                         "requestName": request["name"]})
        if total >= wanted:
            return None, mappings
    name = f"container-{index}-request-{sorted(requests).index(resource)}"
    mappings.append({"containerName": container.get("name"), "resourceName": resource,
                     "requestName": name})
    return {"name": name, "exactly": {"deviceClassName": class_name,
                                      "allocationMode": "ExactCount",
                                      "count": wanted - total}}, mappings


def requests_and_mappings(pod: dict, needs: dict[str, int], classes: dict[str, dict]):
    """createRequestsAndMappings: the claim's device requests (sorted by name) and the pod
    status' requestMappings. Init containers that run before the others may reuse the
    requests of later long-lived containers (sidecars and regular containers); the short-lived
    ones share the largest of their requests."""
    spec = pod.get("spec") or {}
    inits = spec.get("initContainers") or []
    containers = list(inits) + list(spec.get("containers") or [])
    long_lived = [i for i, c in enumerate(containers)
                  if i >= len(inits) or c.get("restartPolicy") == "Always"]
    short_lived = [i for i in range(len(inits)) if i not in long_lived]
    requests, mappings = [], []
    for resource in sorted(needs):
        class_name = device_class_for(classes, resource)["metadata"]["name"]
        long_requests: list = [None] * len(containers)
        long_mappings, short_mappings, short_names, biggest = [], [], set(), None
        for i in long_lived:
            long_requests[i], found = _container_request(i, containers[i], resource, class_name,
                                                         [])
            long_mappings += found
        for i in short_lived:
            request, found = _container_request(i, containers[i], resource, class_name,
                                                long_requests[i:])
            if request is not None:
                short_names.add(request["name"])
                if biggest is None or biggest["exactly"]["count"] < request["exactly"]["count"]:
                    biggest = request
            short_mappings += found
        if biggest is not None and len(short_names) > 1:
            for mapping in short_mappings:
                if mapping["requestName"] in short_names:
                    mapping["requestName"] = biggest["name"]
        requests += ([biggest] if biggest is not None else []) + [r for r in long_requests if r]
        mappings += long_mappings + short_mappings
    return sorted(requests, key=lambda r: r["name"]), mappings
