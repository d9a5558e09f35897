"""/api/clusters/{id}/profile/: the KubeSchedulerConfiguration, checked as kube-scheduler does."""

import pytest

from playground.profiles.models import SchedulerProfile

API_VERSION = "kubescheduler.config.k8s.io/v1"


def _put(api, cluster, config):
    return api.put(f"/api/clusters/{cluster.pk}/profile/", {"config": config}, format="json")


def test_it_reads_the_profile(api, cluster):
    response = api.get(f"/api/clusters/{cluster.pk}/profile/")
    assert response.status_code == 200
    assert response.json()["config"] == {"apiVersion": API_VERSION,
                                         "kind": "KubeSchedulerConfiguration"}


def test_it_reads_the_profile_of_a_shared_cluster(api, shared_cluster):
    assert api.get(f"/api/clusters/{shared_cluster.pk}/profile/").status_code == 200


def test_it_replaces_the_profile(api, cluster):
    config = {"profiles": [{"schedulerName": "default-scheduler", "plugins": {
        "score": {"enabled": [{"name": "NodeResourcesBalancedAllocation", "weight": 5}]}}}]}
    response = _put(api, cluster, config)
    assert response.status_code == 200, response.json()
    stored = SchedulerProfile.objects.get(cluster=cluster).config
    assert stored["kind"] == "KubeSchedulerConfiguration" and stored["apiVersion"] == API_VERSION
    assert stored["profiles"] == config["profiles"]


def test_it_takes_yaml_text(api, cluster):
    text = f"apiVersion: {API_VERSION}\nkind: KubeSchedulerConfiguration\n" \
           "percentageOfNodesToScore: 40\n"
    response = api.put(f"/api/clusters/{cluster.pk}/profile/", {"text": text}, format="json")
    assert response.status_code == 200
    assert response.json()["config"]["percentageOfNodesToScore"] == 40


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"percentageOfNodesToScore": 120},
         "percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]"),
        ({"podInitialBackoffSeconds": 0},
         "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"),
        ({"profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]},
         'profiles[1].schedulerName: Duplicate value: "a"'),
        ({"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
            "scoringStrategy": {"type": "Nope"}}}]}]},
         "profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"Nope\""),
        ({"apiVersion": "kubescheduler.config.k8s.io/v1beta3"},
         'no kind "KubeSchedulerConfiguration" is registered for version '
         '"kubescheduler.config.k8s.io/v1beta3"'),
        ({"kind": "Pod"}, 'kind: Invalid value: "Pod": must be KubeSchedulerConfiguration'),
    ],
    ids=["percentage out of range", "zero backoff", "duplicate scheduler name",
         "bad scoring strategy", "old apiVersion", "wrong kind"],
)
def test_it_rejects_an_invalid_profile_with_kube_schedulers_messages(api, cluster, config,
                                                                     message):
    before = SchedulerProfile.objects.get(cluster=cluster).config
    response = _put(api, cluster, config)
    assert response.status_code == 400
    messages = response.json()["config"]
    assert any(m.startswith(message) for m in messages), messages
    assert SchedulerProfile.objects.get(cluster=cluster).config == before


def test_it_lists_every_error_with_its_field_path(api, cluster):
    response = _put(api, cluster, {"percentageOfNodesToScore": -1, "profiles": [
        {"percentageOfNodesToScore": 101}]})
    assert response.status_code == 400
    # In ValidateKubeSchedulerConfiguration's order: the profiles, then the global fields.
    assert [m.split(":")[0] for m in response.json()["config"]] == [
        "profiles[0].percentageOfNodesToScore", "percentageOfNodesToScore"]


def test_it_rejects_an_unknown_plugin(api, cluster):
    response = _put(api, cluster, {"profiles": [{"plugins": {"filter": {
        "enabled": [{"name": "NoSuchPlugin"}]}}}]})
    assert response.status_code == 400
    assert "NoSuchPlugin" in response.json()["config"][0]


def test_it_knows_the_out_of_tree_plugins_from_settings(api, cluster):
    response = _put(api, cluster, {"profiles": [{"plugins": {"multiPoint": {
        "enabled": [{"name": "Coscheduling"}]}, "queueSort": {
        "disabled": [{"name": "PrioritySort"}]}}}]})
    assert response.status_code == 200, response.json()


@pytest.mark.parametrize("body", [{}, {"config": {}, "text": "x"}, {"config": "text"},
                                  {"text": "a: [unclosed"}, {"text": "---\na: 1\n---\nb: 2\n"}],
                         ids=["nothing", "both", "not an object", "bad yaml", "two documents"])
def test_it_rejects_a_malformed_request(api, cluster, body):
    response = api.put(f"/api/clusters/{cluster.pk}/profile/", body, format="json")
    assert response.status_code == 400


def test_it_refuses_changes_to_a_shared_cluster_of_another_user(api, shared_cluster):
    assert _put(api, shared_cluster, {}).status_code == 403


def test_it_rejects_other_users_cluster(api, bobs_cluster):
    assert api.get(f"/api/clusters/{bobs_cluster.pk}/profile/").status_code == 404
    assert _put(api, bobs_cluster, {}).status_code == 404


def test_it_rejects_anonymous_users(anon, shared_cluster):
    assert anon.get(f"/api/clusters/{shared_cluster.pk}/profile/").status_code in (401, 403)


def test_it_rejects_nul_characters(api, cluster):
    response = _put(api, cluster, {"profiles": [{"schedulerName": "a\u0000b"}]})
    assert response.status_code == 400
    assert "NUL" in response.json()["config"][0]
