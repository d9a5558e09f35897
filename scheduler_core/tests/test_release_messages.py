"""FailedScheduling messages per release, with the default profile.

v1.37 changed two PostFilter outcomes' words:
- PR #140222 (dynamicresources.go PostFilter): the no-op outcomes of DynamicResources ("no new
  claims to deallocate", "still not schedulable") stay Unschedulable but give no reason, so
  they no longer show in the message;
- PR #140180 (preemption.go Preempt): a preemption that found a node says so:
  "preemption: found a potential placement for pod on node N, preempting K victims".
Before v1.37 a successful preemption left no PostFilter message at all."""
import pytest
import yaml

from scheduler_core.features import feature_gates
from scheduler_core.simulate import simulate
from scheduler_core.testing import make_node, make_pod

NODE = make_node("n1", cpu="2")
LOW = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
       "metadata": {"name": "low"}, "value": 1}
HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "high"}, "value": 1000}


def first_message(tmp_path, release, *docs, pod="default/big") -> str:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    result = simulate([str(path)], seed=1, max_cycles=3, features=feature_gates(release))
    return next(c for c in result.trace.to_list() if c["pod"] == pod)["message"]


def with_priority(pod: dict, cls: str, node: str | None = None) -> dict:
    pod["spec"]["priorityClassName"] = cls
    if node:
        pod["spec"]["nodeName"] = node
    return pod


NOT_HELPFUL = ("0/1 nodes are available: 1 Insufficient cpu. {}preemption: 0/1 nodes are "
               "available: 1 Preemption is not helpful for scheduling.")


@pytest.mark.parametrize("release, noise", [
    ("1.34", "no new claims to deallocate, "), ("1.35", "no new claims to deallocate, "),
    ("1.36", "no new claims to deallocate, "), ("1.37", ""),
])
def test_a_pod_without_claims_carries_no_new_claims_to_deallocate_until_v1_37(
        tmp_path, release, noise):
    message = first_message(tmp_path, release, NODE, make_pod("big", cpu="3"))
    assert message == NOT_HELPFUL.format(noise)


@pytest.mark.parametrize("release, tail", [
    ("1.36", ""),
    ("1.37", " preemption: found a potential placement for pod on node n1, preempting 1 "
             "victims"),
])
def test_a_successful_preemption_says_where_from_v1_37(tmp_path, release, tail):
    victim = with_priority(make_pod("victim", cpu="2"), "low", node="n1")
    big = with_priority(make_pod("big", cpu="2"), "high")
    message = first_message(tmp_path, release, LOW, HIGH, NODE, victim, big)
    assert message == "0/1 nodes are available: 1 Insufficient cpu." + tail
