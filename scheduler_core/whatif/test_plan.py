"""plan and the count of more copies: the engine run over the cluster with copies of a node."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scheduler_core.errors import InputError
from scheduler_core.testing import make_node, make_pod
from scheduler_core.whatif.plan import plan
from scheduler_core.whatif.scenario import Scenario
from scheduler_core.whatif.template import read_template

ROOT = Path(__file__).resolve().parents[2]
HOST = "kubernetes.io/hostname"


def scenario(*docs) -> Scenario:
    return Scenario.from_files(["cluster.yaml"], texts={"cluster.yaml": yaml.safe_dump_all(docs)})


def template(cpu="2", **kw) -> dict:
    return read_template("node.yaml", yaml.safe_dump(make_node("tmpl", cpu=cpu, **kw)))


def anti_affinity(app: str) -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOST}]}}


def test_the_fewest_copies_that_bind_every_pod_are_found_and_one_fewer_was_tried():
    nodes = [make_node(f"n{i}", cpu="2", labels={HOST: f"n{i}"}) for i in range(2)]
    pods = [make_pod(f"p{i}", cpu="1") for i in range(9)]
    result = plan(scenario(*nodes, *pods), template())
    out = result.to_json()
    assert out["nodesToAdd"] == 3
    assert out["stillPending"] == []
    assert sorted(set(out["bindings"].values())) == ["n0", "n1", "tmpl-1", "tmpl-2", "tmpl-3"]
    tried = {row["nodes"]: row for row in out["search"]}
    assert tried[2]["pending"] > 0 and tried[3]["pending"] == 0


def test_pods_no_copy_can_take_stay_pending_with_the_scheduler_message():
    nodes = [make_node("n0", cpu="2", labels={HOST: "n0"})]
    pods = [make_pod(f"p{i}", cpu="1") for i in range(4)]
    pods += [make_pod("ssd", cpu="1", nodeSelector={"disk": "ssd"}), make_pod("huge", cpu="64")]
    out = plan(scenario(*nodes, *pods), template()).to_json()
    assert out["nodesToAdd"] == 1
    pending = {p["pod"]: p["message"] for p in out["stillPending"]}
    assert set(pending) == {"default/ssd", "default/huge"}
    assert "2 node(s) didn't match Pod's node affinity/selector" in pending["default/ssd"]
    assert "2 Insufficient cpu" in pending["default/huge"]


def test_copies_get_their_own_hostname_so_hostname_anti_affinity_spreads_over_them():
    nodes = [make_node("n0", cpu="8", labels={HOST: "n0"})]
    pods = [make_pod(f"db-{i}", cpu="1", labels={"app": "db"}, affinity=anti_affinity("db"))
            for i in range(4)]
    out = plan(scenario(*nodes, *pods), template(cpu="8", labels={HOST: "tmpl"})).to_json()
    assert out["nodesToAdd"] == 3
    assert sorted(out["bindings"].values()) == ["n0", "tmpl-1", "tmpl-2", "tmpl-3"]


def test_a_tainted_template_binds_no_pod_without_the_toleration():
    nodes = [make_node("n0", cpu="1", labels={HOST: "n0"})]
    pods = [make_pod(f"p{i}", cpu="1") for i in range(3)]
    taint = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
    out = plan(scenario(*nodes, *pods), template(taints=[taint])).to_json()
    assert out["nodesToAdd"] == 0
    assert len(out["stillPending"]) == 2
    assert out["stillPending"][0]["message"].startswith("0/1 nodes are available: 1 "
                                                        "Insufficient cpu.")
    assert out["stillPending"][0]["onTemplate"] == \
        "TaintToleration: node(s) had untolerated taint {dedicated: batch}"


def test_the_search_stops_at_max_nodes_and_says_so():
    nodes = [make_node("n0", cpu="1", labels={HOST: "n0"})]
    pods = [make_pod(f"p{i}", cpu="1") for i in range(6)]
    out = plan(scenario(*nodes, *pods), template(cpu="1"), max_nodes=3).to_json()
    assert out["nodesToAdd"] == 3
    assert out["maxNodesReached"] is True
    assert len(out["stillPending"]) == 2


def test_nothing_pending_needs_no_copy_and_one_trial():
    nodes = [make_node("n0", cpu="4", labels={HOST: "n0"})]
    out = plan(scenario(*nodes, make_pod("p", cpu="1")), template()).to_json()
    assert out["nodesToAdd"] == 0
    assert out["search"] == [{"nodes": 0, "bound": 1, "pending": 0}]


def test_progress_is_reported_after_every_trial_and_the_count_of_copies():
    nodes = [make_node("n0", cpu="1", labels={HOST: "n0"})]
    pods = [make_pod(f"p{i}", cpu="1") for i in range(3)]
    events = []
    result = plan(scenario(*nodes, *pods), template(cpu="1"), progress=events.append)
    trial_events = [e for e in events if e["phase"] != "capacity"]
    assert [e["trials"] for e in trial_events] == list(range(1, len(result.trials) + 1))
    # The first guess (2 pods beyond the node's room, 1 pod per copy) is run first.
    assert trial_events[0] == {"phase": "grow", "trials": 1, "nodes": 2, "bound": 3,
                               "pending": 0}
    assert events[-1] == {"phase": "capacity", "shapes": 1}


def test_more_copies_of_a_pod_are_counted_until_one_does_not_fit():
    nodes = [make_node("n0", cpu="4", labels={HOST: "n0"})]
    pods = [make_pod("web-0", cpu="1", labels={"app": "web"}),
            make_pod("web-1", cpu="1", labels={"app": "web"}), make_pod("db", cpu="500m")]
    out = plan(scenario(*nodes, *pods), template()).to_json()
    by_pod = {row["pod"]: row for row in out["capacity"]["shapes"]}
    assert by_pod["default/web-0"]["shapeOf"] == 2
    assert by_pod["default/web-0"]["moreFit"] == 1     # 4 - 1 - 1 - 0.5 = 1.5 cpu left
    assert by_pod["default/db"]["moreFit"] == 3
    assert by_pod["default/db"]["stoppedBy"].startswith(
        "0/1 nodes are available: 1 Insufficient cpu.")


def test_a_template_that_is_not_one_node_is_refused_naming_the_file():
    with pytest.raises(InputError, match="node.yaml: field kind: a node template is exactly "
                                         "one Node document, found 1 Pod"):
        read_template("node.yaml", yaml.safe_dump(make_pod("p")))


def test_an_invalid_template_node_is_refused_naming_the_field():
    bad = make_node("tmpl", cpu="2x")
    with pytest.raises(InputError, match=r"node.yaml: document 1: Node tmpl: .*status\."):
        read_template("node.yaml", yaml.safe_dump(bad))


# --- the command line ---------------------------------------------------------------------------
def run_plan(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", "plan", *map(str, args)],
                          cwd=ROOT, capture_output=True, timeout=120, text=True)


@pytest.fixture
def files(tmp_path):
    nodes = [make_node(f"n{i}", cpu="2", labels={HOST: f"n{i}"}) for i in range(2)]
    pods = [make_pod(f"p{i}", cpu="1") for i in range(6)]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all([*nodes, *pods]))
    node = tmp_path / "node.yaml"
    node.write_text(yaml.safe_dump(make_node("tmpl", cpu="2")))
    return cluster, node


def test_cli_prints_the_contract_json_and_reports_progress_on_stderr(files):
    cluster, node = files
    done = run_plan(cluster, "--node-template", node, "--output", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["schemaVersion"] == 1 and out["nodesToAdd"] == 1
    assert set(out) >= {"bindings", "stillPending", "search", "capacity", "warnings"}
    assert "plan: trial 1 (grow): 1 node(s) added, 6 bound, 0 pending" in done.stderr


def test_cli_says_what_the_release_does_not_honour_in_the_template_once_not_per_copy(
        tmp_path, files):
    cluster, _ = files
    node = tmp_path / "declared.yaml"
    declared = make_node("tmpl", cpu="2")
    declared["status"]["declaredFeatures"] = ["Foo"]
    node.write_text(yaml.safe_dump(declared))
    done = run_plan(cluster, "--node-template", node, "--release", "1.34", "--output", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["nodesToAdd"] == 1
    line = (f"{node}: document 1: Node tmpl: field status.declaredFeatures: node declared "
            "features are not in kube-scheduler v1.34 (feature gate NodeDeclaredFeatures came "
            "later); ignored")
    assert out["warnings"] == [line]
    assert done.stderr.count("Warning: ") == 1 and f"Warning: {line}\n" in done.stderr


def test_warnings_a_run_raises_are_gathered_once_and_said_as_they_come():
    said = []
    s = Scenario.from_files(["cluster.yaml"], warn=said.append, texts={
        "cluster.yaml": yaml.safe_dump_all([make_node("n0"), make_pod("p", cpu="1")])})
    for _ in range(2):    # two trials meeting the same input
        run = s.scheduler()
        run.warnings.append("plugin X: field spec.y: not honoured")
        run.warnings.append("(added nodes): document 1: Node tmpl-1: field z: not honoured")
    assert s.warnings == ["plugin X: field spec.y: not honoured"]
    assert said == ["plugin X: field spec.y: not honoured"]


def test_cli_table_names_the_copies(files):
    cluster, node = files
    done = run_plan(cluster, "--node-template", node)
    assert done.stdout.startswith("nodes to add: 1 (tmpl-1 .. tmpl-1)\n")


@pytest.mark.parametrize("extra, message", [
    (["--max-nodes", "-1"], "error: --max-nodes must be 0 or more, got -1"),
    (["--node-template", "missing.yaml"], "error: missing.yaml: cannot read file"),
])
def test_cli_bad_input_exits_2_with_one_line_and_no_stdout(files, extra, message):
    cluster, node = files
    args = [cluster, "--node-template", node, *extra]
    done = run_plan(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1


def test_cli_refuses_a_template_whose_copies_would_take_a_node_name(tmp_path, files):
    cluster, _ = files
    node = tmp_path / "n.yaml"
    node.write_text(yaml.safe_dump(make_node("n", cpu="2")))
    cluster.write_text(cluster.read_text() + "---\n" + yaml.safe_dump(make_node("n-2")))
    done = run_plan(cluster, "--node-template", node)
    assert done.returncode == 2 and done.stdout == ""
    assert 'Node n: field metadata.name: copies of the template would be named like node ' \
           '"n-2"' in done.stderr


def test_cli_refuses_a_template_that_is_not_a_valid_node_in_one_line_naming_the_field(
        tmp_path, files):
    cluster, _ = files
    node = tmp_path / "bad.yaml"
    node.write_text(yaml.safe_dump(make_node("tmpl", cpu="2x")))
    done = run_plan(cluster, "--node-template", node)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: {node}: document 1: Node tmpl: field "
                                  "status.capacity.cpu: quantities must match")
    assert done.stderr.count("\n") == 1


# --- the search on its own: trials stood in by a table of which pods each count binds -----------
def fake_trials(monkeypatch, bound_at, guess=0):
    """run_trial answers from bound_at(count) -> number of the 10 pods bound; an extra copy
    would take a pending pod while fewer than 10 are bound; the first guess before any run is
    `guess`. Returns the counts tried."""
    from scheduler_core.framework.types import Resource
    from scheduler_core.whatif import plan as plan_module

    tried = []

    def run_trial(scenario, template, count):
        tried.append(count)
        n = bound_at(count)
        bindings = {f"p{i}": ("node" if i < n else None) for i in range(10)}
        placeable = {f"p{i}": Resource(milli_cpu=1000) for i in range(n, 10)}
        return plan_module.Trial(count, bindings, {}, placeable)

    monkeypatch.setattr(plan_module, "run_trial", run_trial)
    monkeypatch.setattr(plan_module, "static_guess", lambda *a: guess)
    monkeypatch.setattr(plan_module, "check_names", lambda *a: None)
    return tried


class NoScenario:
    node_names: set = set()


def test_a_non_monotone_count_is_answered_with_one_the_engine_bound_all_at(monkeypatch):
    # 2 pods per copy, except that 4 copies bind fewer than 3 (a tie-break gone the other way).
    table = {0: 0, 1: 2, 2: 4, 3: 6, 4: 5, 5: 10}
    tried = fake_trials(monkeypatch, lambda k: table.get(k, 10))
    template = make_node("tmpl", cpu="2")
    result = plan(NoScenario(), template, max_copies=0)
    answer = result.answer.nodes
    assert table.get(answer, 10) == 10 and table.get(answer - 1, 10) < 10
    assert answer - 1 in tried
    assert {row["nodes"] for row in result.to_json()["search"]} == set(tried)


def test_the_search_stays_logarithmic_when_the_first_guess_is_far_too_low(monkeypatch):
    # One pod per copy (as hostname anti-affinity would make it), guessed at 5 per copy.
    tried = fake_trials(monkeypatch, lambda k: min(k, 10))
    result = plan(NoScenario(), make_node("tmpl", cpu="5"), max_copies=0)
    assert result.answer.nodes == 10
    assert len(tried) <= 8


def test_a_first_guess_that_binds_every_pod_is_checked_one_copy_below_and_nothing_else(monkeypatch):
    tried = fake_trials(monkeypatch, lambda k: min(2 * k, 10), guess=5)
    result = plan(NoScenario(), make_node("tmpl", cpu="2"), max_copies=0)
    assert result.answer.nodes == 5
    assert tried == [5, 4]


def test_a_first_guess_far_too_high_gallops_down_then_bisects(monkeypatch):
    tried = fake_trials(monkeypatch, lambda k: min(2 * k, 10), guess=40)
    result = plan(NoScenario(), make_node("tmpl", cpu="2"), max_copies=0)
    assert result.answer.nodes == 5 and 4 in tried
    assert tried[:6] == [40, 39, 37, 33, 25, 9] and len(tried) <= 10
