"""/api/clusters/{id}/sweeps/, /api/sweeps/{id}/ and its cancel: a grid of configurations
run variant by variant as background tasks."""
import pytest
import yaml
from django.test import override_settings

from playground.whatif import sweeps
from playground.whatif.models import Sweep, SweepVariant
from tests.helpers import import_cluster


def node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def pod(name: str, cpu: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "pause", "resources": {
                "requests": {"cpu": cpu}}}]}}


@pytest.fixture
def spread_out(alice):
    """Ten 1-CPU pods then one of 3 CPUs over four 4-CPU nodes: spreading strands the big one."""
    docs = [*(node(f"n{i}") for i in range(4)), *(pod(f"p{i}", "1") for i in range(10)),
            pod("big", "3")]
    return import_cluster(alice, "spread.yaml", text=yaml.safe_dump_all(docs))


GRID = {"strategies": ["LeastAllocated", "MostAllocated"], "weights": {"NodeResourcesFit": [1, 3]}}


def create(api, cluster, body, capture):
    with capture(execute=True):
        return api.post(f"/api/clusters/{cluster.pk}/sweeps/", body, format="json")


@override_settings(PLAYGROUND_TASKS_SYNC=True)
def test_each_variant_runs_as_a_task_and_the_sweep_ends_after_the_last(
        api, spread_out, django_capture_on_commit_callbacks):
    response = create(api, spread_out, {"grid": GRID}, django_capture_on_commit_callbacks)
    assert response.status_code == 201, response.json()
    assert response.json()["total"] == 4
    sweep = api.get(f"/api/sweeps/{response.json()['id']}/").json()
    assert sweep["status"] == "done" and sweep["finished"]
    assert sweep["counts"]["done"] == 4
    by_label = {v["label"]: v for v in sweep["variants"]}
    spread = by_label["NodeResourcesFit=1, strategy=LeastAllocated"]["metrics"]
    packed = by_label["NodeResourcesFit=3, strategy=MostAllocated"]["metrics"]
    assert (spread["bound"], spread["pending"], spread["fragmentation"]) == (10, 1, 1.0)
    assert (packed["bound"], packed["pending"], packed["fragmentation"]) == (11, 0, 0.0)
    config = by_label["NodeResourcesFit=3, strategy=MostAllocated"]["config"]
    fit = config["profiles"][0]["pluginConfig"][0]
    assert fit["args"]["scoringStrategy"]["type"] == "MostAllocated"
    assert all(v["worker"] and v["seconds"] is not None for v in sweep["variants"])
    listed = api.get(f"/api/clusters/{spread_out.pk}/sweeps/").json()
    assert [s["id"] for s in listed] == [sweep["id"]] and "variants" not in listed[0]


@override_settings(PLAYGROUND_TASKS_SYNC=True)
def test_a_grid_given_as_yaml_text_is_read(api, spread_out, django_capture_on_commit_callbacks):
    text = "releases: ['1.36', '1.37']\npercentageOfNodesToScore: [50]\n"
    response = create(api, spread_out, {"grid": text, "seed": 3},
                      django_capture_on_commit_callbacks)
    assert response.status_code == 201, response.json()
    sweep = api.get(f"/api/sweeps/{response.json()['id']}/").json()
    assert [v["release"] for v in sweep["variants"]] == ["1.36", "1.37"]
    assert sweep["seed"] == 3 and sweep["counts"]["done"] == 2


@override_settings(PLAYGROUND_TASKS_SYNC=True)
def test_a_failed_variant_is_recorded_and_the_others_go_on(
        api, spread_out, django_capture_on_commit_callbacks, monkeypatch):
    real = sweeps.run_variant

    def failing_first(sources, variant, **kw):
        if variant.index == 0:
            raise RuntimeError("the engine broke")
        return real(sources, variant, **kw)
    monkeypatch.setattr(sweeps, "run_variant", failing_first)
    response = create(api, spread_out, {"grid": GRID}, django_capture_on_commit_callbacks)
    sweep = api.get(f"/api/sweeps/{response.json()['id']}/").json()
    assert sweep["status"] == "done"
    assert sweep["counts"] == {"queued": 0, "running": 0, "done": 3, "failed": 1, "skipped": 0}
    first = sweep["variants"][0]
    assert first["error"] == "internal error: RuntimeError: the engine broke"
    assert first["metrics"] is None


