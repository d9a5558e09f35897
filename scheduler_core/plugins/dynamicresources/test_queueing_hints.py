"""DynamicResources' QueueingHints, ported from dynamicresources_test.go
(TestIsSchedulableAfterClaimChange, TestIsSchedulableAfterPodChange), and the claim updates the
plugin reports as cluster events."""
from __future__ import annotations

import copy

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.framework.types import PodInfo

from .test_dynamicresources import CLAIM, RESOURCE, UID, WORKER, claim, pod, setup


def with_status(c: dict, **status) -> dict:
    c = copy.deepcopy(c)
    c["status"] = {**c["status"], **status}
    return c


OTHER = {**claim(), "metadata": {"name": "not-my-claim", "namespace": "default"}}
ALLOCATED = claim(allocated=True)


@pytest.mark.parametrize("claims,old,new,want", [
    pytest.param([claim()], None, OTHER, QUEUE_SKIP, id="skip-unrelated-claim"),
    pytest.param([claim()], None, claim(), QUEUE, id="queue-on-add"),
    pytest.param([], None, OTHER, QUEUE_SKIP, id="pod claim still missing"),
    pytest.param([claim()], claim(),
                 {**claim(), "metadata": {**claim()["metadata"], "finalizers": ["x"]}},
                 QUEUE_SKIP, id="skip-adding-finalizer"),
    pytest.param([claim()], claim(), with_status(claim(), reservedFor=[{"uid": "x"}]), QUEUE,
                 id="queue-on-status-change"),
    pytest.param([claim()], {**ALLOCATED, "metadata": OTHER["metadata"]}, OTHER, QUEUE,
                 id="structured-claim-deallocate"),
])
def test_is_schedulable_after_claim_change(claims, old, new, want):
    plugin, _ = setup(claims)
    assert plugin.is_schedulable_after_claim_change(pod(), old, new) == want


def pod_with_status(uid: str, claim_name: str | None) -> PodInfo:
    p = pod(template=True, in_status=claim_name is not None)
    p.obj["metadata"]["uid"] = uid
    return PodInfo(p.obj)


@pytest.mark.parametrize("modified,want", [
    pytest.param(pod_with_status("other", CLAIM), QUEUE_SKIP, id="other pod"),
    pytest.param(pod_with_status(UID, None), QUEUE_SKIP, id="claim not named yet"),
    pytest.param(pod_with_status(UID, CLAIM), QUEUE, id="claim named and present"),
])
def test_is_schedulable_after_pod_change(modified, want):
    plugin, _ = setup([claim()])
    waiting = pod(template=True, in_status=False)
    assert plugin.is_schedulable_after_pod_change(waiting, None, modified) == want


def test_every_registered_event_has_go_s_hint_or_none():
    plugin, _ = setup([])
    hints = plugin.queueing_hints()
    assert set(hints) == plugin.events_to_register()
    assert {e for e, fn in hints.items() if fn is not None} == {
        "ResourceClaimAdd", "ResourceClaimUpdate", "UnscheduledPodUpdate"}


def test_prebind_and_postfilter_report_their_claim_updates():
    c = claim()
    plugin, node_info = setup([c])
    state, p = CycleState(), pod()
    plugin.pre_filter(state, p, [node_info])
    plugin.filter(state, p, node_info)
    plugin.reserve(state, p, WORKER)
    plugin.pre_bind(state, p, WORKER)
    ((event, old, new),) = plugin.handle.cluster_events
    assert (event, old["status"], new["status"]["reservedFor"]) == (
        "ResourceClaimUpdate", {}, [{"resource": "pods", "name": "my-pod", "uid": UID}])
    # Its own update moves a pod waiting on that claim; a deallocation moves anyone.
    assert plugin.is_schedulable_after_claim_change(p, old, new) == QUEUE

    unavailable = claim(allocated=True, node_sel={"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "no-such-label", "operator": "In", "values": ["x"]}]}]})
    plugin, node_info = setup([unavailable])
    state = CycleState()
    plugin.pre_filter(state, p, [node_info])
    plugin.filter(state, p, node_info)
    plugin.post_filter(state, p, None)
    ((event, old, new),) = plugin.handle.cluster_events
    assert "allocation" in old["status"] and "allocation" not in new["status"]
    other_pod = PodInfo({"metadata": {"name": "o", "namespace": "default", "uid": "o"},
                         "spec": {"containers": [{"name": "c"}], "resourceClaims": [
                             {"name": RESOURCE, "resourceClaimName": CLAIM}]}})
    assert plugin.is_schedulable_after_claim_change(other_pod, old, new) == QUEUE
