"""resource.k8s.io/v1 objects: loading and checking them, and the claims pods refer to.

DeviceClass, ResourceClaim, ResourceClaimTemplate and ResourceSlice are checked as the API
server's validation would (the fields the allocator reads), with the defaults it applies.
`create_template_claims` does what kube-controller-manager's resourceclaim controller does when
a pod appears: one claim per template reference, named and owned as the controller names it.
The claim helpers are dynamic-resource-allocation/resourceclaim's.
"""
from __future__ import annotations

import copy
import hashlib

from ...errors import InputError
from ...quantity import QuantityError, parse_quantity
from ...validation import is_dns1123_subdomain
from .cel import ATTRIBUTE_KINDS, CELError, compile_selector

API_VERSION = "resource.k8s.io/v1"
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"
FINALIZER = "resource.kubernetes.io/delete-protection"
RESERVED_FOR_MAX_SIZE = 256
FIRST_AVAILABLE_MAX_SIZE = 8
ALLOCATION_MODES = ("All", "ExactCount")
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
PLACEMENT = ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
# The apiserver's GenerateName suffix alphabet (utilrand.String): no vowels, no confusables.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATE_BASE = 57


class ClaimError(Exception):
    """Why a pod's claim cannot be used yet (resourceclaim.Name, IsForPod, the claim lister)."""


# --- loading --------------------------------------------------------------------------------

def _fail(message: str, label: str, path: str):
    raise InputError(message, obj=label, field=path)


def _check_selectors(selectors, label: str, path: str) -> None:
    if selectors is None:
        return
    if not isinstance(selectors, list):
        _fail("must be a list of selectors", label, path)
    for i, sel in enumerate(selectors):
        expression = ((sel or {}).get("cel") or {}).get("expression") if isinstance(sel, dict) \
            else None
        where = f"{path}[{i}].cel.expression"
        if not isinstance(expression, str) or not expression:
            _fail("Required value", label, where)
        try:
            compile_selector(expression)
        except CELError as exc:
            _fail(f"Invalid value: {expression!r}: compilation failed: {exc}", label, where)


def _check_name(name, label: str, path: str) -> None:
    if not isinstance(name, str) or not name:
        _fail("Required value", label, path)
    errors = is_dns1123_subdomain(name)
    if errors:
        _fail(f"Invalid value: {name!r}: {errors[0]}", label, path)