def test_a_cancelled_sweep_skips_the_variants_not_started(api, spread_out):
    # Without the commit callbacks run, nothing has started yet.
    sweep_id = api.post(f"/api/clusters/{spread_out.pk}/sweeps/", {"grid": GRID},
                        format="json").json()["id"]
    first = SweepVariant.objects.get(sweep_id=sweep_id, index=0)
    sweeps.sweep_variant_execute(variant_id=first.pk)       # one ran before the cancel
    response = api.post(f"/api/sweeps/{sweep_id}/cancel/")
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert response.json()["counts"]["skipped"] == 3
    for variant in SweepVariant.objects.filter(sweep_id=sweep_id, index__gt=0):
        sweeps.sweep_variant_execute(variant_id=variant.pk)  # their tasks arrive: nothing runs
    sweeps.sweep_finish(sweep_id=sweep_id)
    sweep = api.get(f"/api/sweeps/{sweep_id}/").json()
    assert sweep["status"] == "cancelled" and sweep["finished"]
    assert [v["status"] for v in sweep["variants"]] == ["done", "skipped", "skipped", "skipped"]
    again = api.post(f"/api/sweeps/{sweep_id}/cancel/")
    assert again.status_code == 409
    assert again.json()["status"] == ["the sweep is cancelled already"]


@pytest.mark.parametrize("body, field, message", [
    ({}, "grid", "grid: give at least one axis"),
    ({"grid": "a: [1"}, "grid", "grid: not YAML or JSON"),
    ({"grid": {"speed": [1]}}, "grid", "grid.speed: unknown axis"),
    ({"grid": {"weights": {"NodeResourcesFit": [0]}}}, "grid",
     "grid.weights.NodeResourcesFit: 0 is not a weight"),
    ({"grid": {"disabled": [["PrioritySort"]]}}, "grid", "grid: variant 0 (disabled=PrioritySort)"),
    ({"grid": {"percentageOfNodesToScore": [10, 20], "releases": ["1.36", "1.37"]}}, "grid",
     "grid: 4 variants is more than the limit PLAYGROUND_SWEEP_MAX_VARIANTS of 3"),
    ({"grid": GRID, "seed": True}, "seed", "must be a whole number"),
    ({"grid": {"featureGates": ["", "Nope=true"]}}, "grid",
     'grid: variant 1 (featureGates=Nope=true): grid.featureGates[1]: kube-scheduler v1.37 '
     'refuses "Nope=true": unrecognized feature gate: Nope'),
    ({"grid": {"featureGates": [{"DRAAdminAccess": False}]}}, "grid",
     "grid: variant 0 (featureGates=DRAAdminAccess=false): grid.featureGates[0]: kube-scheduler "
     'v1.37 refuses "DRAAdminAccess=false": cannot set feature gate DRAAdminAccess to false, '
     "feature is locked to true"),
])
@override_settings(PLAYGROUND_SWEEP_MAX_VARIANTS=3)
def test_bad_input_is_a_400_by_field_and_nothing_is_stored(api, spread_out, body, field,
                                                             message):
    response = api.post(f"/api/clusters/{spread_out.pk}/sweeps/", body, format="json")
    assert response.status_code == 400
    (got,) = response.json()[field]
    assert got.startswith(message), got
    assert Sweep.objects.count() == SweepVariant.objects.count() == 0


@override_settings(PLAYGROUND_TASKS_SYNC=True)
def test_a_feature_gates_axis_runs_each_variant_under_its_gates_with_its_warnings(
        api, alice, django_capture_on_commit_callbacks):
    """PodLevelResources off drops spec.resources (the API server's dropDisabledPodFields):
    the pod's 3 CPUs at pod level are not counted and it fits the 2-CPU node."""
    big = pod("big", "1")
    big["spec"]["resources"] = {"requests": {"cpu": "3"}}
    small = {**node("n0"), "status": {"allocatable": {"cpu": "2", "memory": "8Gi",
                                                      "pods": "110"}}}
    cluster = import_cluster(alice, "plr.yaml", text=yaml.safe_dump_all([small, big]))
    off = {"PodLevelResources": False, "InPlacePodLevelResourcesVerticalScaling": False}
    response = create(api, cluster, {"grid": {"featureGates": ["", off]}},
                      django_capture_on_commit_callbacks)
    assert response.status_code == 201, response.json()
    defaults, dropped = api.get(f"/api/sweeps/{response.json()['id']}/").json()["variants"]
    assert (defaults["feature_gates"], defaults["label"]) == ("", "featureGates=defaults")
    assert dropped["feature_gates"] == \
        "PodLevelResources=false,InPlacePodLevelResourcesVerticalScaling=false"
    assert dropped["label"] == f"featureGates={dropped['feature_gates']}"
    assert (defaults["metrics"]["bound"], dropped["metrics"]["bound"]) == (0, 1)
    assert not any("spec.resources" in w for w in defaults["warnings"])
    assert any("spec.resources" in w and "PodLevelResources feature gate is off" in w
               for w in dropped["warnings"])


def test_other_users_sweeps_are_not_found(api, bob_api, spread_out):
    sweep = Sweep.objects.create(cluster=spread_out, owner=spread_out.owner, grid={})
    assert bob_api.get(f"/api/sweeps/{sweep.pk}/").status_code == 404
    assert bob_api.post(f"/api/sweeps/{sweep.pk}/cancel/").status_code == 404
    assert api.get(f"/api/sweeps/{sweep.pk}/").status_code == 200
