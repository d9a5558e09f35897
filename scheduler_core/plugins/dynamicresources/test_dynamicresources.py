"""DynamicResources, ported from dynamicresources_test.go's TestPlugin table.

Each case runs the plugin's points in the scheduler's order on one node ("worker") and checks
the status of each point and the claims afterwards, with Go's names: my-pod, my-resource,
my-pod-my-resource, my-resource-class, some-driver.
"""
from __future__ import annotations

import pytest

from scheduler_core.features import DEFAULT_GATES, feature_gates
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import ClusterObjects, FakeHandle
from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import PodInfo

from . import binding, new
from .builders import device, device_class, request, resource_slice
from .builders import node as make_node

POD, UID, RESOURCE, CLAIM = "my-pod", "1234", "my-resource", "my-pod-my-resource"
CLASS, DRIVER, WORKER = "my-resource-class", "some-driver", "worker"
MY_CLASS = device_class(CLASS)
WORKER_SLICE = resource_slice("worker-some-driver", WORKER, WORKER, DRIVER, device("instance-1"))


def pod(*, template=False, in_status=True) -> PodInfo:
    ref = {"name": RESOURCE}
    ref["resourceClaimTemplateName" if template else "resourceClaimName"] = CLAIM
    manifest = {"metadata": {"name": POD, "namespace": "default", "uid": UID},
                "spec": {"containers": [{"name": "c"}], "resourceClaims": [ref]}}
    if template and in_status:
        manifest["status"] = {"resourceClaimStatuses": [{"name": RESOURCE,
                                                         "resourceClaimName": CLAIM}]}
    return PodInfo(manifest)


def claim(*, allocated=False, reserved_for=(), owner_uid=UID, selectors=(), node_sel=None):
    c = {"metadata": {"name": CLAIM, "namespace": "default",
                      "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": POD,
                                           "uid": owner_uid, "controller": True}]},
         "spec": {"devices": {"requests": [request("req-1", CLASS, selectors=selectors)]}},
         "status": {}}
    if allocated:
        c["status"]["allocation"] = {"devices": {"results": [
            {"request": "req-1", "driver": DRIVER, "pool": WORKER, "device": "instance-1"}]},
            **({"nodeSelector": node_sel} if node_sel else {})}
    if reserved_for:
        c["status"]["reservedFor"] = [{"resource": "pods", "name": n, "uid": u}
                                      for n, u in reserved_for]
    return c


def setup(claims, classes=(MY_CLASS,), slices=(WORKER_SLICE,), features=DEFAULT_GATES):
    plugin, node_infos = setup_nodes(claims, classes, slices, features)
    return plugin, node_infos[0]


def setup_nodes(claims, classes=(MY_CLASS,), slices=(WORKER_SLICE,), features=DEFAULT_GATES,
                nodes=(WORKER,), args=None):
    """The plugin over the claims, classes and slices, and a NodeInfo per node name."""
    objects = ClusterObjects()
    for c in claims:
        objects.resource_claims[f"default/{c['metadata']['name']}"] = c
    objects.device_classes = {c["metadata"]["name"]: c for c in classes}
    objects.resource_slices = list(slices)
    snapshot = Snapshot.from_objects(
        [make_node(n, {"kubernetes.io/hostname": n}) for n in nodes], [])
    plugin = new(args or {}, FakeHandle(snapshot, objects, features=features))
    return plugin, [snapshot.get(n) for n in nodes]


def run(plugin, node_infos, p, *, before_prebind=None, unreserve_before_prebind=False):
    """PreEnqueue, PreFilter, Filter on each node (an Error ends the cycle), then PostFilter
    when no node passed, or Reserve on the first that did and PreBind, as testPlugin does;
    returns {point: (code, reasons)} for the points that ran ("filter/<node>" past the
    first node). before_prebind(claims) stands for Go's prepare.prebind."""
    node_infos = node_infos if isinstance(node_infos, list) else [node_infos]
    out = {}

    def record(point, status):
        out[point] = (Code.SUCCESS, []) if status is None else (status.code, status.reasons)
        return status is None or status.code == Code.SUCCESS
    if not record("preenqueue", plugin.pre_enqueue(p)):
        return out
    state = CycleState()
    _, status = plugin.pre_filter(state, p, node_infos)
    if not record("prefilter", status):
        if status.code == Code.SKIP:
            record("postfilter", plugin.post_filter(state, p, None)[1])
        return out
    passed = []
    for i, node_info in enumerate(node_infos):
        status = plugin.filter(state, p, node_info)
        if record("filter" if i == 0 else f"filter/{node_info.name}", status):
            passed.append(node_info.name)
        elif status.code == Code.ERROR:   # an error ends the cycle before PostFilter
            return out
    if not passed:
        record("postfilter", plugin.post_filter(state, p, None)[1])
        return out
    chosen = _score(plugin, state, p, [n for n in node_infos if n.name in passed], out)
    if not record("reserve", plugin.reserve(state, p, chosen)):
        return out
    if unreserve_before_prebind:
        plugin.unreserve(state, p, chosen)
        return out
    if before_prebind is not None:
        before_prebind(plugin.handle.objects.resource_claims)
    record("prebind", plugin.pre_bind(state, p, chosen))
    return out


def _score(plugin, state, p, passed: list, out: dict) -> str:
    """With more than one feasible node: Score, NormalizeScore and the highest (first on a
    tie) node, as testPlugin picks it; out gets "score" and "normalized" per node."""
    if len(passed) == 1:
        return passed[0].name
    scores = [NodeScore(n.name, plugin.score(state, p, n)[0]) for n in passed]
    out["score"] = {s.name: s.score for s in scores}
    assert plugin.normalize_score(state, p, scores) is None
    out["normalized"] = {s.name: s.score for s in scores}
    best = scores[0]
    for s in scores:
        if s.score > best.score:
            best = s
    return best.name


UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
# v1.37's cel.EnhanceRuntimeError after "no such key" (PR #136709).
HINT = ". Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields"
IN_USE = claim(allocated=True, reserved_for=[("other", "other-uid")] * 256)


