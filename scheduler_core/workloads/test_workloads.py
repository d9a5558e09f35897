"""Each controller's expansion: names, counts, labels, owners; DaemonSet placement on taints."""
from __future__ import annotations

import json

import pytest
import yaml

from scheduler_core.loader import load_documents
from scheduler_core.simulate import load_scheduler
from scheduler_core.workloads.naming import ALPHANUMS, compute_hash, fnv32a, safe_encode_string

NODE = """
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
spec: {spec}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
"""


def node(name: str, spec: str = "{}") -> str:
    return NODE.format(name=name, spec=spec)


def load(text: str, seed: int = 1):
    return load_documents([("cluster.yaml", list(yaml.safe_load_all(text)))], seed=seed)


def run(text: str, seed: int = 1):
    sched = load_scheduler(["cluster.yaml"], texts={"cluster.yaml": text}, seed=seed)
    sched.run()
    return sched


def pods_named(cluster, prefix: str) -> list[dict]:
    return [p for p in cluster.pods if p["metadata"]["name"].startswith(prefix)]


def owner(pod: dict) -> dict:
    (ref,) = pod["metadata"]["ownerReferences"]
    return ref


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"""


def test_fnv32a_and_safe_encoding_match_go():
    # hash/fnv's New32a of "" and "a" (Go's fnv_test.go golden values).
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C
    # rand.SafeEncodeString maps each rune by its code point into the alphabet.
    assert safe_encode_string("0123") == "".join(ALPHANUMS[ord(c) % 27] for c in "0123")
    assert compute_hash({"a": 1}) != compute_hash({"a": 1}, collision_count=1)


def test_deployment_makes_a_replicaset_named_by_the_template_hash_and_its_pods():
    cluster = load(node("n1") + "\n---\n" + DEPLOYMENT)
    (rs,) = cluster.objects.extra["ReplicaSet"]
    pod_hash = compute_hash(yaml.safe_load(DEPLOYMENT)["spec"]["template"])
    assert rs["metadata"]["name"] == f"web-{pod_hash}"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": pod_hash}
    assert owner(rs)["kind"] == "Deployment" and owner(rs)["name"] == "web"
    assert owner(rs)["controller"] is True and owner(rs)["blockOwnerDeletion"] is True
    pods = pods_named(cluster, f"web-{pod_hash}-")
    assert len(pods) == 3
    for pod in pods:
        suffix = pod["metadata"]["name"].rsplit("-", 1)[1]
        assert len(suffix) == 5 and set(suffix) <= set(ALPHANUMS)
        assert pod["metadata"]["labels"] == {"app": "web", "pod-template-hash": pod_hash}
        assert owner(pod)["kind"] == "ReplicaSet" and owner(pod)["uid"] == rs["metadata"]["uid"]


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
                                  "Job"])
def test_a_null_template_metadata_is_an_empty_one(kind):
    """`metadata: null` decodes to Go's empty ObjectMeta: the controllers make their pods."""
    api = "batch/v1" if kind == "Job" else "apps/v1"
    text = node("n1") + f"""
---
apiVersion: {api}
kind: {kind}
metadata: {{name: web}}
spec:
  replicas: 2
  template:
    metadata: null
    spec: {{containers: [{{name: c, image: nginx}}]}}
"""
    sched = run(text)
    assert sched.bindings and set(sched.bindings.values()) == {"n1"}


def test_a_deployment_with_a_null_template_metadata_keeps_one_replicaset_when_scaled():
    text = node("n1") + """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  template:
    metadata: null
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: playground.k8s.local/v1
kind: Timeline
metadata: {name: t}
spec:
  steps: [{at: 10, action: Scale, kind: Deployment, name: web, replicas: 3}]
"""
    sched = run(text)
    # Semantic equality: the ReplicaSet's template (labels added) still matches `null`.
    assert len({key.rsplit("-", 1)[0] for key in sched.bindings}) == 1
    assert len(sched.bindings) == 3


def test_names_are_deterministic_for_a_seed_and_differ_between_seeds():
    names = [sorted(p["metadata"]["name"] for p in load(DEPLOYMENT, seed).pods)
             for seed in (1, 1, 2)]
    assert names[0] == names[1] != names[2]


def test_replicaset_on_its_own():
    cluster = load("""
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: front, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {tier: front}}
  template:
    metadata: {labels: {tier: front}}
    spec: {containers: [{name: c, image: php}]}
""")
    assert len(cluster.pods) == 2
    for pod in cluster.pods:
        assert pod["metadata"]["name"].startswith("front-")
        assert pod["metadata"]["namespace"] == "shop"
        assert owner(pod)["kind"] == "ReplicaSet" and owner(pod)["name"] == "front"


