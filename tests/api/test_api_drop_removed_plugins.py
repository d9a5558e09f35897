"""The import's dropRemovedPlugins parameter (issue 27): a kube-scheduler-simulator export
(tests/public_files/kube-scheduler-simulator, sources in tests/public_files/SOURCES.md) names
EBSLimits, GCEPDLimits and AzureDiskLimits, removed in kube-scheduler v1.32. Without the
parameter the import is refused naming them; with it they are left out of the stored profile,
a warning each, and the cluster runs."""
import json
from pathlib import Path

import pytest

from playground.clusters.models import Cluster
from playground.profiles.models import SchedulerProfile
from scheduler_core.config import parse_configuration

EXPORT = Path(__file__).resolve().parents[1] / "public_files" / "kube-scheduler-simulator" / \
    "export-case1.json"
REMOVED = ("EBSLimits", "GCEPDLimits", "AzureDiskLimits")
NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def _import(api, query="", name="kss"):
    body = {"name": name, "files": [{"name": "export-case1.json", "text": EXPORT.read_text()},
                                    {"name": "node.yaml", "text": NODE}]}
    return api.post(f"/api/clusters/import/{query}", body, format="json")


def _enabled_names(config: dict) -> set[str]:
    return {p["name"] for profile in config.get("profiles") or []
            for plugin_set in (profile.get("plugins") or {}).values()
            for p in (plugin_set or {}).get("enabled") or []}


@pytest.mark.parametrize("query", ["", "?dropRemovedPlugins=false"])
def test_without_it_the_import_is_refused_naming_each_removed_plugin(api, query):
    response = _import(api, query)
    assert response.status_code == 400
    (message,) = response.json()["files"]
    for name in REMOVED:
        assert f"{name} was removed in kube-scheduler v1.32" in message
    assert not Cluster.objects.exists()


def test_with_it_they_are_left_out_a_warning_each_and_the_profile_is_kept_without_them(api):
    response = _import(api, "?dropRemovedPlugins=true")
    assert response.status_code == 201, response.json()
    dropped = [w for w in response.json()["warnings"] if "left out (dropRemovedPlugins)" in w]
    assert [w.split(": ", 3)[2:] for w in dropped] == [
        [f"profiles[0].plugins.filter.enabled[{i}]", f"{name} was removed in kube-scheduler "
         "v1.32, left out (dropRemovedPlugins); NodeVolumeLimits, in the default profile, "
         "applies the limits CSI drivers report"]
        for i, name in [(7, "EBSLimits"), (8, "GCEPDLimits"), (10, "AzureDiskLimits")]]
    stored = SchedulerProfile.objects.get(cluster__name="kss").config
    assert not _enabled_names(stored) & set(REMOVED)
    original = json.loads(EXPORT.read_text())["schedulerConfig"]
    assert _enabled_names(stored) == _enabled_names(original) - set(REMOVED)
    parse_configuration(stored)    # what runs later reads is a valid profile


def test_it_goes_with_strict_field_validation(api):
    # The export's healthzBindAddress and metricsBindAddress are left out as KSS's import
    # leaves them out (a warning each, Strict or not); the removed plugins are dropped.
    response = _import(api, "?dropRemovedPlugins=true&fieldValidation=Strict")
    assert response.status_code == 201, response.json()
    warnings = response.json()["warnings"]
    assert [w for w in warnings if "BindAddress" in w] == [
        f"export-case1.json: document 1: schedulerConfig: field {field}: not a field of "
        "kubescheduler.config.k8s.io/v1; left out, as kube-scheduler-simulator's import leaves "
        "it out" for field in ("healthzBindAddress", "metricsBindAddress")]
    assert len([w for w in warnings if "left out (dropRemovedPlugins)" in w]) == 3


def test_reimport_takes_it_as_well(api):
    cluster_id = api.post("/api/clusters/import/", {
        "name": "empty", "files": [{"name": "node.yaml", "text": NODE}]},
        format="json").json()["cluster"]["id"]
    body = {"files": [{"name": "export-case1.json", "text": EXPORT.read_text()}]}
    refused = api.post(f"/api/clusters/{cluster_id}/import/", body, format="json")
    assert refused.status_code == 400
    done = api.post(f"/api/clusters/{cluster_id}/import/?dropRemovedPlugins=true", body,
                    format="json")
    assert done.status_code == 200, done.json()
    assert not _enabled_names(SchedulerProfile.objects.get(cluster_id=cluster_id).config) & \
        set(REMOVED)


@pytest.mark.parametrize("value", ["yes", "1", "True", ""])
def test_another_value_is_refused_by_field(api, value):
    response = _import(api, f"?dropRemovedPlugins={value}")
    assert response.status_code == 400
    assert response.json() == {"dropRemovedPlugins": [
        f'dropRemovedPlugins: Unsupported value: "{value}": supported values: "true", "false"']}
    assert not Cluster.objects.exists()


def test_the_parameter_is_in_the_openapi_schema(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    for path in ("/api/clusters/import/", "/api/clusters/{id}/import/"):
        (param,) = [p for p in schema["paths"][path]["post"]["parameters"]
                    if p["name"] == "dropRemovedPlugins"]
        assert param["in"] == "query"
        assert param["schema"] == {"type": "boolean", "default": False}
