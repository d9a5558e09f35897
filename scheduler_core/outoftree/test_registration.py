"""The three ways to register an out-of-tree plugin: entry point, settings dict, CLI flag.

The entry-point test runs the example of docs/PLUGIN_GUIDE.md as the guide prints it.
"""
import json
import re
from pathlib import Path

import pytest

from scheduler_core.cli import main
from scheduler_core.config import parse_configuration
from scheduler_core.errors import ConfigError
from scheduler_core.framework.registry import ENTRY_POINT_GROUP, RegistryError
from scheduler_core.outoftree import PLUGINS
from scheduler_core.plugins.registry import IN_TREE, default_registry
from scheduler_core.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = "scheduler_core.outoftree.template.plugin_template"


def install_entry_points(tmp_path, monkeypatch, entries: dict[str, str]) -> None:
    """What `pip install` of a distribution declaring the entry points leaves on sys.path."""
    dist = tmp_path / "site" / "example_scheduler_plugins-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: example-scheduler-plugins\nVersion: 1.0\n")
    lines = "".join(f"{name} = {path}\n" for name, path in entries.items())
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}")
    monkeypatch.syspath_prepend(str(dist.parent))


def guide_example(name: str) -> str:
    guide = (ROOT / "docs" / "PLUGIN_GUIDE.md").read_text()
    match = re.search(rf"<!-- example: {name} -->\n```yaml\n(.*?)```", guide, re.S)
    assert match, f"docs/PLUGIN_GUIDE.md has no example {name!r}"
    return match.group(1)


def test_shipped_plugins_are_out_of_tree():
    assert not set(PLUGINS) & set(IN_TREE)
    assert "NodePool" not in IN_TREE
    assert "Coscheduling" not in default_registry(entry_points_too=False)


def test_entry_point_registers_the_guide_example_and_runs_it_in_a_profile(tmp_path, monkeypatch):
    install_entry_points(tmp_path, monkeypatch, {"NodePool": TEMPLATE})
    assert "NodePool" in default_registry()
    cluster = tmp_path / "node-pool.yaml"
    cluster.write_text(guide_example("node-pool"))
    out = simulate([str(cluster)]).to_json()
    assert out["bindings"] == {"default/trainer": "gpu-a"}
    (cycle,) = out["cycles"]
    assert cycle["filter"]["web-a"][-1] == {
        "plugin": "NodePool", "code": "UnschedulableAndUnresolvable",
        "reasons": ["node(s) were not in the pod's pool"]}
    assert cycle["score"]["NodePool"] == {
        "gpu-a": {"raw": 0, "normalized": 100, "weighted": 300},
        "gpu-b": {"raw": 1, "normalized": 0, "weighted": 0}}


def test_entry_point_and_setting_cannot_share_a_name(tmp_path, monkeypatch):
    install_entry_points(tmp_path, monkeypatch, {"Coscheduling": TEMPLATE})
    with pytest.raises(RegistryError, match='a plugin named "Coscheduling" already exists'):
        default_registry(out_of_tree=PLUGINS)


def test_without_entry_points_the_plugin_is_unknown(tmp_path):
    cluster = tmp_path / "node-pool.yaml"
    cluster.write_text(guide_example("node-pool"))
    with pytest.raises(ConfigError, match='"NodePool" does not exist'):
        simulate([str(cluster)])


@pytest.mark.parametrize("out_of_tree", [
    pytest.param(PLUGINS, id="setting with module paths"),
    pytest.param({"Coscheduling": "scheduler_core.outoftree.coscheduling:new",
                  "GPUScorer": "scheduler_core.outoftree.gpu_scorer:new"},
                 id="setting with module:factory paths"),
])
def test_setting_registers_both_shipped_plugins(out_of_tree):
    registry = default_registry(out_of_tree=out_of_tree)
    profile = {"plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"},
                                                      {"name": "GPUScorer", "weight": 2}]},
                           "queueSort": {"enabled": [{"name": "Coscheduling"}],
                                         "disabled": [{"name": "*"}]}},
               "pluginConfig": [{"name": "GPUScorer", "args": {"memoryWeight": 2}}]}
    cfg = parse_configuration({"apiVersion": "kubescheduler.config.k8s.io/v1",
                               "kind": "KubeSchedulerConfiguration", "profiles": [profile]},
                              registry)
    plugins = cfg.profiles[0].plugins["multiPoint"].enabled
    assert [p.name for p in plugins][-2:] == ["Coscheduling", "GPUScorer"]
    assert cfg.profiles[0].plugin_config["GPUScorer"]["memoryWeight"] == 2


@pytest.mark.parametrize("flags", [
    pytest.param(["--plugin", "Coscheduling=scheduler_core.outoftree.coscheduling"],
                 id="registered by the flag"),
    pytest.param([], id="the bundled plugins are registered without a flag, as on the web"),
])
def test_cli_plugin_flag(capsys, flags):
    code = main(["simulate", str(ROOT / "fixtures" / "gang-lesson-fits.yaml"), "--output", "json",
                 *flags])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["bindings"].values()) == ["node-1", "node-2", "node-3", "node-4"]


@pytest.mark.parametrize("flags,message", [
    pytest.param(["--plugin", "Coscheduling"], "--plugin takes NAME=MODULE[:FACTORY]",
                 id="a flag without a module"),
    pytest.param(["--plugin", "Coscheduling=no_such_module"],
                 "cannot import plugin module 'no_such_module'", id="a module that is not there"),
])
def test_cli_plugin_flag_errors(capsys, flags, message):
    assert main(["simulate", str(ROOT / "fixtures" / "gang-lesson.yaml"), *flags]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