STATEFULSET = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: db}}
spec:
  replicas: 3
  serviceName: db
  podManagementPolicy: {policy}
  selector: {{matchLabels: {{app: db}}}}
  template:
    metadata: {{labels: {{app: db}}}}
    spec: {{containers: [{{name: c, image: pg, resources: {{requests: {{cpu: "1"}}}}}}]}}
  volumeClaimTemplates:
  - metadata: {{name: data}}
    spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}
"""


def test_statefulset_ordered_ready_makes_one_pod_and_waits_for_it():
    cluster = load(STATEFULSET.format(policy="OrderedReady"))
    (pod,) = cluster.pods
    labels = pod["metadata"]["labels"]
    assert pod["metadata"]["name"] == "db-0"
    assert labels["statefulset.kubernetes.io/pod-name"] == "db-0"
    assert labels["apps.kubernetes.io/pod-index"] == "0"
    assert labels["controller-revision-hash"].startswith("db-")
    assert pod["spec"]["hostname"] == "db-0" and pod["spec"]["subdomain"] == "db"
    assert pod["spec"]["volumes"] == [{"name": "data",
                                       "persistentVolumeClaim": {"claimName": "data-db-0"}}]
    assert list(cluster.objects.pvcs) == ["default/data-db-0"]
    assert cluster.objects.pvcs["default/data-db-0"]["metadata"]["labels"] == {"app": "db"}


def test_statefulset_ordered_ready_creates_the_next_ordinal_once_the_previous_is_bound():
    storage = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: example.com/local
volumeBindingMode: WaitForFirstConsumer
"""
    sched = run("\n---\n".join([node("n1"), storage, STATEFULSET.format(policy="OrderedReady")]))
    assert sched.bindings == {"default/db-0": "n1", "default/db-1": "n1", "default/db-2": "n1"}
    order = [c for c in sched.bindings]
    assert order == ["default/db-0", "default/db-1", "default/db-2"]


def test_statefulset_parallel_makes_every_pod_and_claim_at_once():
    cluster = load(STATEFULSET.format(policy="Parallel"))
    assert [p["metadata"]["name"] for p in cluster.pods] == ["db-0", "db-1", "db-2"]
    assert sorted(cluster.objects.pvcs) == [f"default/data-db-{i}" for i in range(3)]


DAEMONSET = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: agent, resources: {requests: {cpu: 100m}}}]}
"""


def test_daemonset_runs_on_every_eligible_node_including_cordoned_ones():
    cluster_text = "\n---\n".join([
        node("plain"),
        node("cordoned", "{unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable,"
             " effect: NoSchedule}]}"),
        node("gpu", "{taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}"),
        node("pressure", "{taints: [{key: node.kubernetes.io/memory-pressure,"
             " effect: NoSchedule}]}"),
        DAEMONSET])
    sched = run(cluster_text)
    placed = sorted(sched.bindings.values())
    assert placed == ["cordoned", "plain", "pressure"]
    pod = sched.pods[0].obj
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert len(terms) == 1 and terms[0]["matchFields"][0]["key"] == "metadata.name"
    keys = {(t["key"], t["effect"]) for t in pod["spec"]["tolerations"]}
    assert ("node.kubernetes.io/unschedulable", "NoSchedule") in keys
    assert ("node.kubernetes.io/not-ready", "NoExecute") in keys
    assert pod["metadata"]["labels"]["pod-template-generation"] == "1"


def test_daemonset_with_a_toleration_and_a_node_selector():
    ds = yaml.safe_load(DAEMONSET)
    ds["spec"]["template"]["spec"]["tolerations"] = [
        {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    ds["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "gpu"}
    sched = run("\n---\n".join([node("plain"), node(
        "gpu", "{taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}"),
        yaml.safe_dump(ds)]))
    assert list(sched.bindings.values()) == ["gpu"]


JOB = """
apiVersion: batch/v1
kind: Job
metadata: {{name: pi}}
spec:
  completions: 5
  parallelism: 2
  {mode}
  template:
    spec: {{restartPolicy: Never, containers: [{{name: c, image: perl}}]}}
