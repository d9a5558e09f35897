"""A run's feature gates (issue 26): `feature_gates` on create, as kube-scheduler's
--feature-gates string or as a map, on top of the run's release; refused as `simulate
--feature-gates` refuses it (scheduler_core.features, component-base's featuregate `Set`),
by field, in words that name the gate."""
import pytest

from playground.runs.models import Run
from playground.runs.sessions import new_session


def _create(api, cluster, **extra):
    return api.post("/api/runs/", {"cluster": cluster.pk, **extra}, format="json")


def _gates_of(body):
    return new_session(Run.objects.get(pk=body["id"])).scheduler.features


def test_a_run_has_no_gate_set_by_default(api, cluster):
    body = _create(api, cluster).json()
    assert body["feature_gates"] == {}
    assert not _gates_of(body).enabled("GangScheduling")


@pytest.mark.parametrize("gates", ["GenericWorkload=true,GangScheduling=true",
                                   {"GenericWorkload": True, "GangScheduling": True}])
def test_a_run_takes_the_gates_as_a_flag_or_a_map(api, cluster, gates):
    response = _create(api, cluster, release="1.36", feature_gates=gates)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["feature_gates"] == {"GenericWorkload": True, "GangScheduling": True}
    features = _gates_of(body)
    assert features.release == "1.36"
    assert features.enabled("GenericWorkload") and features.enabled("GangScheduling")


def test_a_gate_set_to_its_default_is_kept_as_given(api, cluster):
    body = _create(api, cluster, feature_gates="DRAPartitionableDevices=false").json()
    assert body["feature_gates"] == {"DRAPartitionableDevices": False}
    assert not _gates_of(body).enabled("DRAPartitionableDevices")


def test_setting_a_ga_gate_warns_as_kube_scheduler_does(api, cluster):
    body = _create(api, cluster, feature_gates="DRADeviceTaints=true").json()
    warnings = new_session(Run.objects.get(pk=body["id"])).scheduler.warnings.to_list()
    assert ("--feature-gates: Setting GA feature gate DRADeviceTaints=true. It will be removed "
            "in a future release.") in warnings


@pytest.mark.parametrize("release,gates,message", [
    ("1.37", "NoSuchGate=true", "unrecognized feature gate: NoSuchGate"),
    ("1.37", {"NoSuchGate": False}, "unrecognized feature gate: NoSuchGate"),
    # CompositePodGroup is new in v1.37: v1.36's kube-scheduler does not know it.
    ("1.36", "CompositePodGroup=true", "unrecognized feature gate: CompositePodGroup"),
    # SchedulerQueueingHints left the list in v1.37.
    ("1.37", "SchedulerQueueingHints=true", "unrecognized feature gate: SchedulerQueueingHints"),
    ("1.37", "DRAExtendedResource=false",
     "cannot set feature gate DRAExtendedResource to false, feature is locked to true"),
    ("1.35", {"DynamicResourceAllocation": False},
     "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"),
    ("1.35", "GangScheduling=true",
     "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]"),
    ("1.37", "GangScheduling", "missing bool value for GangScheduling"),
    ("1.37", "GangScheduling=yes", 'invalid value of GangScheduling=yes, err: '
                                   'strconv.ParseBool: parsing "yes": invalid syntax'),
    ("1.37", {"GangScheduling": "true"}, "GangScheduling: must be true or false, not a string"),
    ("1.37", ["GangScheduling=true"],
     'must be "NAME=BOOL,..." or a map of gate names to true or false'),
])
def test_a_gate_kube_scheduler_refuses_is_refused_by_field(api, cluster, release, gates,
                                                           message):
    response = _create(api, cluster, release=release, feature_gates=gates)
    assert response.status_code == 400
    assert response.json() == {"feature_gates": [message]}
    assert not Run.objects.exists()


def test_a_bad_release_is_named_before_the_gates(api, cluster):
    response = _create(api, cluster, release="1.30", feature_gates="NoSuchGate=true")
    assert response.status_code == 400
    assert list(response.json()) == ["release"]


def test_comparing_two_runs_names_each_ones_gates(api, cluster):
    a = _create(api, cluster, release="1.36",
                feature_gates="GenericWorkload=true,GangScheduling=true").json()
    b = _create(api, cluster).json()
    body = api.get(f"/api/runs/compare/?a={a['id']}&b={b['id']}").json()
    assert body["a"]["run"]["feature_gates"] == "GenericWorkload=true,GangScheduling=true"
    assert body["b"]["run"]["feature_gates"] == ""


GANG = "GenericWorkload=true,GangScheduling=true"


@pytest.mark.parametrize("gates, on", [("", False), (GANG, True)])
def test_the_profile_check_follows_the_gates(api, gates, on):
    # applyGangScheduling (apis/config/v1/default_plugins.go): the plugin joins the default
    # profile with its gate.
    body = api.post("/api/profiles/check/", {"config": None, "release": "1.36",
                                             "feature_gates": gates}, format="json").json()
    assert body["ok"]
    assert ("GangScheduling" in body["profiles"][0]["points"]["preEnqueue"]) is on


def test_a_check_with_a_gate_the_release_lacks_is_refused_by_field(api):
    response = api.post("/api/profiles/check/", {"release": "1.35",
                                                 "feature_gates": "CompositePodGroup=true"},
                        format="json")
    assert response.status_code == 400
    assert response.json() == {"feature_gates": ["unrecognized feature gate: CompositePodGroup"]}


def test_compare_runs_each_side_under_its_gates(api, cluster):
    body = api.post(f"/api/clusters/{cluster.pk}/compare/",
                    {"release_a": "1.36", "release_b": "1.36", "feature_gates_b": GANG,
                     "seed": 1}, format="json").json()
    assert (body["a"]["feature_gates"], body["b"]["feature_gates"]) == ("", GANG)


@pytest.mark.parametrize("extra, field, message", [
    ({"feature_gates_b": "GangScheduling=true", "release_b": "1.35"}, "feature_gates_b",
     "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]"),
    ({"feature_gates_a": "Nope=true"}, "feature_gates_a", "unrecognized feature gate: Nope"),
    ({"feature_gates_a": "Nope=true", "release_a": "2.0"}, "release_a",
     '"2.0" is not a release the engine follows; accepted: 1.34, 1.35, 1.36, 1.37'),
])
def test_compare_refuses_a_side_s_gates_naming_its_field(api, cluster, extra, field, message):
    response = api.post(f"/api/clusters/{cluster.pk}/compare/", extra, format="json")
    assert response.status_code == 400
    assert response.json() == {field: [message]}
