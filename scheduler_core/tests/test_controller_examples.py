"""Public example files (tests/public_files/, sources in its SOURCES.md) through `simulate`:
the PV tutorial, a ReplicationController, LimitRange defaults and limits, CronJobs; and
generateName."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from scheduler_core.cli import main
from scheduler_core.errors import InputError
from scheduler_core.loader import load_documents
from scheduler_core.simulate import simulate
from scheduler_core.workloads.naming import ALPHANUMS

PUBLIC = Path(__file__).resolve().parents[2] / "tests" / "public_files"
WEBSITE = PUBLIC / "kubernetes-website"
NODE = """apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


@pytest.fixture
def node(tmp_path) -> str:
    path = tmp_path / "node.yaml"
    path.write_text(NODE)
    return str(path)


def run(node, *names, **kwargs):
    return simulate([node, *(str(WEBSITE / n) for n in names)], seed=1, **kwargs)


def test_the_pv_tutorial_binds_the_claim_then_the_pod(node):
    result = run(node, "pv-volume.yaml", "pv-claim.yaml", "pv-pod.yaml")
    assert result.scheduler.bindings == {"default/task-pv-pod": "node-1"}
    objects = result.scheduler.cluster.objects
    assert objects.pvcs["default/task-pv-claim"]["spec"]["volumeName"] == "task-pv-volume"
    assert objects.pvs["task-pv-volume"]["spec"]["claimRef"]["name"] == "task-pv-claim"


def test_the_pv_tutorials_pod_alone_stays_pending_on_its_unbound_claim(node, tmp_path):
    claim = tmp_path / "claim.yaml"
    claim.write_text((WEBSITE / "pv-claim.yaml").read_text().replace("3Gi", "30Gi"))
    result = simulate([node, str(WEBSITE / "pv-volume.yaml"), str(claim),
                       str(WEBSITE / "pv-pod.yaml")], seed=1)
    assert result.scheduler.bindings == {"default/task-pv-pod": None}
    assert "unbound immediate PersistentVolumeClaims" in \
        result.scheduler.pending_reasons()["default/task-pv-pod"]


def test_the_replication_controller_makes_its_three_pods(node):
    cluster = run(node, "replication.yaml").scheduler.cluster
    pods = cluster.pods
    assert len(pods) == 3
    for pod in pods:
        assert re.fullmatch(f"nginx-[{ALPHANUMS}]{{5}}", pod["metadata"]["name"])
        assert pod["metadata"]["labels"] == {"app": "nginx"}
        (ref,) = pod["metadata"]["ownerReferences"]
        assert (ref["apiVersion"], ref["kind"], ref["name"], ref["controller"],
                ref["blockOwnerDeletion"]) == ("v1", "ReplicationController", "nginx", True, True)


def test_the_memory_defaults_of_a_limit_range_reach_the_pod(node):
    result = run(node, "memory-defaults.yaml", "memory-defaults-pod.yaml")
    (pod,) = result.scheduler.cluster.pods
    assert pod["spec"]["containers"][0]["resources"] == {"limits": {"memory": "512Mi"},
                                                         "requests": {"memory": "256Mi"}}
    assert pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: memory request for container default-mem-demo-ctr; "
        "memory limit for container default-mem-demo-ctr")
    assert result.scheduler.pods[0].requests.memory == 256 * 2**20


def test_a_pod_over_the_limit_range_maximum_is_refused_as_the_docs_show(node, capsys):
    code = main(["simulate", node, str(WEBSITE / "memory-constraints.yaml"),
                 str(WEBSITE / "memory-constraints-pod-2.yaml")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().endswith('pods "constraints-mem-demo-2" is forbidden: maximum memory '
                                "usage per Container is 1Gi, but limit is 1536Mi")


def test_the_website_cronjob_of_batch_v1beta1_is_refused_naming_the_version(node, capsys):
    code = main(["simulate", node, str(WEBSITE / "cronjob-v1beta1.yaml")])
    assert code == 2
    assert capsys.readouterr().err.strip().endswith(
        'CronJob default/hello: field apiVersion: no matches for kind "CronJob" in version '
        '"batch/v1beta1"')


def test_the_batch_v1_cronjob_makes_a_job_a_minute_until_the_end(node):
    result = simulate([node, str(PUBLIC / "feisky" / "cronjob.yaml")], seed=1, until=600)
    jobs = result.scheduler.cluster.objects.extra["Job"]
    assert len(jobs) == 10
    assert [int(j["metadata"]["name"].rsplit("-", 1)[1]) for j in jobs] == \
        list(range(66666667, 66666677))
    assert all(node == "node-1" for node in result.scheduler.bindings.values())


def test_until_must_not_be_negative(node, capsys):
    assert main(["simulate", node, "--until", "-1"]) == 2
    assert "--until must be a number of seconds >= 0" in capsys.readouterr().err


# --- generateName ---------------------------------------------------------------------------

GENERATED = """
apiVersion: v1
kind: Pod
metadata: {generateName: web-}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {generateName: web-}
spec: {containers: [{name: c, image: nginx}]}
"""


def _names(seed: int) -> list[str]:
    cluster = load_documents([("g.yaml", list(yaml.safe_load_all(GENERATED)))], seed=seed)
    return [p["metadata"]["name"] for p in cluster.pods]


def test_generate_name_adds_five_characters_of_the_api_servers_alphabet():
    names = _names(1)
    assert all(re.fullmatch(f"web-[{ALPHANUMS}]{{5}}", n) for n in names)
    assert len(set(names)) == 2


def test_generated_names_are_the_same_for_a_seed_and_differ_between_seeds():
    assert _names(1) == _names(1)
    assert _names(1) != _names(2)


def test_a_long_generate_name_is_cut_to_58_characters_before_the_suffix():
    text = GENERATED.replace("web-", "x" * 70)
    cluster = load_documents([("g.yaml", list(yaml.safe_load_all(text)))], seed=1)
    assert all(len(p["metadata"]["name"]) == 63 for p in cluster.pods)


def test_an_object_with_neither_name_nor_generate_name_is_still_refused():
    text = "apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: [{name: c}]}\n"
    with pytest.raises(InputError, match="name or generateName is required"):
        load_documents([("g.yaml", [yaml.safe_load(text)])])
