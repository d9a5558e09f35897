"""Each kind of timeline step, run through the scheduler, and bad timelines refused."""
from __future__ import annotations

import copy
import subprocess
import sys

import pytest
import yaml

from scheduler_core.errors import InputError
from scheduler_core.simulate import simulate


def node(name: str, cpu: str = "2", **extra) -> dict:
    obj = {"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}
    obj.update(extra)
    return obj


def pod(name: str, cpu: str = "1", **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"containers": [{"name": "c", "image": "i",
                                     "resources": {"requests": {"cpu": cpu}}}], **spec}}


def deployment(name: str, replicas: int, cpu: str = "1") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": pod(name, cpu)["spec"]}}}


def timeline(*steps) -> dict:
    return {"apiVersion": "playground.k8s.local/v1", "kind": "Timeline",
            "metadata": {"name": "t"}, "spec": {"steps": list(steps)}}


def run(tmp_path, *objects, seed: int = 1):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    return simulate([str(path)], seed=seed)


def bound_to(result, prefix: str) -> dict:
    return {k: v for k, v in result.scheduler.bindings.items()
            if k.split("/")[1].startswith(prefix)}


def moves(result, pod_key: str) -> list[tuple[float, str, str]]:
    return [(m["time"], m["queue"], m["event"]) for m in result.scheduler.life.to_json()[
        "queueMoves"] if m["pod"] == pod_key]


def test_a_node_created_later_takes_the_pending_pod_and_the_move_names_node_add(tmp_path):
    result = run(tmp_path, node("a", cpu="1"), pod("p1"), pod("p2"), timeline(
        {"at": 30, "action": "Create", "object": node("b", cpu="1")}))
    assert result.scheduler.bindings == {"default/p1": "a", "default/p2": "b"}
    assert (30.0, "activeQ", "NodeAdd") in moves(result, "default/p2")
    assert moves(result, "default/p2")[0] == (0.0, "activeQ", "PodAdd")
    assert (0.0, "unschedulablePods", "ScheduleAttemptFailure") in moves(result, "default/p2")


def test_updating_a_node_label_lets_a_selective_pod_in(tmp_path):
    labelled = node("a")
    labelled["metadata"]["labels"]["disk"] = "ssd"
    result = run(tmp_path, node("a"), pod("p", nodeSelector={"disk": "ssd"}), timeline(
        {"at": 10, "action": "Update", "object": labelled}))
    assert result.scheduler.bindings == {"default/p": "a"}
    assert (10.0, "activeQ", "NodeUpdate") in moves(result, "default/p")


def test_deleting_a_pod_frees_its_node_after_the_grace_period(tmp_path):
    result = run(tmp_path, node("a", cpu="1"), pod("old"), pod("new"), timeline(
        {"at": 5, "action": "Delete", "kind": "Pod", "name": "old"}))
    assert result.scheduler.bindings == {"default/new": "a"}
    assert (35.0, "activeQ", "AssignedPodDelete") in moves(result, "default/new")


def test_scale_up_then_down(tmp_path):
    result = run(tmp_path, node("a", cpu="8"), deployment("web", 2), timeline(
        {"at": 10, "action": "Scale", "kind": "Deployment", "name": "web", "replicas": 5},
        {"at": 20, "action": "Scale", "kind": "Deployment", "name": "web", "replicas": 3}))
    life = result.scheduler.life
    active = [p for p in life.informer.pods.values() if not p.terminating]
    assert len(active) == 3
    assert len(bound_to(result, "web-")) == 3
    assert sum(1 for e in life.to_json()["podEvents"] if e["event"] == "scaled down") == 2


def test_cordon_sends_new_pods_elsewhere_and_uncordon_lets_them_back(tmp_path):
    result = run(tmp_path, node("a"), node("b", cpu="1"), timeline(
        {"at": 1, "action": "Cordon", "node": "a"},
        {"at": 2, "action": "Create", "object": pod("p1")},
        {"at": 3, "action": "Create", "object": pod("p2")},
        {"at": 50, "action": "Uncordon", "node": "a"}))
    assert result.scheduler.bindings == {"default/p1": "b", "default/p2": "a"}
    assert (50.0, "activeQ", "NodeUpdate") in moves(result, "default/p2")
    node_a = result.scheduler.life.informer.node("a")
    assert "unschedulable" not in node_a["spec"] and node_a["spec"]["taints"] == []


def test_a_taint_added_then_removed(tmp_path):
    taint = {"key": "maintenance", "value": "true", "effect": "NoSchedule"}
    result = run(tmp_path, node("a"), timeline(
        {"at": 1, "action": "AddTaint", "node": "a", "taint": taint},
        {"at": 2, "action": "Create", "object": pod("p")},
        {"at": 40, "action": "RemoveTaint", "node": "a", "taint": {"key": "maintenance"}}))
    assert result.scheduler.bindings == {"default/p": "a"}
    cycles = result.trace.to_list()
    assert cycles[0]["outcome"] == "Unschedulable" and cycles[-1]["time"] == 40.0