def _check_exact(exact: dict, label: str, path: str) -> None:
    """An ExactDeviceRequest, or a DeviceSubRequest (the same fields but adminAccess)."""
    if not isinstance(exact, dict):
        _fail("must be an object", label, path)
    _check_name(exact.get("deviceClassName"), label, f"{path}.deviceClassName")
    mode = exact.setdefault("allocationMode", "ExactCount")
    if mode not in ALLOCATION_MODES:
        _fail(f'Unsupported value: "{mode}": supported values: "All", "ExactCount"', label,
              f"{path}.allocationMode")
    if mode == "ExactCount":
        count = exact.setdefault("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
            _fail(f"Invalid value: {count!r}: must be greater than zero", label, f"{path}.count")
    elif exact.get("count") not in (None, 0):
        _fail(f"Invalid value: {exact['count']}: must not be specified when allocationMode is "
              "All", label, f"{path}.count")
    _check_selectors(exact.get("selectors"), label, f"{path}.selectors")
    admin = exact.get("adminAccess")
    if admin is not None and not isinstance(admin, bool):
        _fail(f"must be a boolean: {admin!r}", label, f"{path}.adminAccess")


def check_claim_spec(spec, label: str, path: str) -> None:
    """ResourceClaimSpec: requests, constraints and config, as the API validates them."""
    if not isinstance(spec, dict):
        _fail("Required value", label, path)
    devices = spec.setdefault("devices", {}) or {}
    if not isinstance(devices, dict):
        _fail("must be an object", label, f"{path}.devices")
    requests = devices.get("requests") or []
    names = set()
    for i, req in enumerate(requests):
        where = f"{path}.devices.requests[{i}]"
        name = (req or {}).get("name") if isinstance(req, dict) else None
        _check_name(name, label, f"{where}.name")
        if name in names:
            _fail(f'Duplicate value: "{name}"', label, f"{where}.name")
        names.add(name)
        if ("exactly" in req) == bool(req.get("firstAvailable")):
            _fail("Required value: exactly one of `exactly` or `firstAvailable` is required",
                  label, where)
        if "exactly" in req:
            _check_exact(req["exactly"], label, f"{where}.exactly")
        else:
            names |= _check_subrequests(req, label, f"{where}.firstAvailable")
    for i, constraint in enumerate(devices.get("constraints") or []):
        where = f"{path}.devices.constraints[{i}]"
        kinds = [k for k in ("matchAttribute", "distinctAttribute")
                 if isinstance(constraint, dict) and constraint.get(k)]
        if len(kinds) != 1:
            _fail("Required value: exactly one of `matchAttribute` or `distinctAttribute` is "
                  "required", label, where)
        for j, ref in enumerate(constraint.get("requests") or []):
            if ref not in names:
                _fail(f'Invalid value: "{ref}": must be the name of a request in the claim',
                      label, f"{where}.requests[{j}]")


def _check_subrequests(req: dict, label: str, path: str) -> set[str]:
    """A firstAvailable list; returns the "<request>/<subrequest>" names it defines."""
    subs = req["firstAvailable"]
    if not isinstance(subs, list):
        _fail("must be a list of subrequests", label, path)
    if len(subs) > FIRST_AVAILABLE_MAX_SIZE:
        _fail(f"Too many: {len(subs)}: must have at most {FIRST_AVAILABLE_MAX_SIZE} items",
              label, path)
    seen = set()
    for j, sub in enumerate(subs):
        name = (sub or {}).get("name") if isinstance(sub, dict) else None
        _check_name(name, label, f"{path}[{j}].name")
        if name in seen:
            _fail(f'Duplicate value: "{name}"', label, f"{path}[{j}].name")
        seen.add(name)
        if "adminAccess" in sub:
            _fail("Forbidden: not supported in a subrequest", label, f"{path}[{j}].adminAccess")
        _check_exact(sub, label, f"{path}[{j}]")
    return {f"{req['name']}/{name}" for name in seen}


def _check_slice(obj: dict, label: str) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        _fail("Required value", label, "spec")
    if not spec.get("driver"):
        _fail("Required value", label, "spec.driver")
    pool = spec.get("pool")
    if not isinstance(pool, dict) or not pool.get("name"):
        _fail("Required value", label, "spec.pool.name")
    pool.setdefault("generation", 0)
    count = pool.get("resourceSliceCount")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        _fail(f"Invalid value: {count!r}: must be greater than zero", label,
              "spec.pool.resourceSliceCount")
    placement = [k for k in PLACEMENT if spec.get(k)]
    # A slice that only publishes counters for its pool needs no node of its own.
    counters_only = spec.get("sharedCounters") and not spec.get("devices")
    if len(placement) > 1 or (not placement and not counters_only):
        _fail("Invalid value: exactly one of `nodeName`, `nodeSelector`, `allNodes` or "
              "`perDeviceNodeSelection` is required", label, "spec")
    seen = set()
    for i, device in enumerate(spec.get("devices") or []):
        where = f"spec.devices[{i}]"
        name = (device or {}).get("name") if isinstance(device, dict) else None
        if not name:
            _fail("Required value", label, f"{where}.name")
        if name in seen:
            _fail(f'Duplicate value: "{name}"', label, f"{where}.name")
        seen.add(name)
        for attr_name, attr in (device.get("attributes") or {}).items():
            kinds = [k for k in ATTRIBUTE_KINDS if k in (attr or {})]
            if len(kinds) != 1:
                _fail("Invalid value: exactly one value must be specified", label,
                      f"{where}.attributes[{attr_name}]")
        for cap_name, cap in (device.get("capacity") or {}).items():
            _check_quantity((cap or {}).get("value"), label, f"{where}.capacity[{cap_name}].value")
        for j, usage in enumerate(device.get("consumesCounters") or []):
            _check_counters(usage, label, f"{where}.consumesCounters[{j}]")
        for j, taint in enumerate(device.get("taints") or []):
            effect = (taint or {}).get("effect")
            if effect not in TAINT_EFFECTS:
                _fail(f'Unsupported value: "{effect}": supported values: "NoExecute", '
                      '"NoSchedule", "None"', label, f"{where}.taints[{j}].effect")
    for i, counter_set in enumerate(spec.get("sharedCounters") or []):
        if not (counter_set or {}).get("name"):
            _fail("Required value", label, f"spec.sharedCounters[{i}].name")
        _check_counters(counter_set, label, f"spec.sharedCounters[{i}]")


def _check_quantity(value, label: str, path: str) -> None:
    try:
        parse_quantity(value)
    except QuantityError as exc:
        _fail(str(exc), label, path)


def _check_counters(holder: dict, label: str, path: str) -> None:
    """A counter set or a device's consumption: counters by name, each with a value."""
    for name, counter in ((holder or {}).get("counters") or {}).items():
        _check_quantity((counter or {}).get("value"), label, f"{path}.counters[{name}].value")


def _add_device_class(cluster, obj, label, key):
    _check_selectors((obj.get("spec") or {}).get("selectors"), label, "spec.selectors")
    cluster.objects.device_classes[key] = obj


def _add_claim(cluster, obj, label, key):
    meta = obj.setdefault("metadata", {})
    meta.setdefault("namespace", "default")
    check_claim_spec(obj.get("spec"), label, "spec")
    cluster.objects.resource_claims[key] = obj


def _add_template(cluster, obj, label, key):
    obj.setdefault("metadata", {}).setdefault("namespace", "default")
    inner = (obj.get("spec") or {}).get("spec")
    check_claim_spec(inner, label, "spec.spec")
    cluster.objects.resource_claim_templates[key] = obj


def _add_slice(cluster, obj, label, key):
    _check_slice(obj, label)
    cluster.objects.resource_slices.append(obj)


# The loader's handlers for the four kinds: (cluster, object, label, key).
HANDLERS = {
    "DeviceClass": _add_device_class,
    "ResourceClaim": _add_claim,
    "ResourceClaimTemplate": _add_template,
    "ResourceSlice": _add_slice,
}
NAMESPACED = ("ResourceClaim", "ResourceClaimTemplate")


def finish(objects) -> None:
    """Once every namespace is known: the admin access checks. (Template claims are made when
    a pod reaches the scheduler, see create_template_claims: the input is not changed.)"""
    for kind, store, path in (("ResourceClaim", objects.resource_claims, "spec"),
                              ("ResourceClaimTemplate", objects.resource_claim_templates,
                               "spec.spec")):
        for key, obj in store.items():
            _check_admin_access(objects, obj, f"{kind} {key}", path)


def _check_admin_access(objects, obj: dict, label: str, path: str) -> None:
    """The API server admits adminAccess only in namespaces labelled for it."""
    namespace = obj["metadata"]["namespace"]
    if objects.namespace_labels(namespace).get(ADMIN_ACCESS_LABEL) == "true":
        return
    spec = obj.get("spec") or {}
    spec = spec.get("spec") or {} if path == "spec.spec" else spec
    for i, req in enumerate((spec.get("devices") or {}).get("requests") or []):
        if (req.get("exactly") or {}).get("adminAccess"):
            _fail(f"Forbidden: admin access to devices requires the `{ADMIN_ACCESS_LABEL}: "
                  "true` label on the containing namespace", label,
                  f"{path}.devices.requests[{i}].exactly.adminAccess")


# --- the resourceclaim controller -----------------------------------------------------------

def _generated_name(pod_name: str, claim_name: str, namespace: str) -> str:
    """GenerateName <pod>-<claim>- (both cut in proportion past 57 characters) plus 5
    characters; the suffix is derived from the names so that runs are reproducible."""
    base = f"{pod_name}-{claim_name}-"
    if len(base) > _MAX_GENERATE_BASE:
        pod_part = pod_name[:len(pod_name) * _MAX_GENERATE_BASE // len(base)]
        claim_part = claim_name[:len(claim_name) * _MAX_GENERATE_BASE // len(base)]
        base = f"{pod_part}-{claim_part}-"
    digest = hashlib.sha256(f"{namespace}/{pod_name}/{claim_name}".encode()).digest()
    return base + "".join(_NAME_ALPHABET[b % len(_NAME_ALPHABET)] for b in digest[:5])


def generated_name(base: str, seed: str) -> str:
    """GenerateName's base plus 5 characters derived from `seed` (runs repeat)."""
    digest = hashlib.sha256(seed.encode()).digest()
    return base + "".join(_NAME_ALPHABET[b % len(_NAME_ALPHABET)] for b in digest[:5])


def create_template_claims(objects, pod: dict) -> None:
    """One ResourceClaim per template reference without one yet, recorded in the pod status."""
    spec, meta = pod.get("spec") or {}, pod.get("metadata") or {}
    namespace = meta.get("namespace") or "default"
    status = pod.setdefault("status", {})
    done = {s.get("name") for s in status.get("resourceClaimStatuses") or []}
    for pod_claim in spec.get("resourceClaims") or []:
        template_name = pod_claim.get("resourceClaimTemplateName")
        if not template_name or pod_claim.get("name") in done:
            continue
        template = objects.resource_claim_templates.get(f"{namespace}/{template_name}")
        if template is None:
            continue  # the controller waits for the template; PreEnqueue reports the pod
        name = _generated_name(meta.get("name", ""), pod_claim["name"], namespace)
        template_meta = template.get("spec", {}).get("metadata") or {}
        objects.resource_claims[f"{namespace}/{name}"] = {
            "apiVersion": API_VERSION, "kind": "ResourceClaim",
            "metadata": {
                "name": name, "namespace": namespace,
                "labels": dict(template_meta.get("labels") or {}),
                "annotations": {**(template_meta.get("annotations") or {}),
                                POD_CLAIM_NAME_ANNOTATION: pod_claim["name"]},
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta.get("name"),
                                     "uid": pod_uid(pod), "controller": True,
                                     "blockOwnerDeletion": True}],
            },
            "spec": copy.deepcopy(template["spec"]["spec"]),
            "status": {},
        }
        status.setdefault("resourceClaimStatuses", []).append(
            {"name": pod_claim["name"], "resourceClaimName": name})


def release_claims(objects, pod: dict) -> list[tuple[dict, dict]]:
    """The controller once a pod is gone: it leaves every claim's reservedFor, a claim nobody
    reserves any more is deallocated, and one made for the pod from a template goes with it
    (garbage collection). The (old, new) claims it updated, for the scheduler's informer."""
    uid, changes = pod_uid(pod), []
    for key, claim in list(objects.resource_claims.items()):
        if not is_reserved_for_pod(uid, claim):
            continue
        old = copy.deepcopy(claim)
        status = claim["status"]
        status["reservedFor"] = [r for r in status["reservedFor"] if r.get("uid") != uid]
        if not status["reservedFor"]:
            for field in ("reservedFor", "allocation", "devices"):
                status.pop(field, None)
        changes.append((old, claim))
        if any(ref.get("controller") and ref.get("uid") == uid
               for ref in claim["metadata"].get("ownerReferences") or []):
            del objects.resource_claims[key]
    if changes:
        objects.claims_changed()
    return changes


# --- resourceclaim helpers ------------------------------------------------------------------

def pod_uid(pod: dict) -> str:
    """The pod's UID as the engine's PodInfo has it (metadata.uid, else namespace/name)."""
    meta = pod.get("metadata") or {}
    return meta.get("uid") or f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def claim_uid(claim: dict) -> str:
    meta = claim.get("metadata") or {}
    return meta.get("uid") or claim_key(claim)


def claim_key(claim: dict) -> str:
    """klog.KObj(claim): namespace/name."""
    meta = claim.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def claim_name(pod: dict, pod_claim: dict) -> tuple[str | None, bool]:
    """resourceclaim.Name: (claim name or None if none is needed, whether to check the owner)."""
    meta = pod.get("metadata") or {}
    if pod_claim.get("resourceClaimName"):
        return pod_claim["resourceClaimName"], False
    if pod_claim.get("resourceClaimTemplateName"):
        for status in (pod.get("status") or {}).get("resourceClaimStatuses") or []:
            if status.get("name") == pod_claim.get("name"):
                return status.get("resourceClaimName"), True
        raise ClaimError(f'pod "{meta.get("namespace")}/{meta.get("name")}": '
                         "ResourceClaim not created yet")
    raise ClaimError(f'pod "{meta.get("namespace")}/{meta.get("name")}", spec.resourceClaim '
                     f'"{pod_claim.get("name")}": none of the supported fields are set')


def is_for_pod(pod: dict, claim: dict) -> None:
    """resourceclaim.IsForPod: the claim must be controlled by the pod."""
    pmeta, cmeta = pod.get("metadata") or {}, claim.get("metadata") or {}
    owned = any(ref.get("controller") and ref.get("uid") == pod_uid(pod)
                for ref in cmeta.get("ownerReferences") or [])
    if cmeta.get("namespace") != pmeta.get("namespace") or not owned:
        raise ClaimError(f"ResourceClaim {claim_key(claim)} was not created for pod "
                         f"{pmeta.get('namespace')}/{pmeta.get('name')} (pod is not owner)")


def is_reserved_for_pod(pod_uid_: str, claim: dict) -> bool:
    return any(r.get("uid") == pod_uid_
               for r in (claim.get("status") or {}).get("reservedFor") or [])


def can_be_reserved(claim: dict) -> bool:
    return len((claim.get("status") or {}).get("reservedFor") or []) < RESERVED_FOR_MAX_SIZE


def pod_claims(objects, pod: dict, callback=None) -> list[dict]:
    """foreachPodResourceClaim: the pod's existing, usable claims; ClaimError otherwise."""
    namespace = (pod.get("metadata") or {}).get("namespace") or "default"
    claims = []
    for pod_claim in (pod.get("spec") or {}).get("resourceClaims") or []:
        name, must_check_owner = claim_name(pod, pod_claim)
        if name is None:
            continue
        claim = objects.resource_claims.get(f"{namespace}/{name}")
        if claim is None:
            raise ClaimError(f'could not find ResourceClaim "{namespace}/{name}"')
        if (claim.get("metadata") or {}).get("deletionTimestamp"):
            raise ClaimError(f'resourceclaim "{name}" is being deleted')
        if must_check_owner:
            is_for_pod(pod, claim)
        claims.append(claim)
    return claims
