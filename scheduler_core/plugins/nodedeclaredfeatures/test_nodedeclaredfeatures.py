"""NodeDeclaredFeatures, ported from nodedeclaredfeatures_test.go (TestPreFilter, TestFilter,
TestEnqueueExtensionsNodeUpdate, TestIsSchedulableAfterTargetPodUpdate, TestEventsToRegister);
the features are stand-ins, as Go's MockFeature."""
from __future__ import annotations

import pytest

from scheduler_core.features import feature_gates
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeInfo, PodInfo

from . import (
    ERR_REASON_UNSATISFIED_REQUIREMENTS,
    PRE_FILTER_STATE_KEY,
    NodeDeclaredFeatures,
    is_schedulable_after_node_change,
    new,
)
from .registry import DeclaredFeature, infer_for_pod_scheduling, registry_at


def mock(name: str, infer, max_minor: int | None = None) -> DeclaredFeature:
    return DeclaredFeature(name, infer if callable(infer) else (lambda spec: infer), 35,
                           max_minor)


def pod(**spec) -> PodInfo:
    return PodInfo({"metadata": {"name": "test-pod", "namespace": "default", "uid": "123"},
                    "spec": {"containers": [{"name": "c"}], **spec}})


def node(*features: str) -> NodeInfo:
    status = {"declaredFeatures": list(features)} if features else {}
    return NodeInfo({"metadata": {"name": "node-1"}, "status": status})


@pytest.mark.parametrize("enabled,minor,registry,want_code,want_reqs", [
    pytest.param(False, 35, [mock("TestFeature1", True), mock("TestFeature2", False)],
                 Code.SKIP, None, id="plugin disabled"),
    pytest.param(True, 35, [mock("TestFeature1", True), mock("TestFeature2", False)],
                 Code.SUCCESS, {"TestFeature1"}, id="Pod with feature requirements"),
    pytest.param(True, 35, [mock("TestFeature1", True, 38), mock("TestFeature2", True, 38)],
                 Code.SUCCESS, {"TestFeature1", "TestFeature2"},
                 id="Pod with multiple feature requirements"),
    pytest.param(True, 35, [mock("TestFeature1", False), mock("TestFeature2", False)],
                 Code.SKIP, None, id="Pod with no requirements"),
    pytest.param(True, 34, [mock("TestFeature1", True, 33), mock("TestFeature2", False)],
                 Code.SKIP, None, id="Feature not required, version > MaxVersion"),
])
def test_pre_filter(enabled, minor, registry, want_code, want_reqs):
    state = CycleState()
    result, status = NodeDeclaredFeatures(enabled, minor, registry).pre_filter(state, pod(), [])
    assert result is None
    assert (status.code if status else Code.SUCCESS) == want_code
    assert state.get(PRE_FILTER_STATE_KEY) == (frozenset(want_reqs) if want_reqs else None)


@pytest.mark.parametrize("enabled,declared,reqs,want", [
    pytest.param(False, ("FeatureA", "FeatureB"), None, None, id="plugin disabled"),
    pytest.param(True, ("FeatureA", "FeatureB"), {"FeatureA"}, None,
                 id="Node matches requirements"),
    pytest.param(True, ("FeatureB",), {"FeatureA"}, ERR_REASON_UNSATISFIED_REQUIREMENTS,
                 id="Node does not match requirements"),
    pytest.param(True, ("FeatureA", "FeatureB", "FeatureC"), {"FeatureA", "FeatureC"}, None,
                 id="Node with multiple features, pod requires subset"),
    pytest.param(True, (), {"FeatureA"}, ERR_REASON_UNSATISFIED_REQUIREMENTS,
                 id="Node has no declared features"),
    pytest.param(True, ("FeatureA",), {"FeatureA", "FeatureB"},
                 ERR_REASON_UNSATISFIED_REQUIREMENTS,
                 id="Node with some but not all required features"),
])
def test_filter(enabled, declared, reqs, want):
    state = CycleState()
    if reqs is not None:
        state.write(PRE_FILTER_STATE_KEY, frozenset(reqs))
    status = NodeDeclaredFeatures(enabled, 35).filter(state, pod(), node(*declared))
    if want is None:
        assert status is None
    else:
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [want])


def test_filter_without_the_pre_filter_state_is_an_error():
    """Error getting pre-filter state."""
    status = NodeDeclaredFeatures(True, 35).filter(CycleState(), pod(), node())
    assert status.code == Code.ERROR
    assert status.message() == (f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: '
                                f'not found')


@pytest.mark.parametrize("old,new_node,want", [
    pytest.param(None, node("FeatureA").node, QUEUE, id="Node Add with feature"),
    pytest.param(node().node, node("FeatureA").node, QUEUE, id="Node Update (Features Added)"),
    pytest.param(node("FeatureA").node, node("FeatureA").node, QUEUE_SKIP,
                 id="Node Update (Features Unchanged)"),
])
def test_enqueue_extensions_node_update(old, new_node, want):
    assert is_schedulable_after_node_change(pod(), old, new_node) == want


@pytest.mark.parametrize("old_label,new_label,want", [
    pytest.param(False, True, QUEUE, id="Pod Update adds requirement"),
    pytest.param(True, False, QUEUE, id="Pod Update removes requirement"),
    pytest.param(False, False, QUEUE_SKIP, id="Pod Update with no change in requirements"),
])
def test_is_schedulable_after_target_pod_update(old_label, new_label, want):
    # The stand-in feature is required by pods whose spec says so, as the Go mock flips.
    plugin = NodeDeclaredFeatures(True, 35, [mock("TestFeature", lambda s: s.get("needs"))])
    old, updated = pod(needs=old_label), pod(needs=new_label)
    assert plugin.is_schedulable_after_target_pod_update(pod(), old, updated) == want


@pytest.mark.parametrize("enabled,count", [pytest.param(False, 0, id="plugin disabled"),
                                           pytest.param(True, 3, id="plugin enabled")])
def test_events_to_register(enabled, count):
    # Go registers Node/Add|UpdateNodeDeclaredFeature and the target pod's Update: two
    # events, three names here (NodeAdd, NodeUpdate, UnscheduledPodUpdate).
    assert len(NodeDeclaredFeatures(enabled, 35).events_to_register()) == count


@pytest.mark.parametrize("release,enabled", [("1.35", False), ("1.36", True), ("1.37", True)])
def test_the_plugin_follows_the_release_gate(release, enabled):
    plugin = new({}, FakeHandle(features=feature_gates(release)))
    assert plugin.enabled == enabled and plugin.minor == int(release[2:])


def test_a_container_restarting_all_containers_needs_the_feature_declared():
    spec = {"containers": [{"name": "c", "restartPolicyRules": [
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]}]}
    assert infer_for_pod_scheduling(spec, 36, registry_at(36)) == {
        "RestartAllContainersOnContainerExits"}
    assert infer_for_pod_scheduling({"containers": [{"name": "c"}]}, 36, registry_at(36)) == set()
