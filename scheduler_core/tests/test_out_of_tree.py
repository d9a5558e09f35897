"""Out-of-tree plugins (app.WithPlugin): the example NodeLabelScorer, registered by dotted path,
on the command line, and through the `scheduler_core.plugins` entry point group."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scheduler_core.config import parse_configuration
from scheduler_core.errors import ConfigError
from scheduler_core.examples import node_label_scorer
from scheduler_core.framework.registry import RegistryError
from scheduler_core.loader import Cluster
from scheduler_core.plugins.registry import IN_TREE, default_registry
from scheduler_core.scheduler import Scheduler
from scheduler_core.testing import make_node, make_pod
from scheduler_core.testing.fakes import configuration, profile

ROOT = Path(__file__).resolve().parents[2]
MODULE = "scheduler_core.examples.node_label_scorer"
NODES = [make_node("plain-1"), make_node("ssd-1", labels={"disktype": "ssd"}),
         make_node("plain-2"), make_node("hdd-1", labels={"disktype": "hdd"})]


def scorer_config(**args):
    return configuration(profile("NodeLabelScorer", pluginConfig=[
        {"name": "NodeLabelScorer", "args": args}]))


def schedule(registry, config, pods=3):
    cluster = Cluster(nodes=NODES, pods=[make_pod(f"p{i}") for i in range(pods)])
    sched = Scheduler(cluster, parse_configuration(config, registry), registry=registry)
    sched.run()
    return sched.bindings


def test_the_example_is_not_in_tree():
    assert "NodeLabelScorer" not in IN_TREE
    assert "NodeLabelScorer" not in default_registry(entry_points_too=False)


@pytest.mark.parametrize("path", [MODULE, f"{MODULE}:new"])
def test_registered_by_dotted_path(path):
    registry = default_registry({"NodeLabelScorer": path}, entry_points_too=False)
    bindings = schedule(registry, scorer_config(labelKey="disktype", labelValue="ssd"))
    assert set(bindings.values()) == {"ssd-1"}


def test_prefer_presence_false_steers_pods_away():
    registry = default_registry({"NodeLabelScorer": MODULE}, entry_points_too=False)
    bindings = schedule(registry, scorer_config(labelKey="disktype", preferPresence=False),
                        pods=12)
    assert set(bindings.values()) == {"plain-1", "plain-2"}


def test_default_args():
    assert node_label_scorer.default_args({"labelKey": "disktype"}) == {
        "labelKey": "disktype", "labelValue": "", "preferPresence": True}
    assert node_label_scorer.default_args({})["labelKey"] == node_label_scorer.DEFAULT_LABEL_KEY


def test_invalid_args_are_configuration_errors():
    registry = default_registry({"NodeLabelScorer": MODULE}, entry_points_too=False)
    with pytest.raises(ConfigError) as info:
        parse_configuration(scorer_config(labelKey="bad key", preferPresence="yes"), registry)
    assert [e.split(":")[0] for e in info.value.errors] == [
        "profiles[0].pluginConfig[0].args.labelKey",
        "profiles[0].pluginConfig[0].args.preferPresence"]


def test_registered_on_the_command_line(tmp_path):
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(
        [scorer_config(labelKey="disktype", labelValue="ssd"), *NODES, make_pod("p")]))
    out = subprocess.run(
        [sys.executable, "-m", "scheduler_core", "simulate", str(path), "--output", "json",
         "--plugin", f"NodeLabelScorer={MODULE}"], cwd=ROOT, capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr.decode()
    result = json.loads(out.stdout)
    assert result["bindings"] == {"default/p": "ssd-1"}
    assert result["cycles"][0]["score"]["NodeLabelScorer"]["ssd-1"]["raw"] == 100


def test_without_registration_the_plugin_does_not_exist(tmp_path):
    with pytest.raises(ConfigError, match='PreFilterPlugin "NodeLabelScorer" does not exist'):
        parse_configuration(scorer_config(), default_registry(entry_points_too=False))


def install_entry_point(root: Path, name: str, value: str, monkeypatch) -> None:
    """A dist-info directory on sys.path, as pip would leave for a package declaring it."""
    dist = root / "example_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: example-plugins\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[scheduler_core.plugins]\n{name} = {value}\n")
    monkeypatch.syspath_prepend(str(root))


def test_registered_by_entry_point(tmp_path, monkeypatch):
    install_entry_point(tmp_path, "NodeLabelScorer", MODULE, monkeypatch)
    registry = default_registry()
    assert "NodeLabelScorer" in registry
    bindings = schedule(registry, scorer_config(labelKey="disktype", labelValue="hdd"))
    assert set(bindings.values()) == {"hdd-1"}
    with pytest.raises(RegistryError, match='a plugin named "NodeLabelScorer" already exists'):
        default_registry({"NodeLabelScorer": MODULE})


def test_an_entry_point_cannot_replace_an_in_tree_plugin(tmp_path, monkeypatch):
    install_entry_point(tmp_path, "NodeResourcesFit", MODULE, monkeypatch)
    with pytest.raises(RegistryError, match='a plugin named "NodeResourcesFit" already exists'):
        default_registry()


def test_an_unimportable_module_is_a_registry_error():
    registry = default_registry({"Ghost": "scheduler_core.examples.no_such_module"},
                                entry_points_too=False)
    with pytest.raises(RegistryError, match="cannot import plugin module"):
        registry.spec("Ghost")