def test_removing_a_scheduling_gate(tmp_path):
    gated = pod("p", schedulingGates=[{"name": "example.com/quota"}])
    result = run(tmp_path, node("a"), gated, timeline(
        {"at": 15, "action": "RemoveSchedulingGate", "pod": "p",
         "gate": "example.com/quota"}))
    assert result.scheduler.bindings == {"default/p": "a"}
    assert moves(result, "default/p") == [(0.0, "gated", "PodAdd"),
                                          (15.0, "activeQ", "UnscheduledPodUpdate")]


@pytest.mark.parametrize("tolerations,evicted_at", [
    pytest.param(None, 330.0, id="the admission default tolerates not-ready for 300s"),
    pytest.param([{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                   "effect": "NoExecute", "tolerationSeconds": 20}], 50.0,
                 id="a shorter tolerationSeconds evicts sooner"),
    pytest.param([{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                   "effect": "NoExecute"}], None, id="a toleration without seconds stays"),
])
def test_node_not_ready_evicts_after_toleration_seconds(tmp_path, tolerations, evicted_at):
    spec = {"tolerations": tolerations} if tolerations else {}
    result = run(tmp_path, node("a"), pod("p", **spec), timeline(
        {"at": 30, "action": "NodeNotReady", "node": "a"}))
    events = [(e["time"], e["event"]) for e in result.scheduler.life.to_json()["podEvents"]]
    if evicted_at is None:
        assert events == []
    else:
        assert events[0] == (evicted_at, "evicted by taint manager")
    taints = result.scheduler.life.informer.node("a")["spec"]["taints"]
    assert {(t["key"], t["effect"]) for t in taints} == {
        ("node.kubernetes.io/not-ready", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "NoExecute")}


def test_deleting_a_node_recreates_controlled_pods_and_drops_the_others(tmp_path):
    result = run(tmp_path, node("a", cpu="4"), node("b", cpu="4"),
                 deployment("web", 4), pod("lonely", nodeName="b"), timeline(
                     {"at": 10, "action": "DeleteNode", "node": "b"}))
    web = bound_to(result, "web-")
    assert len(web) == 4 and set(web.values()) == {"a"}
    assert "default/lonely" not in result.scheduler.bindings
    gone = {e["pod"] for e in result.scheduler.life.to_json()["podEvents"]
            if e["event"] == "deleted with its node"}
    assert "default/lonely" in gone and len(gone) == 3


def test_completing_a_pod_frees_room(tmp_path):
    result = run(tmp_path, node("a", cpu="1"), pod("batch"), pod("next"), timeline(
        {"at": 12, "action": "CompletePod", "pod": "default/batch"}))
    assert result.scheduler.bindings["default/next"] == "a"
    assert (12.0, "activeQ", "AssignedPodDelete") in moves(result, "default/next")


def test_a_job_runs_to_its_completions_with_run_seconds(tmp_path):
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
           "spec": {"completions": 4, "parallelism": 2, "template": {
               "metadata": {"annotations": {"playground.k8s.local/run-seconds": "60"}},
               "spec": {"restartPolicy": "Never", **pod("pi")["spec"]}}}}
    result = run(tmp_path, node("a", cpu="8"), job)
    pods = result.scheduler.life.informer.pods.values()
    assert len(pods) == 4
    assert all(p.obj["status"]["phase"] == "Succeeded" for p in pods)
    assert result.scheduler.clock == 120.0


def test_a_node_that_joins_later_gets_its_daemonset_pod(tmp_path):
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}},
                   "template": {"metadata": {"labels": {"app": "agent"}},
                                "spec": pod("agent", cpu="100m")["spec"]}}}
    result = run(tmp_path, node("a"), ds, timeline(
        {"at": 30, "action": "Create", "object": node("b")}))
    assert sorted(bound_to(result, "agent-").values()) == ["a", "b"]


def test_a_pod_can_be_named_by_a_label_selector(tmp_path):
    result = run(tmp_path, node("a", cpu="1"), deployment("web", 1), pod("next"), timeline(
        {"at": 7, "action": "CompletePod", "pod": {"matchLabels": {"app": "web"}}}))
    assert result.scheduler.bindings["default/next"] == "a"


