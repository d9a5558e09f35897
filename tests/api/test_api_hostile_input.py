"""Every hostile input we know of against the API: a clear JSON 4xx naming the field, nothing
stored, never a 500, a traceback or a hang."""

import json

import pytest
from django.core.cache import cache
from django.test import Client

from playground.clusters.models import Cluster, Node, Pod
from playground.profiles.models import SchedulerProfile
from scheduler_core.tests.test_safe_read import ALIAS_BOMB

DEEP = "[" * 100_000 + "]" * 100_000
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "i"}]}}


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """Throttle and lockout counters live in the cache: each test starts from none."""
    cache.clear()
    yield
    cache.clear()


def _import(api, text, name="hostile"):
    return api.post("/api/clusters/import/", {"name": name,
                                              "files": [{"name": "in.yaml", "text": text}]},
                    format="json")


def _raw(api, method, path, body: str):
    return getattr(api, method)(path, body, content_type="application/json")


def _pod(**spec):
    return {**POD, "spec": {**POD["spec"], **spec}}


def test_deep_nesting_in_a_profile_put_body_is_a_400(api, cluster):
    before = SchedulerProfile.objects.get(cluster=cluster).config
    response = _raw(api, "put", f"/api/clusters/{cluster.pk}/profile/", DEEP)
    assert response.status_code == 400
    assert "nesting is deeper than the limit of 100 levels" in response.json()["detail"]
    assert SchedulerProfile.objects.get(cluster=cluster).config == before


def test_deep_nesting_as_profile_text_is_a_400(api, cluster):
    response = api.put(f"/api/clusters/{cluster.pk}/profile/", {"text": "a: " + DEEP},
                       format="json")
    assert response.status_code == 400
    assert "nesting is deeper" in response.json()["text"][0]


def test_deep_nesting_in_an_import_body_is_a_400(api):
    response = _raw(api, "post", "/api/clusters/import/", DEEP)
    assert response.status_code == 400
    assert not Cluster.objects.filter(name="hostile").exists()


def test_deep_nesting_in_an_imported_file_is_a_400(api):
    response = _import(api, DEEP)
    assert response.status_code == 400
    assert "in.yaml: nesting is deeper" in response.json()["files"][0]
    assert not Cluster.objects.filter(name="hostile").exists()


def test_an_alias_bomb_import_is_refused_quickly(api):
    response = _import(api, ALIAS_BOMB)
    assert response.status_code == 400
    assert "aliases expand to more than" in response.json()["files"][0]


@pytest.mark.parametrize("text", ['{"apiVersion": "v1", "kind": "Namespace", '
                                  '"metadata": {"name": "\\uD83D"}}',
                                  'apiVersion: v1\nkind: Namespace\nmetadata: {name: "\\uD83D"}\n'])
def test_a_lone_surrogate_is_refused_alike_in_json_and_yaml_files(api, text):
    response = _import(api, text)
    assert response.status_code == 400
    assert "lone surrogate" in response.json()["files"][0]


def test_a_lone_surrogate_in_a_request_body_is_a_400(api, cluster):
    body = '{"manifest": {"kind": "Node", "metadata": {"name": "\\uD83D"}}}'
    response = _raw(api, "post", f"/api/clusters/{cluster.pk}/nodes/", body)
    assert response.status_code == 400
    assert "lone surrogate" in response.json()["detail"]


@pytest.mark.parametrize("manifest,field,message", [
    (_pod(containers=5), "manifest.spec.containers", 'Invalid value: "integer"'),
    (_pod(tolerations="oops"), "manifest.spec.tolerations", 'Invalid value: "string"'),
    (_pod(topologySpreadConstraints=[{"maxSkew": "one", "topologyKey": "z",
                                      "whenUnsatisfiable": "DoNotSchedule"}]),
     "manifest.spec.topologySpreadConstraints[0].maxSkew", 'Invalid value: "string"'),
    (_pod(topologySpreadConstraints=[{"maxSkew": 0, "topologyKey": "z",
                                      "whenUnsatisfiable": "DoNotSchedule"}]),
     "manifest.spec.topologySpreadConstraints[0].maxSkew",
     "Invalid value: 0: must be greater than zero"),
    ({**POD, "metadata": {"name": "N_1!/.."}}, "manifest.metadata.name",
     'Invalid value: "N_1!/..": a lowercase RFC 1123 subdomain'),
    ({**POD, "metadata": {"name": "p" * 300}}, "manifest.metadata.name",
     "must be no more than 253 characters"),
    ({**POD, "metadata": {"name": "p", "labels": ["a"]}}, "manifest.metadata.labels",
     'Invalid value: "array"'),
    (_pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "z", "labelSelector": {"matchExpressions": [
            {"key": "a", "operator": "Foo"}]}}]}}),
     "manifest.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
     ".labelSelector.matchExpressions[0].operator", 'Invalid value: "Foo"'),
    (_pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In"}]}]}}}),
     "manifest.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
     ".nodeSelectorTerms[0].matchExpressions[0].values", "Required value"),
])
def test_an_invalid_pod_is_refused_with_its_field_path_and_not_stored(api, cluster, manifest,
                                                                        field, message):
    before = Pod.objects.filter(cluster=cluster).count()
    response = api.post(f"/api/clusters/{cluster.pk}/pods/", {"manifest": manifest},
                        format="json")
    assert response.status_code == 400, response.content
    assert any(m.startswith(message) or message in m for m in response.json()[field])
    assert Pod.objects.filter(cluster=cluster).count() == before


