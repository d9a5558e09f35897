"""manage.py simulate takes the engine's arguments and prints the same bytes."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GPU = str(ROOT / "fixtures" / "gpu-cluster.yaml")


def _run(*args):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_it_prints_what_the_engine_command_prints():
    args = ["simulate", GPU, "--output", "json", "--seed", "4"]
    via_django = _run("manage.py", *args)
    via_engine = _run("-m", "scheduler_core", *args)
    assert via_django.returncode == 0, via_django.stderr
    assert via_django.stdout == via_engine.stdout
    assert '"schemaVersion": 1' in via_django.stdout


def test_it_exits_2_with_one_message_on_bad_input(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: 12x}}\n")
    result = _run("manage.py", "simulate", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Node n1: field status.allocatable.cpu" in result.stderr


def test_plugins_lists_in_tree_and_out_of_tree_plugins():
    result = _run("manage.py", "plugins")
    assert result.returncode == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert "filter" in lines["NodeResourcesFit"]
    assert "permit" in lines["Coscheduling"]


def test_import_cluster_takes_the_engines_arguments(tmp_path):
    result = _run("manage.py", "import_cluster", "--kubeconfig", str(tmp_path / "missing"))
    assert result.returncode == 2 and result.stdout == ""
    assert "cannot use the kubeconfig" in result.stderr