@pytest.mark.parametrize("step,field,words", [
    pytest.param({"at": -1, "action": "Cordon", "node": "a"}, "spec.steps[0].at",
                 "must be greater than or equal to 0", id="negative time"),
    pytest.param({"at": 1, "action": "Explode", "node": "a"}, "spec.steps[0].action",
                 'Unsupported value: "Explode"', id="unknown action"),
    pytest.param({"at": 1, "action": "Create", "object": {"kind": "Gizmo",
                                                          "metadata": {"name": "g"}}},
                 "spec.steps[0].object.kind", 'Unsupported value: "Gizmo"', id="unknown kind"),
    pytest.param({"at": 1, "action": "Cordon", "node": "nope"}, "spec.steps[0].node",
                 'node "nope" does not exist at 1s', id="missing node"),
    pytest.param({"at": 1, "action": "CompletePod", "pod": "ghost"}, "spec.steps[0].pod",
                 'pod "default/ghost" does not exist', id="missing pod"),
    pytest.param({"at": 1, "action": "Scale", "kind": "Deployment", "name": "x",
                  "replicas": 2}, "spec.steps[0].name", 'Deployment "x" does not exist',
                 id="missing workload"),
    pytest.param({"at": 1, "action": "Scale", "kind": "Deployment", "name": "x"},
                 "spec.steps[0].replicas", "Required value", id="missing field"),
])
def test_bad_steps_name_the_step_and_field(tmp_path, step, field, words):
    with pytest.raises(InputError) as caught:
        run(tmp_path, node("a"), timeline(step))
    assert caught.value.field == field
    assert caught.value.obj == "Timeline t"
    assert words in str(caught.value)


@pytest.mark.parametrize("step,field,words", [
    pytest.param({"at": 1, "action": ["Cordon"], "node": "a"}, "spec.steps[0].action",
                 "Unsupported value: \"['Cordon']\"", id="action list"),
    pytest.param({"at": 1, "action": "Create", "object": {**node("b"), "metadata": ["b"]}},
                 "spec.steps[0].object.metadata", "must be of type object", id="metadata list"),
    pytest.param({"at": 1, "action": "Update", "object": {**node("a"), "metadata": ["a"]}},
                 "spec.steps[0].object.metadata", "must be of type object",
                 id="update metadata list"),
    pytest.param({"at": 1, "action": "Create", "object": {**pod("q"), "spec": 5}},
                 "spec.steps[0].object.spec", "must be of type object", id="object spec int"),
    pytest.param({"at": 1, "action": "Cordon", "node": ["a"]}, "spec.steps[0].node",
                 "must be a string", id="node list"),
    pytest.param({"at": 1, "action": "Delete", "kind": "Pod", "name": "p", "namespace": ["x"]},
                 "spec.steps[0].namespace", "must be a string", id="namespace list"),
    pytest.param({"at": 1, "action": "CompletePod", "pod": ["p"]}, "spec.steps[0].pod",
                 "must be a pod name or a label selector", id="pod list"),
    pytest.param({"at": 1, "action": "CompletePod", "pod": {"matchLabels": ["app"]}},
                 "spec.steps[0].pod.matchLabels", "must be of type object",
                 id="pod selector typed wrongly"),
])
def test_wrongly_typed_steps_name_the_step_and_field(tmp_path, step, field, words):
    with pytest.raises(InputError) as caught:
        run(tmp_path, node("a"), pod("p"), timeline(step))
    assert (caught.value.obj, caught.value.field) == ("Timeline t", field)
    assert words in str(caught.value)


@pytest.mark.parametrize("change,field", [
    pytest.param({"spec": 5}, "spec", id="spec int"),
    pytest.param({"spec": ["steps"]}, "spec", id="spec list"),
    pytest.param({"metadata": ["t"]}, "metadata", id="metadata list"),
])
def test_a_wrongly_typed_timeline_is_refused_naming_the_field(tmp_path, change, field):
    with pytest.raises(InputError) as caught:
        run(tmp_path, node("a"), {**timeline(), **change})
    assert caught.value.field == field
    assert "must be a mapping" in str(caught.value)


def test_a_node_deleted_earlier_cannot_be_cordoned_later(tmp_path):
    with pytest.raises(InputError, match=r"spec.steps\[0\].node: node \"a\" does not exist"):
        run(tmp_path, node("a"), node("b"), timeline(
            {"at": 20, "action": "Cordon", "node": "a"},
            {"at": 10, "action": "DeleteNode", "node": "a"}))


def test_cli_takes_the_timeline_as_a_second_file_and_exits_2_on_a_bad_one(tmp_path):
    cluster, steps = tmp_path / "cluster.yaml", tmp_path / "timeline.yaml"
    cluster.write_text(yaml.safe_dump_all([node("a", cpu="1"), pod("p1"), pod("p2")]))
    steps.write_text(yaml.safe_dump(timeline({"at": 5, "action": "Create",
                                              "object": node("b", cpu="1")})))
    ok = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(cluster),
                         str(steps)], capture_output=True, text=True)
    assert ok.returncode == 0 and "2 of 2 pods bound" in ok.stdout
    steps.write_text(yaml.safe_dump(timeline({"at": -5, "action": "Cordon", "node": "a"})))
    bad = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(cluster),
                          str(steps)], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (f"error: {steps}: Timeline t: field spec.steps[0].at: "
                                  "Invalid value: -5: must be greater than or equal to 0")
    steps.write_text(yaml.safe_dump(timeline({"at": 5, "action": ["Cordon"], "node": "a"})))
    typed = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(cluster),
                            str(steps)], capture_output=True, text=True)
    assert typed.returncode == 2
    assert typed.stderr.startswith(f"error: {steps}: Timeline t: field spec.steps[0].action: ")