def test_every_problem_of_an_object_is_listed(api, cluster):
    response = api.post(f"/api/clusters/{cluster.pk}/pods/",
                        {"manifest": _pod(containers=5, tolerations="oops")}, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"manifest.spec.containers", "manifest.spec.tolerations"}


def test_1e400_is_refused_by_the_api_as_by_the_command_line(api, cluster):
    node = {"kind": "Node", "metadata": {"name": "big"},
            "status": {"capacity": {"cpu": "1e400"}, "allocatable": {"cpu": "1e400"}}}
    response = api.post(f"/api/clusters/{cluster.pk}/nodes/", {"manifest": node},
                        format="json")
    assert response.status_code == 400
    assert response.json()["manifest.status.capacity.cpu"] == [
        "must be no more than 9223372036854775807: '1e400'"]
    assert not Node.objects.filter(cluster=cluster, name="big").exists()


# kube-scheduler's decoding words (sigs.k8s.io/json): the innermost Go struct and the path.
@pytest.mark.parametrize("config,message", [
    ({"profiles": 5}, "json: cannot unmarshal number into Go struct field "
                      "KubeSchedulerConfiguration.profiles of type []v1.KubeSchedulerProfile"),
    ({"profiles": [{"plugins": "all"}]},
     "json: cannot unmarshal string into Go struct field "
     "KubeSchedulerProfile.profiles.plugins of type v1.Plugins"),
])
def test_a_wrongly_typed_profile_is_a_400_in_kube_schedulers_words(api, cluster, config,
                                                                   message):
    response = api.put(f"/api/clusters/{cluster.pk}/profile/", {"config": config},
                       format="json")
    assert response.status_code == 400
    assert response.json()["config"] == [message]


def test_a_300_character_cluster_name_is_a_400(api):
    response = api.post("/api/clusters/", {"name": "c" * 300}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()


@pytest.mark.parametrize("path", ["/api/runs/?cluster=10000000000000000001",
                                  "/api/clusters/10000000000000000001/",
                                  "/api/runs/10000000000000000001/",
                                  "/api/clusters/10000000000000000001/nodes/"])
def test_huge_ids_are_not_server_errors(api, path):
    response = api.get(path)
    assert response.status_code in (400, 404)
    assert response["Content-Type"].startswith("application/json")


def test_an_unmatched_api_path_is_a_json_404(api):
    response = api.get("/api/no/such/thing/")
    assert response.status_code == 404
    assert response.json() == {"detail": "no API endpoint at /api/no/such/thing/"}


def test_a_server_error_under_api_is_json_without_a_traceback(alice, monkeypatch):
    from playground.profiles import api as profiles_api

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(profiles_api, "plugin_catalog", broken)
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    response = client.get("/api/plugins/")
    assert response.status_code == 500
    assert response.json() == {"detail": "internal server error"}
    assert b"secret internals" not in response.content


def test_plugins_are_a_plain_list_as_documented(api):
    response = api.get("/api/plugins/")
    assert isinstance(response.json(), list)
    schema = api.get("/api/schema/", {"format": "json"}).json()
    ok = schema["paths"]["/api/plugins/"]["get"]["responses"]["200"]["content"]
    assert ok["application/json"]["schema"]["type"] == "array"


def test_bodies_are_parsed_by_the_safe_reader_everywhere(api):
    response = _raw(api, "post", "/api/clusters/", '{"name": ' + "[" * 200 + "]" * 200 + "}")
    assert response.status_code == 400
    assert json.loads(response.content)["detail"].startswith("request body: nesting")


def test_a_post_to_an_unmatched_api_path_is_a_json_404_not_a_csrf_page(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post("/api/clusters/-1/nodes/", {})
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