@pytest.mark.parametrize("p,claims,want", [
    pytest.param(PodInfo({"metadata": {"name": "foo", "namespace": "default"},
                          "spec": {"containers": [{"name": "c"}]}}), [],
                 {"preenqueue": (Code.SUCCESS, []), "prefilter": (Code.SKIP, []),
                  "postfilter": (Code.UNSCHEDULABLE, [])},
                 id="empty"),
    pytest.param(pod(template=True, in_status=False), [claim(allocated=True)],
                 {"preenqueue": (UNRESOLVABLE,
                                 ['pod "default/my-pod": ResourceClaim not created yet'])},
                 id="missing-claim"),
    pytest.param(pod(), [], {"preenqueue": (UNRESOLVABLE, [
        'could not find ResourceClaim "default/my-pod-my-resource"'])},
                 id="claim reference to a claim that does not exist"),
    pytest.param(pod(template=True), [claim(owner_uid=UID + "123")],
                 {"preenqueue": (UNRESOLVABLE, [
                     "ResourceClaim default/my-pod-my-resource was not created for pod "
                     "default/my-pod (pod is not owner)"])}, id="wrong-claim"),
    pytest.param(pod(), [IN_USE],
                 {"preenqueue": (Code.SUCCESS, []),
                  "prefilter": (UNRESOLVABLE, ["resourceclaim in use"])}, id="in-use"),
    pytest.param(pod(), [claim()], {"preenqueue": (Code.SUCCESS, []),
                                    "prefilter": (Code.SUCCESS, []),
                                    "filter": (UNRESOLVABLE, ["cannot allocate all claims"]),
                                    "postfilter": (Code.UNSCHEDULABLE,
                                                   [])},
                 id="structured-no-resources"),
    pytest.param(pod(), [claim(allocated=True, node_sel={"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "no-such-label", "operator": "In",
                               "values": ["no-such-value"]}]}]})],
                 {"preenqueue": (Code.SUCCESS, []), "prefilter": (Code.SUCCESS, []),
                  "filter": (UNRESOLVABLE, ["resourceclaim not available on the node"]),
                  "postfilter": (Code.UNSCHEDULABLE,
                                 ["deallocation of ResourceClaim completed"])},
                 id="wrong-topology: the idle claim gets deallocated"),
    pytest.param(pod(), [claim(allocated=True, node_sel={"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                               "values": [WORKER]}]}]})],
                 {"preenqueue": (Code.SUCCESS, []), "prefilter": (Code.SUCCESS, []),
                  "filter": (Code.SUCCESS, []), "reserve": (Code.SUCCESS, []),
                  "prebind": (Code.SUCCESS, [])}, id="good-topology"),
    pytest.param(pod(), [claim(selectors=['device.attributes["some-driver"].nosuchattr'])],
                 {"preenqueue": (Code.SUCCESS, []), "prefilter": (Code.SUCCESS, []),
                  "filter": (Code.ERROR, [
                      "claim default/my-pod-my-resource: selector #0: CEL runtime error: no "
                      "such key: nosuchattr" + HINT])}, id="CEL-runtime-error"),
])
def test_plugin(p, claims, want, request):
    # Go's structured-no-resources case has no ResourceSlice at all.
    no_slices = request.node.callspec.id == "structured-no-resources"
    plugin, node_info = setup(claims, slices=() if no_slices else (WORKER_SLICE,))
    assert run(plugin, node_info, p) == want


def test_missing_class_is_unschedulable_at_prefilter():
    plugin, node_info = setup([claim()], classes=())
    assert run(plugin, node_info, pod())["prefilter"] == (
        UNRESOLVABLE, ["request req-1: device class my-resource-class does not exist"])


def test_deleted_claim_is_reported_at_preenqueue():
    c = claim(allocated=True)
    c["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    plugin, node_info = setup([c])
    assert run(plugin, node_info, pod(template=True))["preenqueue"] == (
        UNRESOLVABLE, ['resourceclaim "my-pod-my-resource" is being deleted'])


@pytest.mark.parametrize("template", [False, True], ids=["claim-reference", "claim-template"])
def test_allocated_claim_is_only_reserved_at_prebind(template):
    c = claim(allocated=True)
    plugin, node_info = setup([c])
    assert run(plugin, node_info, pod(template=template))["prebind"] == (Code.SUCCESS, [])
    assert c["status"]["reservedFor"] == [{"resource": "pods", "name": POD, "uid": UID}]


def test_structured_with_resources_allocates_at_reserve_and_writes_at_prebind():
    c = claim()
    plugin, node_info = setup([c])
    state, p = CycleState(), pod()
    plugin.pre_filter(state, p, [node_info])
    assert plugin.filter(state, p, node_info) is None
    assert plugin.reserve(state, p, WORKER) is None
    assert "allocation" not in c["status"]                  # only assumed, in flight
    assert list(plugin.in_flight) == ["default/my-pod-my-resource"]
    assert plugin.pre_bind(state, p, WORKER) is None
    assert c["status"]["allocation"]["devices"]["results"] == [
        {"request": "req-1", "driver": DRIVER, "pool": WORKER, "device": "instance-1"}]
    assert c["status"]["reservedFor"] == [{"resource": "pods", "name": POD, "uid": UID}]
    assert c["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
    assert plugin.in_flight == {}


def test_unreserve_drops_the_in_flight_allocation_and_the_reservation():
    c = claim()
    plugin, node_info = setup([c])
    state, p = CycleState(), pod()
    plugin.pre_filter(state, p, [node_info])
    plugin.filter(state, p, node_info)
    plugin.reserve(state, p, WORKER)
    plugin.pre_bind(state, p, WORKER)
    plugin.unreserve(state, p, WORKER)                     # as if Bind had failed
    assert c["status"]["reservedFor"] == []
    assert plugin.describe(state)["claims"][-1] == {"claim": "default/my-pod-my-resource",
                                                    "unreserved": "default/my-pod"}


def test_claim_being_allocated_for_another_pod_waits():
    c = claim()
    plugin, node_info = setup([c])
    state, p = CycleState(), pod()
    plugin.pre_filter(state, p, [node_info])
    plugin.filter(state, p, node_info)
    plugin.reserve(state, p, WORKER)                       # pod waits at Permit, say
    other = PodInfo({"metadata": {"name": "other", "namespace": "default", "uid": "o"},
                     "spec": {"containers": [{"name": "c"}],
                              "resourceClaims": [{"name": RESOURCE,
                                                  "resourceClaimName": CLAIM}]}})
    _, status = plugin.pre_filter(CycleState(), other, [node_info])
    assert (status.code, status.reasons) == (UNRESOLVABLE, [
        "resource claim default/my-pod-my-resource is in the process of being allocated"])


def test_postfilter_without_prefilter_state_is_an_error():
    plugin, _ = setup([])
    _, status = plugin.post_filter(CycleState(), pod(), None)
    assert (status.code, status.reasons) == (Code.ERROR, ["not found"])


def test_missing_class_of_a_subrequest_names_it_request_slash_subrequest():
    c = claim()
    c["spec"]["devices"]["requests"] = [{"name": "req-1", "firstAvailable": [
        {"name": "big", "deviceClassName": "no-such-class", "allocationMode": "ExactCount",
         "count": 1}]}]
    plugin, node_info = setup([c])
    assert run(plugin, node_info, pod())["prefilter"] == (
        UNRESOLVABLE, ["request req-1/big: device class no-such-class does not exist"])


def reserved_for_pod(c: dict):
    """Runs PreFilter, Filter and Reserve for pod() on the worker: (plugin, state, pod)."""
    plugin, node_info = setup([c])
    state, p = CycleState(), pod()
    plugin.pre_filter(state, p, [node_info])
    assert plugin.filter(state, p, node_info) is None
    assert plugin.reserve(state, p, WORKER) is None
    return plugin, state, p


@pytest.mark.parametrize("change,message", [
    pytest.param(lambda c: c["status"].update(allocation={"devices": {"results": []}}),
                 "claim default/my-pod-my-resource got allocated elsewhere in the meantime",
                 id="bind-failure: allocated elsewhere"),
    pytest.param(lambda c: c["metadata"].update(deletionTimestamp="2026-01-01T00:00:00Z"),
                 "claim default/my-pod-my-resource got deleted in the meantime",
                 id="bind-failure: deleted"),
])
def test_prebind_fails_when_the_claim_changed_since_reserve(change, message):
    c = claim()
    plugin, state, p = reserved_for_pod(c)
    change(c)
    status = plugin.pre_bind(state, p, WORKER)
    assert (status.code, status.reasons) == (Code.ERROR, [message])
    assert plugin.in_flight == {}  # the allocation is not in flight any more


def test_two_claims_need_two_devices():
    first = claim()
    second = {**claim(), "metadata": {**claim()["metadata"], "name": CLAIM + "-2"}}
    p = pod()
    p.obj["spec"]["resourceClaims"].append({"name": RESOURCE + "-2",
                                            "resourceClaimName": CLAIM + "-2"})
    plugin, node_info = setup([first, second])
    assert run(plugin, node_info, p)["filter"] == (UNRESOLVABLE, ["cannot allocate all claims"])
    two = resource_slice("worker-some-driver", WORKER, WORKER, DRIVER, device("instance-1"),
                         device("instance-2"))
    plugin, node_info = setup([first, second], slices=(two,))
    assert run(plugin, node_info, p)["prebind"] == (Code.SUCCESS, [])
    assert [c["status"]["allocation"]["devices"]["results"][0]["device"]
            for c in (first, second)] == ["instance-1", "instance-2"]


# --- more of TestPlugin (dynamicresources_test.go, resource.k8s.io/v1): the cases the plugin's
# points express on one node. Go's names; Go's "other" allocated claim takes instance-1 for
# another pod. The PostFilter no-op reasons are v1.37's (none, PR #140222); the last test
# checks them before v1.37.
OTHER = {"metadata": {"name": "other-claim", "namespace": "default"},
         "spec": {"devices": {"requests": [request("req-1", CLASS)]}},
         "status": {"allocation": {"devices": {"results": [
             {"request": "req-1", "driver": DRIVER, "pool": WORKER, "device": "instance-1"}]}},
             "reservedFor": [{"resource": "pods", "name": "other", "uid": "other-uid"}]}}
TAINT = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
TAINTED_SLICE = resource_slice("worker-some-driver", WORKER, WORKER, DRIVER,
                               {**device("instance-1"), "taints": [TAINT]})
OK = (Code.SUCCESS, [])
ALLOCATES = {"preenqueue": OK, "prefilter": OK, "filter": OK, "reserve": OK, "prebind": OK}


def admin(c: dict) -> dict:
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"]["adminAccess"] = True
    for r in ((c.get("status") or {}).get("allocation") or {}).get("devices", {}).get(
            "results", []):
        r["adminAccess"] = True
    return c


def with_class(c: dict, klass: str) -> dict:
    c["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = klass
    return c


def prioritized(klass=CLASS) -> dict:
    c = claim()
    c["spec"]["devices"]["requests"] = [{"name": "req-1", "firstAvailable": [
        {"name": "subreq-1", "deviceClassName": klass, "allocationMode": "ExactCount",
         "count": 1}]}]
    return c


def copy_of(c: dict) -> dict:
    import copy
    return copy.deepcopy(c)


@pytest.mark.parametrize("make_pod, claims, slices, features, want", [
    pytest.param(lambda: pod(), lambda: [claim(allocated=True, node_sel=local(WORKER)),
                                        copy_of(OTHER)],
                 (WORKER_SLICE,), DEFAULT_GATES, ALLOCATES, id="claim-reference"),
    pytest.param(lambda: pod(template=True),
                 lambda: [claim(allocated=True, node_sel=local(WORKER)), copy_of(OTHER)],
                 (WORKER_SLICE,), DEFAULT_GATES, ALLOCATES, id="claim-template"),
    pytest.param(lambda: pod(), lambda: [claim(reserved_for=[(POD, UID)], allocated=True)],
                 (WORKER_SLICE,), DEFAULT_GATES, ALLOCATES, id="reserved-okay"),
    pytest.param(lambda: pod(), lambda: [claim(), copy_of(OTHER)], (WORKER_SLICE,),
                 DEFAULT_GATES,
                 {"preenqueue": OK, "prefilter": OK,
                  "filter": (UNRESOLVABLE, ["cannot allocate all claims"]),
                  "postfilter": (Code.UNSCHEDULABLE, [])}, id="exhausted-resources"),
    pytest.param(lambda: pod(), lambda: [claim()], (TAINTED_SLICE,),
                 feature_gates("1.35"), ALLOCATES, id="tainted-device-disabled"),
    pytest.param(lambda: pod(), lambda: [claim()], (TAINTED_SLICE,), DEFAULT_GATES,
                 {"preenqueue": OK, "prefilter": OK,
                  "filter": (UNRESOLVABLE, ["cannot allocate all claims"]),
                  "postfilter": (Code.UNSCHEDULABLE, [])}, id="tainted-device-enabled"),
    pytest.param(lambda: pod(), lambda: [admin(claim()), copy_of(OTHER)], (WORKER_SLICE,),
                 DEFAULT_GATES, ALLOCATES,
                 id="request-admin-access-with-DRAAdminAccess-featuregate"),
    pytest.param(lambda: pod(), lambda: [admin(claim()), copy_of(OTHER)], (WORKER_SLICE,),
                 feature_gates("1.34", "DRAAdminAccess=false"),
                 {"preenqueue": OK, "prefilter": OK, "filter": (UNRESOLVABLE, [
                     "claim default/my-pod-my-resource, request req-1: admin access is "
                     "requested, but the feature is disabled"]),
                  "postfilter": (Code.UNSCHEDULABLE, ["still not schedulable"])},   # v1.34
                 id="request-admin-access-without-DRAAdminAccess-featuregate"),
    pytest.param(lambda: pod(), lambda: [claim(), admin(copy_of(OTHER))], (WORKER_SLICE,),
                 DEFAULT_GATES, ALLOCATES, id="structured-ignore-allocated-admin-access"),
    pytest.param(lambda: pod(), lambda: [with_class(claim(), "does-not-exist")],
                 (WORKER_SLICE,), DEFAULT_GATES,
                 {"preenqueue": OK, "prefilter": (UNRESOLVABLE, [
                     "request req-1: device class does-not-exist does not exist"])},
                 id="claim-with-request-with-unknown-device-class"),
    pytest.param(lambda: pod(), lambda: [prioritized()], (WORKER_SLICE,),
                 feature_gates("1.34", "DRAPrioritizedList=false"),
                 {"preenqueue": OK, "prefilter": (UNRESOLVABLE, [
                     "claim default/my-pod-my-resource, request req-1: has subrequests, but "
                     "the DRAPrioritizedList feature is disabled"])},
                 id="claim-with-prioritized-list-feature-disabled"),
    pytest.param(lambda: pod(), lambda: [prioritized()], (WORKER_SLICE,), DEFAULT_GATES,
                 ALLOCATES, id="claim-with-prioritized-list"),
])
def test_plugin_more(make_pod, claims, slices, features, want):
    plugin, node_info = setup(claims(), slices=slices, features=features)
    assert run(plugin, node_info, make_pod()) == want


def local(node_name: str) -> dict:
    return {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def test_class_parameters_cel_runtime_error():
    broken = device_class(CLASS, 'device.attributes["some-driver"].healthy')
    plugin, node_info = setup([claim()], classes=(broken,))
    assert run(plugin, node_info, pod())["filter"] == (Code.ERROR, [
        "class my-resource-class: selector #0: CEL runtime error: no such key: healthy" + HINT])


def test_claim_with_prioritized_list_allocates_the_subrequest():
    c = prioritized()
    plugin, node_info = setup([c])
    run(plugin, node_info, pod())
    assert c["status"]["allocation"]["devices"]["results"] == [
        {"request": "req-1/subreq-1", "driver": DRIVER, "pool": WORKER, "device": "instance-1"}]


@pytest.mark.parametrize("release, empty, exhausted", [
    ("1.34", ["no new claims to deallocate"], ["still not schedulable"]),
    ("1.36", ["no new claims to deallocate"], ["still not schedulable"]),
    ("1.37", [], []),
])
def test_postfilter_no_op_reasons_per_release(release, empty, exhausted):
    """"empty" and "exhausted-resources" at each release (PR #140222 in v1.37)."""
    no_claims = PodInfo({"metadata": {"name": "foo", "namespace": "default"},
                         "spec": {"containers": [{"name": "c"}]}})
    plugin, node_info = setup([claim(), copy_of(OTHER)], features=feature_gates(release))
    assert run(plugin, node_info, no_claims)["postfilter"] == (Code.UNSCHEDULABLE, empty)
    assert run(plugin, node_info, pod())["postfilter"] == (Code.UNSCHEDULABLE, exhausted)


# --- TestPlugin's finalizer, skip-bind, multi-node CEL and binding-condition cases
# (dynamicresources_test.go, resource.k8s.io/v1), Go's names and objects: allocatedClaim has
# Go's allocationResult (req-1, some-driver, pool worker, instance-1, local to worker);
# boundClaim's device reported both binding conditions, failedBindingClaim's failed.
FINALIZER = "resource.kubernetes.io/delete-protection"
DRIVER_2 = "some-driver-2"
BINDING = {"bindingConditions": ["condition"], "bindingFailureConditions": ["failed"]}
RUN_START = 4_000_000_000.0   # RUN_EPOCH: time.Now() of a FakeHandle at virtual second 0


def named(c: dict, name: str, request_name: str, driver: str, device_name: str) -> dict:
    """claim2 / allocatedClaim2: the second claim of podWithTwoClaimNames."""
    c["metadata"]["name"] = name
    c["spec"]["devices"]["requests"][0]["name"] = request_name
    for r in c["status"].get("allocation", {}).get("devices", {}).get("results", []):
        r.update(request=request_name, driver=driver, device=device_name)
    for d in c["status"].get("devices", []):
        d.update(driver=driver, device=device_name)
    return c


def with_binding(c: dict, *conditions, allocated_ago=None) -> dict:
    """allocationResultWithBindingConditions, the device's status with the given
    (type, status) conditions and, when allocated_ago is set, an allocationTimestamp that
    many seconds before the run's start."""
    allocation = c["status"]["allocation"]
    allocation["devices"]["results"][0].update(copy_of(BINDING))
    if allocated_ago is not None:
        allocation["allocationTimestamp"] = timestamp(RUN_START - allocated_ago)
    result = allocation["devices"]["results"][0]
    status = {"driver": result["driver"], "pool": result["pool"], "device": result["device"]}
    if conditions:
        status["conditions"] = [{"type": t, "status": v} for t, v in conditions]
    c["status"]["devices"] = [status]
    return c


def timestamp(seconds: float) -> str:
    from datetime import UTC, datetime
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def allocated_claim() -> dict:
    return claim(allocated=True, node_sel=local(WORKER))


def bound_claim() -> dict:
    return with_binding(allocated_claim(), ("condition", "True"), ("failed", "False"))


def failed_binding_claim() -> dict:
    return with_binding(allocated_claim(), ("condition", "False"), ("failed", "True"))


def fabric_slice(driver: str, device_name: str) -> dict:
    """fabricSlice: a device that binds to the node and has binding conditions."""
    s = resource_slice(f"worker-{driver}", WORKER, WORKER, driver,
                       {**device(device_name), "bindsToNode": True, **copy_of(BINDING)})
    del s["spec"]["nodeName"]
    s["spec"]["nodeSelector"] = local(WORKER)
    return s


def two_claims_pod() -> PodInfo:
    p = pod()
    p.obj["spec"]["resourceClaims"].append({"name": RESOURCE + "-2",
                                            "resourceClaimName": CLAIM + "-2"})
    return p


DEALLOCATED = (Code.UNSCHEDULABLE, ["deallocation of ResourceClaim completed"])
NOT_AVAILABLE = {"preenqueue": OK, "prefilter": OK,
                 "filter": (UNRESOLVABLE, ["resourceclaim not available on the node"]),
                 "postfilter": DEALLOCATED}
RESERVED = [{"resource": "pods", "name": POD, "uid": UID}]


def status_of(c: dict) -> dict:
    """The claim's status without allocationTimestamp, which Go's comparison ignores."""
    out = copy_of(c.get("status") or {})
    (out.get("allocation") or {}).pop("allocationTimestamp", None)
    return out


@pytest.mark.parametrize("before_prebind, finalizers", [
    pytest.param(None, [], id="with-resources"),
    pytest.param(None, [FINALIZER], id="with-resources-has-finalizer"),
    pytest.param(lambda claims: claims[f"default/{CLAIM}"]["metadata"].update(finalizers=[]),
                 [FINALIZER], id="with-resources-finalizer-gets-removed"),
    pytest.param(lambda claims: claims[f"default/{CLAIM}"]["metadata"].update(
        finalizers=[FINALIZER]), [], id="with-resources-finalizer-gets-added"),
])
def test_plugin_finalizer(before_prebind, finalizers):
    """PreBind adds the finalizer once, whatever happened to it since Reserve; the claim ends
    allocated (instance-1) and reserved for the pod."""
    c = claim()
    c["metadata"]["finalizers"] = list(finalizers)
    plugin, node_info = setup([c])
    assert run(plugin, node_info, pod(), before_prebind=before_prebind) == ALLOCATES
    assert c["metadata"]["finalizers"] == [FINALIZER]
    assert status_of(c) == {"allocation": {"devices": {"results": [
        {"request": "req-1", "driver": DRIVER, "pool": WORKER, "device": "instance-1"}]},
        "nodeSelector": local(WORKER)}, "reservedFor": RESERVED}
    assert plugin.in_flight == {}


def test_plugin_skip_bind():
    """skip-bind: Unreserve before PreBind (another PreBind plugin failed) drops the
    in-flight allocation and leaves the claim as it was."""
    c = claim()
    plugin, node_info = setup([c])
    out = run(plugin, node_info, pod(), unreserve_before_prebind=True)
    assert out["reserve"] == OK and "prebind" not in out
    assert plugin.in_flight == {}
    assert c["status"] == {} and "finalizers" not in c["metadata"]


def test_plugin_cel_runtime_error_for_one_of_two_nodes():
    """CEL-runtime-error-for-one-of-two-nodes: worker's device lacks the attribute, so Filter
    errors there and the cycle ends; worker-2 (healthy) is never tried."""
    healthy = resource_slice("worker-2-some-driver", "worker-2", "worker-2", DRIVER,
                             device("instance-1", {"healthy": True}))
    plugin, node_infos = setup_nodes(
        [claim(selectors=['device.attributes["some-driver"].healthy'])],
        slices=(WORKER_SLICE, healthy), nodes=(WORKER, "worker-2"))
    assert run(plugin, node_infos, pod()) == {
        "preenqueue": OK, "prefilter": OK, "filter": (Code.ERROR, [
            "claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: "
            "healthy" + HINT])}


@pytest.mark.parametrize("claims, slices, want, after", [
    pytest.param(lambda: [bound_claim()], (), ALLOCATES,
                 [("my-pod-my-resource", RESERVED)],
                 id="bound-claim-with-succeeded-binding-conditions"),
    pytest.param(lambda: [failed_binding_claim()], (WORKER_SLICE,), NOT_AVAILABLE,
                 [("my-pod-my-resource", None)], id="bound-claim-with-failed-binding"),
    # Go: allocated time.Now()-10m, so 10m of bindingTimeout have passed when Filter runs; the
    # virtual clock stands still, so one more second makes "before now" hold.
    pytest.param(lambda: [with_binding(allocated_claim(), allocated_ago=601)], (),
                 NOT_AVAILABLE, [("my-pod-my-resource", None)],
                 id="bound-claim-with-timed-out-binding"),
    pytest.param(lambda: [with_binding(allocated_claim(), ("condition1", "True"),
                                       ("condition2", "False"), allocated_ago=601)], (),
                 NOT_AVAILABLE, [("my-pod-my-resource", None)],
                 id="bound-claim-with-mixed-binding-conditions"),
    pytest.param(lambda: [allocated_claim()], (), ALLOCATES,
                 [("my-pod-my-resource", RESERVED)],
                 id="bound-claim-without-binding-conditions"),
    pytest.param(lambda: [bound_claim(), named(bound_claim(), CLAIM + "-2", "req-2", DRIVER_2,
                                               "instance-2")],
                 (fabric_slice(DRIVER, "instance-1"), fabric_slice(DRIVER_2, "instance-2")),
                 ALLOCATES, [("my-pod-my-resource", RESERVED),
                             ("my-pod-my-resource-2", RESERVED)],
                 id="multi-claims-binding-conditions-all-success"),
    pytest.param(lambda: [bound_claim(), named(failed_binding_claim(), CLAIM + "-2", "req-2",
                                               DRIVER_2, "instance-2")],
                 (fabric_slice(DRIVER, "instance-1"), fabric_slice(DRIVER_2, "instance-2")),
                 NOT_AVAILABLE, [("my-pod-my-resource", "unchanged"),
                                 ("my-pod-my-resource-2", None)],
                 id="multi-claims-binding-conditions-one-fail"),
])
def test_plugin_binding_conditions(claims, slices, want, after):
    """after: per claim, its reservedFor once the cycle ran, or None when PostFilter
    deallocated it (allocation and device status gone), or "unchanged"."""
    objects = claims()
    before = copy_of(objects)
    # Go's pods: podWithTwoClaimNames for two claims; bound-claim-without-binding-conditions
    # has podWithClaimTemplateInStatus, the others podWithClaimName.
    p = two_claims_pod() if len(objects) == 2 else pod(template=binding_free(objects[0]))
    plugin, node_info = setup(objects, slices=slices)
    assert run(plugin, node_info, p) == want
    for (name, reserved), c, old in zip(after, objects, before):
        assert c["metadata"]["name"] == name
        if reserved == "unchanged":
            assert c == old
        elif reserved is None:
            assert "allocation" not in c["status"] and "devices" not in c["status"]
        else:
            assert c["status"]["reservedFor"] == reserved
            assert c["status"]["allocation"]["allocationTimestamp"] == timestamp(RUN_START)


def binding_free(c: dict) -> bool:
    return not binding.waits_on(c)


def test_plugin_prebind_fail_with_binding_timeout():
    """prebind-fail-with-binding-timeout: allocated 590 s before, bindingTimeout 600 s; the
    claim is not timed out at Filter, and PreBind's poll finds it timed out once 10 s have
    passed (the poll every 5 s, in virtual time): "claim <name> binding timeout"."""
    c = with_binding(allocated_claim(), allocated_ago=590)
    plugin, node_infos = setup_nodes([c], slices=(), args={"bindingTimeout": "600s"})
    state, p = CycleState(), pod()
    assert plugin.pre_filter(state, p, node_infos)[1] is None
    assert plugin.filter(state, p, node_infos[0]) is None
    assert plugin.reserve(state, p, WORKER) is None
    status = plugin.pre_bind(state, p, WORKER)
    assert status.code == Code.WAIT
    waited = 0.0
    while status is not None and status.code == Code.WAIT:
        waited += plugin.pre_bind_poll_delay(waited)
        plugin.handle._now = waited
        status = plugin.pre_bind_poll(state, p, WORKER, waited)
    assert (status.code, status.reasons, waited) == (
        Code.ERROR, ["claim my-pod-my-resource binding timeout"], 15.0)
    assert c["status"]["reservedFor"] == RESERVED


# --- TestPlugin's prioritized-list scoring cases (v1.35+ Score, PR #134711), the filter-
# timeout variants that allocate, and "empty" with DRAExtendedResource on.
def subrequests(name: str, *subs) -> dict:
    """st.RequestWithPrioritizedList: (subrequest name, count[, selector]) each."""
    return {"name": name, "firstAvailable": [
        {"name": n, "deviceClassName": CLASS, "allocationMode": "ExactCount", "count": count,
         **({"selectors": [{"cel": {"expression": rest[0]}}]} if rest else {})}
        for n, count, *rest in subs]}


def pending(name: str, *requests) -> dict:
    c = claim()
    c["metadata"]["name"] = name
    c["spec"]["devices"]["requests"] = list(requests)
    return c


def node_slice(node_name: str, *devices) -> dict:
    return resource_slice(f"{node_name}-some-driver", node_name, node_name, DRIVER, *devices)


def instances(n: int) -> list[dict]:
    return [device(f"instance-{i}") for i in range(1, n + 1)]


HEALTHY = 'device.attributes["some-driver"].healthy'
NODES_3 = (WORKER, "worker-2", "worker-3")


@pytest.mark.parametrize("claims, slices, nodes, two, want_score, want_normalized, results", [
    pytest.param(
        lambda: [pending(CLAIM, subrequests("req-1", ("subreq-1", 1, HEALTHY),
                                            ("subreq-2", 1)))],
        (node_slice(WORKER, device("instance-1", {"healthy": True})),
         node_slice("worker-2", device("instance-1", {"healthy": False}))),
        (WORKER, "worker-2"), False, {WORKER: 8, "worker-2": 7}, {WORKER: 100, "worker-2": 87},
        [["req-1/subreq-1"]], id="single-claim-prioritized-list-scoring"),
    pytest.param(
        lambda: [pending(CLAIM, subrequests("req-1", ("subreq-1", 1))),
                 pending(CLAIM + "-2", subrequests("req-1", ("subreq-1", 4), ("subreq-2", 3),
                                                   ("subreq-3", 2), ("subreq-4", 1)))],
        (node_slice(WORKER, *instances(4)), node_slice("worker-2", *instances(2)),
         node_slice("worker-3", *instances(1))),
        NODES_3, True, {WORKER: 15, "worker-2": 13}, {WORKER: 100, "worker-2": 86},
        [["req-1/subreq-1"], ["req-1/subreq-2"] * 3],
        id="multiple-claims-prioritized-list-scoring"),
    pytest.param(
        lambda: [pending(CLAIM, subrequests("req-1", ("subreq-1", 2), ("subreq-2", 1)),
                         subrequests("req-2", ("subreq-1", 2), ("subreq-2", 1)))],
        (node_slice(WORKER, *instances(4)), node_slice("worker-2", *instances(3)),
         node_slice("worker-3", *instances(2))),
        NODES_3, False, {WORKER: 16, "worker-2": 15, "worker-3": 14},
        {WORKER: 100, "worker-2": 93, "worker-3": 87},
        [["req-1/subreq-1"] * 2 + ["req-2/subreq-1"] * 2],
        id="multiple-requests-prioritized-list-scoring"),
])
def test_plugin_prioritized_list_scoring(claims, slices, nodes, two, want_score,
                                         want_normalized, results):
    """Score gives 8 - i for the i-th subrequest taken; the pod goes to worker; worker-3 of the
    multiple-claims case cannot allocate both claims."""
    objects = claims()
    plugin, node_infos = setup_nodes(objects, slices=slices, nodes=nodes)
    out = run(plugin, node_infos, two_claims_pod() if two else pod())
    assert (out["score"], out["normalized"]) == (want_score, want_normalized)
    if two:
        assert out["filter/worker-3"] == (UNRESOLVABLE, ["cannot allocate all claims"])
    assert out["prebind"] == OK
    assert [[r["request"] for r in c["status"]["allocation"]["devices"]["results"]]
            for c in objects] == results
    assert all(c["status"]["allocation"]["nodeSelector"] == local(WORKER) for c in objects)


@pytest.mark.parametrize("args, features", [
    pytest.param({"filterTimeout": "0s"}, DEFAULT_GATES, id="timeout_zero"),
    pytest.param({}, feature_gates("1.37", "DRASchedulerFilterTimeout=false"),
                 id="timeout_disabled"),
])
def test_plugin_filter_timeout_variants_allocate(args, features):
    c = claim()
    plugin, node_infos = setup_nodes([c], args=args, features=features)
    assert run(plugin, node_infos, pod()) == ALLOCATES
    assert c["status"]["reservedFor"] == RESERVED


@pytest.mark.parametrize("release", [
    pytest.param("1.34", id="empty"),   # DRAExtendedResource off (alpha) in v1.34
    pytest.param("1.37", id="empty-with-extended-resources-enabled"),
])
def test_plugin_empty(release):
    """A pod without claims: PreFilter skips, PostFilter has nothing to deallocate (no reason
    from v1.37, PR #140222) and PreBindPreFlight skips."""
    plugin, node_info = setup([], features=feature_gates(release))
    p = PodInfo({"metadata": {"name": "foo", "namespace": "default"},
                 "spec": {"containers": [{"name": "c"}]}})
    state = CycleState()
    assert plugin.pre_filter(state, p, [node_info])[1].code == Code.SKIP
    assert plugin.post_filter(state, p, None)[1].code == Code.UNSCHEDULABLE
    assert plugin.pre_bind_pre_flight(state, p, WORKER).code == Code.SKIP


# --- TestPlugin's extended-resource-* cases (DRAExtendedResource): example.com/gpu backed by
# my-resource-class (deviceClassWithExtendResourceName). Go's metrics checks
# (scheduler_resourceclaim_creates_total) have no engine equivalent and are not ported.
GPU, GPU2 = "example.com/gpu", "example.com/gpu2"


def gpu_class(name=CLASS, resource=GPU) -> dict:
    return {**device_class(name), "spec": {"extendedResourceName": resource}}


def gpu_pod(*requests: dict) -> PodInfo:
    """podWithExtendedResourceName...: one container per request map."""
    return PodInfo({"metadata": {"name": POD, "namespace": "default", "uid": UID},
                    "spec": {"containers": [{"name": f"c{i}", "resources": {"requests": r}}
                                            for i, r in enumerate(requests)]}})


def gpu_node(name=WORKER, amount=None):
    n = make_node(name, {"kubernetes.io/hostname": name})
    if amount is not None:
        n["status"]["allocatable"][GPU] = amount
        n["status"].setdefault("capacity", {})[GPU] = amount
    return n


def setup_extended(classes, slices=(WORKER_SLICE,), claims=(), node_amount=None):
    objects = ClusterObjects()
    for c in claims:
        objects.resource_claims[f"default/{c['metadata']['name']}"] = c
    objects.device_classes = {c["metadata"]["name"]: c for c in classes}
    objects.resource_slices = list(slices)
    snapshot = Snapshot.from_objects([gpu_node(amount=node_amount)], [])
    return new({}, FakeHandle(snapshot, objects, features=DEFAULT_GATES)), snapshot.get(WORKER)


def extended_claims(plugin) -> list[dict]:
    return [c for c in plugin.handle.objects.resource_claims.values()
            if (c["metadata"].get("annotations") or {}).get(
                "resource.kubernetes.io/extended-resource-claim") == "true"]


def created_requests(plugin) -> list[tuple]:
    """(request, device) of the extended resource claims PreBind created, reserved for the
    pod, named my-pod-extended-resources-<suffix>."""
    out = []
    for c in extended_claims(plugin):
        assert c["metadata"]["name"].startswith("my-pod-extended-resources-")
        assert c["status"]["reservedFor"] == RESERVED
        results = c["status"]["allocation"]["devices"]["results"]
        out += [(r["request"], r["device"]) for r in results]
    return out


ALLOCATED_ON_2 = {"metadata": {
    "name": "my-pod-extended-resources-0", "namespace": "default",
    "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
    "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": UID,
                         "controller": True}]},
    "spec": {"devices": {"requests": [request("container-0-request-0", CLASS)]}},
    "status": {}}


@pytest.mark.parametrize("p, classes, slices, node_amount, want, created", [
    pytest.param(gpu_pod({GPU: "1"}), [gpu_class()], (), "1", ALLOCATES, [],
                 id="extended-resource-name-with-node-resource"),
    pytest.param(gpu_pod({GPU: "1", GPU2: "1"}), [gpu_class(), gpu_class(CLASS + "2", GPU2)],
                 (resource_slice("worker-some-driver", WORKER, WORKER, DRIVER,
                                 device("instance-1")),), "1", ALLOCATES,
                 [("container-0-request-1", "instance-1")],
                 id="extended-resource-one-device-plugin-one-dra"),
    pytest.param(gpu_pod({GPU: "1"}), [gpu_class()], (WORKER_SLICE,), "0", ALLOCATES,
                 [("container-0-request-0", "instance-1")],
                 id="extended-resource-name-with-zero-allocatable"),
    pytest.param(gpu_pod({GPU: "1"}), [MY_CLASS], (WORKER_SLICE,), "0",
                 {"preenqueue": OK, "prefilter": (Code.SKIP, []),
                  "postfilter": (Code.UNSCHEDULABLE, [])}, [],
                 id="non-DRA-extended-resource-name-with-zero-allocatable"),
    pytest.param(gpu_pod({GPU: "1"}), [gpu_class()], (), None,
                 {"preenqueue": OK, "prefilter": OK,
                  "filter": (UNRESOLVABLE, ["cannot allocate all claims"]),
                  "postfilter": (Code.UNSCHEDULABLE, [])}, [],
                 id="extended-resource-name-no-resource"),
    pytest.param(gpu_pod({GPU: "1"}), [gpu_class()], (WORKER_SLICE,), None, ALLOCATES,
                 [("container-0-request-0", "instance-1")],
                 id="extended-resource-name-with-resources"),
    pytest.param(gpu_pod({f"deviceclass.resource.kubernetes.io/{CLASS}": "1", GPU: "2"}),
                 [gpu_class()], (node_slice(WORKER, *instances(4)),), None, ALLOCATES,
                 [("container-0-request-0", "instance-1"), ("container-0-request-1",
                                                            "instance-2"),
                  ("container-0-request-1", "instance-3")],
                 id="implicit-extended-resource-name-with-resources"),
    pytest.param(gpu_pod({f"deviceclass.resource.kubernetes.io/{CLASS}": "1"}, {GPU: "2"}),
                 [gpu_class()], (node_slice(WORKER, *instances(4)),), None, ALLOCATES,
                 [("container-0-request-0", "instance-1"), ("container-1-request-0",
                                                            "instance-2"),
                  ("container-1-request-0", "instance-3")],
                 id="implicit-extended-resource-name-two-containers-with-resources"),
])
def test_plugin_extended_resources(p, classes, slices, node_amount, want, created):
    """The v1.37 PostFilter no-op reasons are empty (PR #140222); Go's table has v1.36's
    ("still not schedulable")."""
    plugin, node_info = setup_extended(classes, slices, node_amount=node_amount)
    assert run(plugin, node_info, p) == want
    assert sorted(created_requests(plugin)) == sorted(created)


@pytest.mark.parametrize("existing", [
    pytest.param(lambda: copy_of(ALLOCATED_ON_2) | {"status": {"allocation": {
        "devices": {"results": [{"request": "container-0-request-0", "driver": DRIVER,
                                 "pool": WORKER, "device": "instance-1"}]}}}},
        id="extended-resource-name-with-resources-has-claim"),
    pytest.param(lambda: copy_of(ALLOCATED_ON_2) | {"status": {"allocation": {
        "devices": {"results": [{"request": "container-0-request-0", "driver": DRIVER,
                                 "pool": WORKER, "device": "instance-1"}]},
        "nodeSelector": local("worker-2")}}},
        id="extended-resource-name-with-resources-delete-claim"),
])
def test_plugin_extended_resource_claim_of_an_earlier_cycle_is_deleted(existing):
    plugin, node_info = setup_extended([gpu_class()], claims=[existing()])
    assert run(plugin, node_info, gpu_pod({GPU: "1"})) == {
        "preenqueue": OK, "prefilter": OK,
        "filter": (UNRESOLVABLE, ["cannot schedule extended resource claim"]),
        "postfilter": (Code.UNSCHEDULABLE, ["deletion of ResourceClaim completed"])}
    assert extended_claims(plugin) == []


def test_plugin_extended_resource_name_bind_failure():
    """extended-resource-name-bind-failure: Unreserve after PreBind (Bind failed) deletes the
    claim PreBind created."""
    plugin, node_info = setup_extended([gpu_class()])
    state, p = CycleState(), gpu_pod({GPU: "1"})
    plugin.pre_filter(state, p, [node_info])
    assert plugin.filter(state, p, node_info) is None
    assert plugin.reserve(state, p, WORKER) is None
    assert plugin.pre_bind(state, p, WORKER) is None
    assert len(extended_claims(plugin)) == 1
    plugin.unreserve(state, p, WORKER)
    assert extended_claims(plugin) == [] and plugin.in_flight == {}


def test_plugin_extended_resource_name_skip_bind():
    """extended-resource-name-skip-bind: Unreserve before PreBind leaves no claim behind."""
    plugin, node_info = setup_extended([gpu_class()])
    out = run(plugin, node_info, gpu_pod({GPU: "1"}), unreserve_before_prebind=True)
    assert out["reserve"] == OK and "prebind" not in out
    assert extended_claims(plugin) == [] and plugin.in_flight == {}


# --- TestPlugin cases the engine cannot express, reported as skipped with the reason.
NO_API = "the engine writes objects in memory: there is no API server call that can fail"
SKIPPED = {
    "DRA-disabled": "DynamicResourceAllocation is GA and locked on in v1.34-v1.37; the engine "
                    "refuses to turn it off, as kube-scheduler does",
    "canceled": "the engine's Filter has no context that a caller could cancel",
    "timeout": "the engine's Filter is not bounded by wall-clock time: filterTimeout is "
               "accepted but never cuts it short (args.py)",
    "extended-resource-name-with-resources-fail-patch": NO_API,
    "extended-resource-name-claim-creation-failure": NO_API,
    "CEL-runtime-error-for-one-of-three-nodes": (
        "its Filter (UnschedulableAndUnresolvable per node) and PreScore ('filter node worker: "
        "...') expectations come from a plugin version whose source is not in the stored "
        "index; the stored dynamicresources.go ends the cycle with an error at Filter, as the "
        "engine does (CEL-runtime-error-for-one-of-two-nodes is ported)"),
}


@pytest.mark.parametrize("reason", [pytest.param(r, id=n) for n, r in SKIPPED.items()])
def test_not_expressible(reason):
    pytest.skip(reason)
