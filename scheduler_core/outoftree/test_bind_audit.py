"""BindAudit: the PostBind lesson plugin, through `simulate` as a user runs it."""
import contextlib
import io
import json
from pathlib import Path

import pytest

from scheduler_core.cli import main
from scheduler_core.errors import ConfigError
from scheduler_core.outoftree.bind_audit import new

LESSON = str(Path(__file__).resolve().parents[2] / "fixtures" / "postbind-lesson.yaml")
FLAG = ["--plugin", "BindAudit=scheduler_core.outoftree.bind_audit"]


def simulate(*paths):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["simulate", *paths, "--output", "json", "--seed", "1", *FLAG]) == 0
    return json.loads(out.getvalue())


def test_each_binding_reports_the_running_tally_per_zone_after_bind():
    result = simulate(LESSON)
    tallies = [(c["pod"], c["postBind"][0]["detail"]["boundPerDomain"])
               for c in result["cycles"]]
    assert tallies == [
        ("default/web-0", {"zone-b": 1}),
        ("default/web-1", {"zone-a": 1, "zone-b": 1}),
        ("default/web-2", {"zone-a": 2, "zone-b": 1}),
        ("default/web-3", {"zone-a": 2, "zone-b": 2}),
        ("default/batch-0", {"zone-a": 1}),
    ]
    assert all(c["postBind"][0]["node"] == c["node"] for c in result["cycles"])


def test_a_pod_that_is_not_bound_has_no_post_bind(tmp_path):
    extra = tmp_path / "huge.yaml"
    extra.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge", "labels": {"app": "x"}},
        "spec": {"containers": [{"name": "c", "image": "pause",
                                 "resources": {"requests": {"cpu": "64"}}}]}}))
    result = simulate(LESSON, str(extra))
    huge = [c for c in result["cycles"] if c["pod"] == "default/huge"]
    assert huge and all(c["outcome"] == "Unschedulable" and c["postBind"] == [] for c in huge)


@pytest.mark.parametrize("args, message", [
    pytest.param({"topologyKey": "bad key!"}, 'topologyKey: Invalid value: "bad key!"',
                 id="a topology key that is not a label key"),
    pytest.param({"groupLabel": 3}, "groupLabel: Invalid value: 3: must be a string",
                 id="a group label that is not a string"),
])
def test_bad_args_are_refused_with_the_field(args, message):
    with pytest.raises(ConfigError, match=message.replace("!", "\\!")):
        new(args, None)
