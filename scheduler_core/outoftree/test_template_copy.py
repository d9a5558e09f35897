"""The template works when copied outside scheduler_core, as docs/PLUGIN_GUIDE.md tells a
plugin author to copy it: its tests pass there and simulate runs it by --plugin."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "scheduler_core" / "outoftree" / "template"


def copy_template(tmp_path: Path) -> dict:
    package = tmp_path / "mycompany_pool"
    package.mkdir()
    for name in ("__init__.py", "plugin_template.py", "test_plugin_template.py"):
        shutil.copy(TEMPLATE / name, package / name)
    # The copy finds scheduler_core as an installed library would be found, the copy itself
    # from its own folder.
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}


def test_the_copied_templates_tests_pass_outside_the_package(tmp_path):
    env = copy_template(tmp_path)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:django", str(tmp_path / "mycompany_pool")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout


def test_simulate_runs_the_copied_template_by_its_dotted_path(tmp_path):
    env = copy_template(tmp_path)
    pool = {"example.com/pool": "blue"}
    docs = [{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
             "profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "NodePool"}]}}}]},
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "red", "labels": {
                "example.com/pool": "red"}},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "blue", "labels": pool},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": pool},
             "spec": {"containers": [{"name": "c", "image": "i"}]}}]
    done = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", "-", "-o", "json",
                           "--plugin", "NodePool=mycompany_pool.plugin_template"],
                          cwd=tmp_path, env=env, input=yaml.safe_dump_all(docs),
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bindings"] == {"default/p": "blue"}