"""


def test_job_runs_parallelism_pods_with_its_labels():
    cluster = load(JOB.format(mode=""))
    assert len(cluster.pods) == 2
    (job,) = cluster.workloads
    uid = job["metadata"]["uid"]
    for pod in cluster.pods:
        labels = pod["metadata"]["labels"]
        assert pod["metadata"]["name"].startswith("pi-")
        assert labels["batch.kubernetes.io/controller-uid"] == uid == labels["controller-uid"]
        assert labels["batch.kubernetes.io/job-name"] == "pi" == labels["job-name"]
        assert owner(pod) == {"apiVersion": "batch/v1", "kind": "Job", "name": "pi", "uid": uid,
                              "controller": True, "blockOwnerDeletion": True}


def test_indexed_job_pods_carry_their_completion_index():
    cluster = load(JOB.format(mode="completionMode: Indexed"))
    names = [p["metadata"]["name"] for p in cluster.pods]
    assert [n.rsplit("-", 1)[0] for n in names] == ["pi-0", "pi-1"]
    for i, pod in enumerate(cluster.pods):
        assert pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == str(i)
        assert pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == str(i)
        assert pod["spec"]["hostname"] == f"pi-{i}"


@pytest.mark.parametrize("replicas,bound", [
    pytest.param(2, 0, id="two replicas never reach minMember 3: nothing binds"),
    pytest.param(3, 3, id="three replicas reach minMember: the gang binds"),
])
def test_coscheduling_example_with_a_deployment(replicas, bound):
    config = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint: {enabled: [{name: Coscheduling}], disabled: [{name: PrioritySort}]}
"""
    group = """
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: pg1}
spec: {scheduleTimeoutSeconds: 10, minMember: 3}
"""
    deploy = yaml.safe_load(DEPLOYMENT.replace("web", "pause"))
    deploy["spec"]["replicas"] = replicas
    deploy["spec"]["template"]["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] = "pg1"
    text = "\n---\n".join([node("n1"), node("n2"), group, config, yaml.safe_dump(deploy)])
    sched = load_scheduler(["c.yaml"], texts={"c.yaml": text}, seed=1, out_of_tree={
        "Coscheduling": "scheduler_core.outoftree.coscheduling"})
    sched.run()
    assert len(sched.bindings) == replicas
    assert sum(1 for n in sched.bindings.values() if n) == bound


def test_kubectl_export_keeps_owned_pods_and_adds_no_duplicates():
    pod_hash = "6d4cf56db6"   # Go's hash: ours differs, the template comparison still matches
    template = {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    rs_template = {"metadata": {"labels": {"app": "web", "pod-template-hash": pod_hash}},
                   "spec": template["spec"]}
    managed = [{"manager": "kube-controller-manager", "operation": "Update"}]
    items = [
        yaml.safe_load(node("n1")),
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "web", "namespace": "default", "uid": "d-1",
                      "managedFields": managed},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                  "template": template},
         "status": {"replicas": 2, "readyReplicas": 2}},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet",
         "metadata": {"name": f"web-{pod_hash}", "namespace": "default", "uid": "rs-1",
                      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                           "name": "web", "uid": "d-1", "controller": True}]},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                  "template": rs_template}},
    ]
    for suffix in ("abcde", "fghjk"):
        items.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"web-{pod_hash}-{suffix}", "namespace": "default",
                         "uid": f"pod-{suffix}", "labels": rs_template["metadata"]["labels"],
                         "managedFields": managed,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                              "name": f"web-{pod_hash}", "uid": "rs-1",
                                              "controller": True}]},
            "spec": {**template["spec"], "nodeName": "n1"},
            "status": {"phase": "Running", "startTime": "2025-01-01T00:00:00Z"}})
    cluster = load_documents([("export.yaml", [{"apiVersion": "v1", "kind": "List",
                                                "items": items}])])
    assert sorted(p["metadata"]["name"] for p in cluster.pods) == [
        f"web-{pod_hash}-abcde", f"web-{pod_hash}-fghjk"]
    assert len(cluster.objects.extra["ReplicaSet"]) == 1
    assert all("managedFields" not in p["metadata"] for p in cluster.pods)


def test_kube_scheduler_simulator_export_loads():
    export = {
        "pods": [{"metadata": {"name": "pod-1", "namespace": "default"},
                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}],
        "nodes": [yaml.safe_load(node("node-1"))],
        "pvs": [], "pvcs": [], "storageClasses": [],
        "priorityClasses": [{"metadata": {"name": "high"}, "value": 1000}],
        "schedulerConfig": {"percentageOfNodesToScore": 0, "podInitialBackoffSeconds": 1,
                            "podMaxBackoffSeconds": 10,
                            "profiles": [{"schedulerName": "default-scheduler"}]},
    }
    sched = load_scheduler(["export.json"], texts={"export.json": json.dumps(export)})
    sched.run()
    assert sched.bindings == {"default/pod-1": "node-1"}
    assert "high" in sched.cluster.objects.priority_classes
    assert sched.cluster.config["kind"] == "KubeSchedulerConfiguration"
