"""The command line as people expect it (issue 27): bundled plugins, stdin, -o yaml, help on
every flag, YAML errors worded for YAML, --strict, --drop-removed-plugins, and public files
(tests/public_files/strict, sources in its SOURCE.md)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scheduler_core.cli import build_parser, printable

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "tests" / "public_files" / "strict"
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
       "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


def run(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", *map(str, args)], cwd=ROOT,
                          input=stdin, capture_output=True, text=True, check=False)


def refused(*args, stdin: str | None = None) -> str:
    done = run(*args, stdin=stdin)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    return line


def dump(*docs) -> str:
    return yaml.safe_dump_all(docs)


def test_a_dash_reads_the_cluster_from_standard_input():
    done = run("simulate", "-", "-o", "json", stdin=dump(NODE, POD))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bindings"] == {"default/web": "n1"}


def test_yaml_output_holds_what_json_does():
    as_yaml = yaml.safe_load(run("simulate", "-", "--output", "yaml", stdin=dump(NODE, POD)).stdout)
    as_json = json.loads(run("simulate", "-", "-o", "json", stdin=dump(NODE, POD)).stdout)
    assert as_yaml == as_json


def subcommands() -> dict:
    (sub,) = [a for a in build_parser()._actions if a.dest == "command"]
    return sub.choices


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_every_flag_of_every_command_has_a_help_text(command):
    missing = [a.dest for a in subcommands()[command]._actions if not a.help]
    assert missing == []


def test_a_helm_template_gets_a_yaml_message_naming_the_line(tmp_path):
    path = tmp_path / "deployment.yaml"
    path.write_text("{{- if .Values.enabled }}\napiVersion: v1\nkind: Pod\n{{- end }}\n")
    line = refused("simulate", path)
    assert line.startswith(f"error: {path}: cannot parse YAML: line 1, column 3: ")
    assert "helm template" in line and "JSON" not in line


def test_a_priority_beyond_int32_exits_2_naming_the_field():
    pod = {**POD, "spec": {**POD["spec"], "priority": 10 ** 26}}
    line = refused("simulate", "-", stdin=dump(NODE, pod))
    assert line == ("error: -: document 2: Pod default/web: field spec.priority: json: cannot "
                    "unmarshal number 100000000000000000000000000 into Go struct field "
                    "PodSpec.spec.priority of type int32")


def test_an_unknown_field_warns_and_the_pod_ignores_it_then_strict_refuses_it():
    pod = {**POD, "spec": {**POD["spec"], "nodeSelectr": {"disktype": "hdd"}}}
    done = run("simulate", "-", "-o", "json", stdin=dump(NODE, pod))
    assert done.stderr.splitlines() == [
        'Warning: -: document 2: Pod default/web: unknown field "spec.nodeSelectr"']
    assert json.loads(done.stdout)["bindings"] == {"default/web": "n1"}
    assert refused("simulate", "-", "--strict", stdin=dump(NODE, pod)) == (
        'error: -: document 2: Pod default/web: strict decoding error: unknown field '
        '"spec.nodeSelectr"')


def test_a_nul_byte_in_the_input_is_escaped_in_the_error_line():
    assert printable('bad name "a\x00b"\n') == 'bad name "a\\u0000b"\\n'


CONFIG = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
          "profiles": [{"plugins": {"filter": {"enabled": [{"name": "EBSLimits"}]},
                                    "multiPoint": {"enabled": [{"name": "GCEPDLimits"},
                                                               {"name": "AzureDiskLimits"}]}}}]}


def test_removed_plugins_are_refused_saying_which():
    line = refused("simulate", "-", stdin=dump(CONFIG, NODE, POD))
    for name in ("EBSLimits", "GCEPDLimits", "AzureDiskLimits"):
        assert f"{name} was removed in kube-scheduler v1.32" in line


def test_drop_removed_plugins_leaves_them_out_with_one_warning_each():
    done = run("simulate", "-", "--drop-removed-plugins", "-o", "json",
               stdin=dump(CONFIG, NODE, POD))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"Warning: -: KubeSchedulerConfiguration: profiles[0].plugins.{where}: {name} was "
        "removed in kube-scheduler v1.32, left out (--drop-removed-plugins); NodeVolumeLimits, "
        "in the default profile, applies the limits CSI drivers report"
        for where, name in [("multiPoint.enabled[0]", "GCEPDLimits"),
                            ("multiPoint.enabled[1]", "AzureDiskLimits"),
                            ("filter.enabled[0]", "EBSLimits")]]
    assert json.loads(done.stdout)["bindings"] == {"default/web": "n1"}


@pytest.mark.parametrize("name, version, dropped", [
    ("coscheduling-scheduler-config.yaml", "v1beta3", "v1.29"),
    ("capacityscheduling-scheduler-config-v1beta2.yaml", "v1beta2", "v1.28"),
])
def test_scheduler_plugins_manifests_are_refused_for_their_version_then_read_as_v1(
        tmp_path, name, version, dropped):
    path = PUBLIC / name
    line = refused("simulate", "-", "--config", path, stdin=dump(NODE, POD))
    assert (f'no kind "KubeSchedulerConfiguration" is registered for version '
            f'"kubescheduler.config.k8s.io/{version}"') in line
    assert f"kube-scheduler dropped it in {dropped}" in line
    as_v1 = tmp_path / name
    as_v1.write_text(path.read_text().replace(f"kubescheduler.config.k8s.io/{version}",
                                              "kubescheduler.config.k8s.io/v1"))
    done = run("simulate", "-", "--config", as_v1, "-o", "json", stdin=dump(NODE, POD))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bindings"] == {"default/web": "n1"}


def test_scheduler_plugins_capacity_manifest_as_v1_keeps_a_namespace_within_its_quota(tmp_path):
    # The manifest enables CapacityScheduling at preFilter, postFilter (alone) and reserve: the
    # first two pods fill team-a's min and max of 2Gi, the third is refused by its quota.
    as_v1 = tmp_path / "capacity.yaml"
    as_v1.write_text((PUBLIC / "capacityscheduling-scheduler-config-v1beta2.yaml").read_text()
                     .replace("/v1beta2", "/v1"))
    quota = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
             "metadata": {"name": "q", "namespace": "team-a"},
             "spec": {"min": {"memory": "2Gi"}, "max": {"memory": "2Gi"}}}
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}",
                                                            "namespace": "team-a"},
             "spec": {"containers": [{"name": "c", "image": "nginx",
                                      "resources": {"requests": {"memory": "1Gi"}}}]}}
            for i in (1, 2, 3)]
    done = run("simulate", "-", "--config", as_v1, "-o", "json", "--max-cycles", "3",
               stdin=dump(NODE, quota, *pods))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["bindings"] == {"team-a/p1": "n1", "team-a/p2": "n1", "team-a/p3": None}
    (third,) = [c for c in out["cycles"] if c["pod"] == "team-a/p3"]
    assert "Pod team-a/p3 is rejected in PreFilter because ElasticQuota team-a is more than " \
           "Max" in json.dumps(third)


def test_the_multiple_schedulers_example_loads_with_only_its_skipped_kinds_warned():
    done = run("simulate", "-", PUBLIC / "my-scheduler.yaml", PUBLIC / "pod3.yaml", "-o", "json",
               stdin=dump(NODE))
    assert done.returncode == 0, done.stderr
    assert [line.rsplit(": ", 1)[1] for line in done.stderr.splitlines()] == [
        "skipping unsupported kind 'ServiceAccount'", "skipping unsupported kind "
        "'ClusterRoleBinding'", "skipping unsupported kind 'ClusterRoleBinding'",
        "skipping unsupported kind 'ConfigMap'"]
    bindings = json.loads(done.stdout)["bindings"]
    assert bindings["default/annotation-second-scheduler"] is None
    assert [node for key, node in bindings.items() if key.startswith("kube-system/")] == ["n1"]


def test_the_multiple_schedulers_config_is_refused_as_v1beta2_and_runs_as_v1(tmp_path):
    config = PUBLIC / "my-scheduler-config.yaml"
    line = refused("simulate", "-", PUBLIC / "pod3.yaml", "--config", config, stdin=dump(NODE))
    assert 'registered for version "kubescheduler.config.k8s.io/v1beta2"' in line
    as_v1 = tmp_path / "config.yaml"
    as_v1.write_text(config.read_text().replace("/v1beta2", "/v1"))
    done = run("simulate", "-", PUBLIC / "pod3.yaml", "--config", as_v1, "-o", "json",
               stdin=dump(NODE))
    assert json.loads(done.stdout)["bindings"] == {"default/annotation-second-scheduler": "n1"}