def test_a_step_taken_on_a_paused_run_applies_after_its_cycle_on_replay_too():
    from scheduler_core.session import RunSession

    action = {"at": 0, "afterCycle": 2, "action": "Create", "object": node("b", cpu="1")}
    docs = [node("a", cpu="1"), pod("p1"), pod("p2"), timeline(action)]
    # The engine writes into the manifests it loads (spec.nodeName): each session a copy.
    live = RunSession([("run", copy.deepcopy(docs))], None, seed=1, record=True)
    assert live.advance(2) == 2
    assert live.scheduler.bindings["default/p2"] is None
    assert "b" in live.scheduler.cache.node_infos     # applied as soon as cycle 2 is done
    live.advance(None)
    replay = RunSession([("run", copy.deepcopy(docs))], None, seed=1)
    replay.advance(None)
    assert live.scheduler.bindings == replay.scheduler.bindings
    assert live.scheduler.bindings["default/p2"] == "b"
    samples = live.scheduler.life.to_json()["samples"]
    assert samples[-1]["nodes"]["b"]["cpu"] == [1000, 1000]


def test_a_paused_run_step_may_name_a_pod_made_during_the_run():
    """Checked when it runs: a pod that is not there by then makes the step a no-op."""
    from scheduler_core.session import RunSession

    docs = [node("a", cpu="2"), deployment("web", 1), timeline(
        {"at": 0, "afterCycle": 1, "action": "Delete", "kind": "Pod", "name": "web-gone"},
        {"at": 0, "afterCycle": 1, "action": "CompletePod", "pod": "default/web-gone"})]
    session = RunSession([("run", docs)], None, seed=1, record=True)
    session.advance(None)
    outcomes = [s["outcome"] for s in session.scheduler.life.to_json()["steps"]]
    assert outcomes == ['skipped: pod "default/web-gone" does not exist'] * 2


def test_a_pod_step_of_a_timeline_must_name_a_pod_that_exists(tmp_path):
    with pytest.raises(InputError, match=r"spec.steps\[0\].name: Pod \"web-gone\" does not"):
        run(tmp_path, node("a"), timeline(
            {"at": 5, "action": "Delete", "kind": "Pod", "name": "web-gone"}))


def test_a_statefulset_pod_comes_back_under_its_name(tmp_path):
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
           "spec": {"replicas": 2, "podManagementPolicy": "Parallel", "serviceName": "db",
                    "selector": {"matchLabels": {"app": "db"}},
                    "template": {"metadata": {"labels": {"app": "db"}},
                                 "spec": pod("db", cpu="500m")["spec"]}}}
    result = run(tmp_path, node("a"), node("b"), sts, timeline(
        {"at": 10, "action": "Delete", "kind": "Pod", "name": "db-1"},
        {"at": 100, "action": "Scale", "kind": "StatefulSet", "name": "db", "replicas": 1}))
    life = result.scheduler.life
    assert sorted(life.informer.pods) == ["default/db-0"]
    recreated = [m for m in life.to_json()["queueMoves"] if m["pod"] == "default/db-1"]
    # db-1 is made again once the deleted one is gone (30s grace), then scaled away.
    assert [(m["time"], m["event"]) for m in recreated][-1] == (40.0, "PodAdd")
    events = [(e["time"], e["pod"], e["event"]) for e in life.to_json()["podEvents"]]
    assert (100.0, "default/db-1", "scaled down") in events


def test_a_new_deployment_template_makes_a_new_replicaset_and_retires_the_old(tmp_path):
    changed = deployment("web", 2)
    changed["spec"]["template"]["metadata"]["labels"]["version"] = "2"
    result = run(tmp_path, node("a", cpu="8"), deployment("web", 2), timeline(
        {"at": 10, "action": "Update", "object": changed}))
    life = result.scheduler.life
    sets = life.manager.of_kind("ReplicaSet")
    assert [s["spec"]["replicas"] for s in sets] == [0, 2]
    assert sets[0]["metadata"]["name"] != sets[1]["metadata"]["name"]
    running = [p for p in life.informer.pods.values() if not p.terminating]
    assert len(running) == 2 and all(p.labels["version"] == "2" for p in running)
    assert all(p.node_name == "a" for p in running)
