"""A web run follows its feature gates (issue 26): the same cluster run to the end by the run
executor binds a short gang's pods one by one with the Workload API's gate off (kube-scheduler
v1.37's defaults) and holds them at GangScheduling's PreEnqueue with GenericWorkload on
(pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go: PreEnqueue waits for
minCount pods of the group)."""

from __future__ import annotations

import pytest

from playground.runs import services as runs
from playground.runs.models import Run
from tests.helpers import import_cluster

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("fresh_sessions")]

SHORT_GANG = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: late, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: late-{i}, namespace: default}}
spec:
  schedulingGroup: {{podGroupName: late}}
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: 200m}}}}}}]
""" for i in range(2))


def _finished(alice, gates: str) -> Run:
    cluster = import_cluster(alice, "short-gang.yaml", text=SHORT_GANG)
    run = runs.run_create(cluster=cluster, seed=1, owner=alice, feature_gates=gates)
    runs.run_start(run=run, user=alice)
    run.refresh_from_db()
    assert run.status == Run.FINISHED, run.error
    return run


def test_with_the_gates_off_each_pod_of_a_short_gang_is_bound_on_its_own(alice):
    run = _finished(alice, "")
    assert run.result["bindings"] == {"default/late-0": "node-1", "default/late-1": "node-1"}


def test_with_the_gates_on_a_short_gang_waits_at_pre_enqueue(alice):
    run = _finished(alice, "GenericWorkload=true")   # v1.37: no GangScheduling gate
    assert run.feature_gates == {"GenericWorkload": True}
    assert (run.pods_bound, run.cycle_count) == (0, 0)
    assert run.result["bindings"] == {"default/late-0": None, "default/late-1": None}
