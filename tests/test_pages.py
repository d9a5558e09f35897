"""The browser pages (playground/site/pages.py) and the API reads only they use (profiles/api.py,
runs/api.py): access, the profile editor's YAML and check, the run page's objects and history."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from playground.runs.services import run_create
from tests.api.conftest import finish_run, import_fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol(client):
    user = User.objects.create_user("carol", password="carol-password-1")
    client.force_login(user)
    return user


def post(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")


def test_pages_need_a_login(client):
    response = client.get("/clusters/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    assert post(client, "/api/profiles/check/", {}).status_code == 403


def test_pages_render_for_what_the_user_may_see(client, carol):
    cluster = import_fixture(carol, "preemption-lesson.yaml")
    run = run_create(cluster=cluster, seed=1, owner=carol)
    for url in ("/clusters/", f"/clusters/{cluster.pk}/", f"/clusters/{cluster.pk}/profile/",
                f"/clusters/{cluster.pk}/compare/", f"/runs/{run.pk}/"):
        page = client.get(url).content.decode()
        assert 'type="module"' in page and "css/pages.css" in page, url
    other = User.objects.create_user("dave", password="dave-password-1")
    hidden = import_fixture(other, "gpu-cluster.yaml")
    assert client.get(f"/clusters/{hidden.pk}/").status_code == 404
    assert client.get(f"/api/clusters/{hidden.pk}/compare/").status_code == 405
    assert post(client, f"/api/clusters/{hidden.pk}/compare/", {}).status_code == 404


def test_yaml_round_trip_and_parse_errors(client, carol):
    config = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
              "profiles": [{"schedulerName": "default-scheduler",
                            "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit",
                                                               "weight": 5}]}}}]}
    text = post(client, "/api/profiles/yaml/", {"data": config}).json()["text"]
    assert text.startswith("apiVersion: kubescheduler.config.k8s.io/v1\nkind: ")
    assert "  - schedulerName: default-scheduler" in text  # block style, lists indented
    assert post(client, "/api/profiles/yaml/", {"text": text}).json() == {"data": config}
    broken = post(client, "/api/profiles/yaml/", {"text": "profiles: [\n  - a: b\n"}).json()
    assert broken["line"] and broken["error"].startswith(f"line {broken['line']}:")
    assert "error" in post(client, "/api/profiles/yaml/", {"text": "- just a list"}).json()


def test_a_key_given_twice_is_kube_schedulers_strict_error_at_its_line(client, carol):
    text = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "profiles:\n- schedulerName: a\n  schedulerName: b\n")
    assert post(client, "/api/profiles/yaml/", {"text": text}).json() == {
        "error": 'strict decoding error: yaml: unmarshal errors: line 5: key "schedulerName" '
                 "already set in map", "line": 5}


def test_profile_check_names_an_unknown_field_as_kube_scheduler_does(client, carol):
    bad = post(client, "/api/profiles/check/", {"config": {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugin": {}}]}}).json()
    assert bad["errors"] == ['strict decoding error: unknown field "profiles[0].plugin"']


def test_profile_check_expands_the_pipeline_or_gives_kube_scheduler_messages(client, carol):
    ok = post(client, "/api/profiles/check/", {"config": None}).json()
    assert ok["ok"]
    default = ok["profiles"][0]
    assert default["points"]["queueSort"] == ["PrioritySort"]
    assert default["weights"]["TaintToleration"] == 3
    assert default["pluginConfig"]["NodeResourcesFit"]["scoringStrategy"]["type"] == \
        "LeastAllocated"
    bad = post(client, "/api/profiles/check/", {"config": {
        "percentageOfNodesToScore": 120,
        "profiles": [{"pluginConfig": [{"name": "InterPodAffinity",
                                        "args": {"hardPodAffinityWeight": 500}}]}]}}).json()
    assert not bad["ok"]
    assert "percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]" in \
        bad["errors"]
    assert any(e.startswith("profiles[0].pluginConfig[0].args.hardPodAffinityWeight")
               for e in bad["errors"])
    negative = post(client, "/api/profiles/check/", {"config": {"profiles": [{"plugins": {
        "score": {"enabled": [{"name": "TaintToleration", "weight": -1}]}}}]}}).json()
    assert negative["errors"] == [
        'profiles[0]: score plugin "TaintToleration" has a negative weight -1']


def test_run_objects_and_timeline_with_preemption(client, carol):
    cluster = import_fixture(carol, "preemption-lesson.yaml")
    run = run_create(cluster=cluster, seed=1, owner=carol)
    objects = client.get(f"/api/runs/{run.pk}/objects/").json()
    assert set(objects["nodes"]) == {"node-1", "node-2", "node-3"}
    assert objects["nodes"]["node-1"]["allocatable"]["cpu"] == 4000
    urgent = objects["pods"]["default/urgent"]
    assert urgent["priority"] == 1000 and urgent["node"] is None
    assert urgent["requests"]["cpu"] == 3000
    assert objects["pods"]["default/batch-1"]["grace"] == 30.0

    cycles = finish_run(run)
    rows = client.get(f"/api/runs/{run.pk}/history/").json()["cycles"]
    assert [r[:5] for r in rows] == [[c["index"], c["time"], c["pod"], c["outcome"], c["node"]]
                                     for c in cycles]
    assert rows[0][5] == {k: cycles[0]["preemption"][k] for k in rows[0][5]}
    assert rows[0][5]["victims"] and all(r[5] is None for r in rows[1:])


def test_compare_runs_the_cluster_under_two_configurations(client, carol):
    cluster = import_fixture(carol, "gpu-cluster.yaml")
    bin_pack = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated"}}}]}]}
    result = post(client, f"/api/clusters/{cluster.pk}/compare/",
                  {"a": None, "b": bin_pack, "seed": 1}).json()
    a, b = result["a"], result["b"]
    assert all(a["bindings"].values()) and all(b["bindings"].values())
    assert sum(1 for p in a["bindings"] if a["bindings"][p] != b["bindings"][p]) > 0
    used = {side: sum(1 for u in r["usage"].values() if u["pods"][0]) for side, r in
            (("a", a), ("b", b))}
    assert used["b"] < used["a"]
    bad = post(client, f"/api/clusters/{cluster.pk}/compare/",
               {"a": None, "b": {"percentageOfNodesToScore": 101}})
    assert bad.status_code == 400
    assert "not in valid range" in bad.json()["b"][0]


@pytest.mark.parametrize("text,error", [
    ("a: " + "[" * 100_000 + "]" * 100_000, "nesting is deeper than the limit of 100 levels"),
    ('a: &a ["x","x","x","x","x","x","x","x","x","x"]\n' + "".join(
        f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdefgh", "bcdefghi")),
     "aliases expand to more than"),
])
def test_the_yaml_helper_refuses_hostile_text_with_an_answer(client, carol, text, error):
    response = post(client, "/api/profiles/yaml/", {"text": text})
    assert response.status_code == 200
    assert error in response.json()["error"]


def test_a_deeply_nested_body_is_refused_as_every_api_call_refuses_it(client, carol):
    response = client.post("/api/profiles/yaml/", "[" * 100_000 + "]" * 100_000,
                           content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {
        "detail": "request body: nesting is deeper than the limit of 100 levels"}


def test_run_objects_give_local_volumes_and_pod_constraints(client, carol):
    storage = run_create(cluster=import_fixture(carol, "storage-lesson.yaml"), seed=1,
                                  owner=carol)
    nodes = client.get(f"/api/runs/{storage.pk}/objects/").json()["nodes"]
    assert nodes["node-a1"]["volumes"] == ["local-a1"]
    assert nodes["node-c1"]["volumes"] == ["local-c1", "logs-c1"]
    lesson = run_create(cluster=import_fixture(carol, "taints-affinity.yaml"), seed=1,
                                 owner=carol)
    pods = client.get(f"/api/runs/{lesson.pk}/objects/").json()["pods"]
    assert pods["default/trainer"]["tolerations"][0]["key"] == "dedicated"
    assert pods["default/trainer"]["nodeSelector"] == {"accelerator": "nvidia"}
    assert "requiredDuringSchedulingIgnoredDuringExecution" in \
        pods["default/nowhere"]["affinity"]["nodeAffinity"]
    assert "affinity" not in pods["default/anywhere"]   # only what a pod sets


def test_the_run_page_carries_its_lesson_text(client, carol):
    run = run_create(cluster=import_fixture(carol, "taints-affinity.yaml",
                                                     cluster_name="taints-affinity"),
                              seed=1, owner=carol)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert '<template id="lesson-text">## 1. taints-affinity:' in page
