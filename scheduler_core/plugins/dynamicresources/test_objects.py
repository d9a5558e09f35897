"""The resourceclaim controller's part: template claims for a pod, and what a pod's deletion
does to the claims it reserved (pkg/controller/resourceclaim)."""
from __future__ import annotations

from scheduler_core.framework.handle import ClusterObjects

from .objects import create_template_claims, release_claims


def pod(name: str, **claim) -> dict:
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"resourceClaims": [{"name": "gpu", **claim}]}}


def allocated(name: str, *consumers: str, owner: str | None = None) -> dict:
    meta = {"name": name, "namespace": "default"}
    if owner:
        meta["ownerReferences"] = [{"kind": "Pod", "name": owner, "uid": f"uid-{owner}",
                                    "controller": True}]
    return {"metadata": meta, "spec": {},
            "status": {"allocation": {"devices": {"results": []}},
                       "reservedFor": [{"resource": "pods", "name": c, "uid": f"uid-{c}"}
                                       for c in consumers]}}


def test_template_claim_is_named_owned_and_recorded_in_the_pod_status():
    objects = ClusterObjects()
    objects.resource_claim_templates["default/t"] = {
        "metadata": {"name": "t", "namespace": "default"},
        "spec": {"metadata": {"labels": {"team": "a"}}, "spec": {"devices": {"requests": []}}}}
    p = pod("train", resourceClaimTemplateName="t")
    create_template_claims(objects, p)
    ((key, claim),) = objects.resource_claims.items()
    name = claim["metadata"]["name"]
    assert key == f"default/{name}" and name.startswith("train-gpu-") and len(name) == 15
    assert set(name[-5:]) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert claim["metadata"]["labels"] == {"team": "a"}
    assert claim["metadata"]["annotations"] == {"resource.kubernetes.io/pod-claim-name": "gpu"}
    assert claim["metadata"]["ownerReferences"][0]["uid"] == "uid-train"
    assert p["status"]["resourceClaimStatuses"] == [{"name": "gpu", "resourceClaimName": name}]
    create_template_claims(objects, p)  # done once only
    assert len(objects.resource_claims) == 1


def test_long_names_are_cut_in_proportion():
    objects = ClusterObjects()
    objects.resource_claim_templates["default/t"] = {
        "metadata": {"name": "t", "namespace": "default"}, "spec": {"spec": {}}}
    p = pod("p" * 60)
    p["spec"]["resourceClaims"] = [{"name": "c" * 30, "resourceClaimTemplateName": "t"}]
    create_template_claims(objects, p)
    (claim,) = objects.resource_claims.values()
    assert len(claim["metadata"]["name"]) <= 63


def test_a_shared_claim_stays_allocated_until_its_last_consumer_is_gone():
    objects = ClusterObjects()
    shared = objects.resource_claims["default/shared"] = allocated("shared", "a", "b")
    (change,) = release_claims(objects, pod("a"))
    assert change[1] is shared and shared["status"]["reservedFor"][0]["name"] == "b"
    assert "allocation" in shared["status"]
    release_claims(objects, pod("b"))
    assert shared["status"] == {}
    assert release_claims(objects, pod("c")) == []


def test_a_generated_claim_goes_with_its_pod():
    objects = ClusterObjects()
    objects.resource_claims["default/a-gpu-xxxxx"] = allocated("a-gpu-xxxxx", "a", owner="a")
    ((old, new),) = release_claims(objects, pod("a"))
    assert "allocation" in old["status"] and new["status"] == {}
    assert objects.resource_claims == {}
