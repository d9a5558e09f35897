"""Runs a fidelity case through `python -m scheduler_core simulate` and checks what it printed.

A case file (cases/*.yaml) is a list of cases. A case is the simulate input plus what
kube-scheduler's own test expects of it:

    - name: test 1                       # the Go test case it ports
      source: schedule_one_test.go TestSchedulerSchedulePod
      plugins: [FalseFilter, EqualPrioritizerPlugin=EqualPrioritizer]   # fakeplugins factories
      nodes: [node1, node2]              # bare nodes, as makeNodeList builds them
      pods: [{name: "2"}]                # pod shorthands (see pod()); `objects` takes manifests
      config: {profiles: [{points: {filter: [FalseFilter]}}]}
      args: [--seed, "3"]
      want:
        exit: 0
        bindings: {default/2: null}
        cycles: [{outcome: Unschedulable, message: "0/2 nodes are available: ..."}]

`config` is a KubeSchedulerConfiguration; a profile given `points` runs exactly the plugins
listed per extension point (multiPoint defaults disabled, PrioritySort and DefaultBinder added
unless the points name their own), like the test frameworks Go's unit tests build. Each
expected cycle is compared key by key; `filterNodes` lists the nodes the cycle filtered, in order
(`filterCount`, `filterFirst`: how many, the first), `scoreOrder` the Score plugins in the
order they ran, `nodeIn` the nodes a tie may pick, and "$node" stands for the picked node;
`bindingsIn` does the same for bindings. `nodeCount: N` adds bare nodes "0".."N-1".
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path

import yaml

from scheduler_core.cli import main

CASES = Path(__file__).parent / "cases"
FAKES = "scheduler_core.tests.fidelity.fakeplugins"
API = "kubescheduler.config.k8s.io/v1"


def load_cases(pattern: str = "*.yaml") -> list[tuple[str, dict]]:
    out = []
    for path in sorted(CASES.glob(pattern)):
        for case in yaml.safe_load(path.read_text()):
            out.append((f"{path.stem}: {case['name']}", case))
    return out


def node(spec) -> dict:
    """A node name, or {name, labels, allocatable, taints, unschedulable, images}."""
    spec = {"name": spec} if isinstance(spec, str) else dict(spec)
    name = spec.pop("name")
    labels = {"kubernetes.io/hostname": name, **spec.pop("labels", {})}
    manifest = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": labels}, "spec": {}, "status": {}}
    if "allocatable" in spec:
        alloc = {k: str(v) for k, v in spec.pop("allocatable").items()}
        manifest["status"] = {"allocatable": alloc, "capacity": dict(alloc)}
    for key in ("taints", "unschedulable"):
        if key in spec:
            manifest["spec"][key] = spec.pop(key)
    if "images" in spec:
        manifest["status"]["images"] = spec.pop("images")
    assert not spec, f"unknown node keys {sorted(spec)}"
    return manifest


def pod(spec: dict) -> dict:
    """{name, namespace, uid, priority, node, nominated, schedulerName, requests, labels,
    hostPort, gates, deleting, phase, grace, spec (merged), annotations}."""
    spec = dict(spec)
    name = spec.pop("name")
    namespace = spec.pop("namespace", "default")
    container = {"name": "ctr", "image": "pause"}
    if "requests" in spec:
        container["resources"] = {"requests": {k: str(v) for k, v in
                                               spec.pop("requests").items()}}
    if "hostPort" in spec:
        container["ports"] = [{"containerPort": 80, "hostPort": spec.pop("hostPort")}]
    meta = {"name": name, "namespace": namespace, "uid": spec.pop("uid", name)}
    for key in ("labels", "annotations"):
        if key in spec:
            meta[key] = spec.pop(key)
    if spec.pop("deleting", False):
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    pod_spec = {"containers": [container], **spec.pop("spec", {})}
    for key, field in (("node", "nodeName"), ("priority", "priority"),
                       ("schedulerName", "schedulerName"),
                       ("grace", "terminationGracePeriodSeconds")):
        if key in spec:
            pod_spec[field] = spec.pop(key)
    if "gates" in spec:
        pod_spec["schedulingGates"] = [{"name": g} for g in spec.pop("gates")]
    manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
    status = {}
    if "nominated" in spec:
        status["nominatedNodeName"] = spec.pop("nominated")
    if "phase" in spec:
        status["phase"] = spec.pop("phase")
    if status:
        manifest["status"] = status
    assert not spec, f"unknown pod keys {sorted(spec)}"
    return manifest


def _ref(entry) -> dict:
    """"Name" or "Name:weight"."""
    name, _, weight = str(entry).partition(":")
    return {"name": name} | ({"weight": int(weight)} if weight else {})


def profile(raw: dict) -> dict:
    raw = dict(raw)
    points = raw.pop("points", None)
    if points is None:
        return raw
    plugins = {"multiPoint": {"enabled": [_ref(e) for e in points.get("multiPoint", [])],
                              "disabled": [{"name": "*"}]}}
    defaults = {"queueSort": ["PrioritySort"], "bind": ["DefaultBinder"]}
    for point, names in {**defaults, **points}.items():
        if point != "multiPoint":
            plugins[point] = {"enabled": [_ref(e) for e in names]}
    return {"schedulerName": "default-scheduler", **raw, "plugins": plugins}


def configuration(raw: dict) -> dict:
    raw = dict(raw)
    raw["profiles"] = [profile(p) for p in raw.get("profiles", [])]
    return {"apiVersion": API, "kind": "KubeSchedulerConfiguration", **raw}


def documents(case: dict) -> list[dict]:
    docs = [node(n) for n in case.get("nodes", [])]
    if "nodeCount" in case:
        docs += [node(str(i)) for i in range(case["nodeCount"])]
    docs += copy.deepcopy(case.get("objects", []))
    docs += [pod(p) for p in case.get("pods", [])]
    if "config" in case:
        docs.append(configuration(case["config"]))
    return docs


def plugin_flags(case: dict) -> list[str]:
    flags = []
    for entry in case.get("plugins", []):
        name, _, factory = entry.partition("=")
        flags += ["--plugin", f"{name}={FAKES}:{factory or name}"]
    return flags


def simulate(case: dict, tmp_path: Path) -> tuple[int, str, str]:
    path = tmp_path / "input.yaml"
    path.write_text(yaml.safe_dump_all(documents(case), sort_keys=False))
    argv = ["simulate", str(path), "--output", case.get("output", "json"),
            *plugin_flags(case), *[str(a) for a in case.get("args", [])]]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# Derived keys an expected cycle may use besides the contract's own.
_DERIVED = {
    "filterNodes": lambda c: list(c["filter"]),          # nodes filtered, in order
    "filterCount": lambda c: len(c["filter"]),
    "filterFirst": lambda c: next(iter(c["filter"]), None),
    "scoreOrder": lambda c: list(c["score"]),            # Score plugins, in the order run
}


def _with_node(value, node):
    """The expected value with "$node" standing for the node the cycle picked."""
    if value == "$node":
        return node
    if isinstance(value, list):
        return [_with_node(v, node) for v in value]
    if isinstance(value, dict):
        return {k: _with_node(v, node) for k, v in value.items()}
    return value


def check_cycle(got: dict, want: dict, where: str) -> None:
    for key, value in want.items():
        if key == "nodeIn":
            assert got["node"] in value, f"{where}: node {got['node']!r} not in {value}"
            continue
        actual = _DERIVED[key](got) if key in _DERIVED else got[key]
        value = _with_node(value, got["node"])
        assert actual == value, f"{where}: {key}\n got: {actual!r}\nwant: {value!r}"


def check(case: dict, tmp_path: Path) -> dict | None:
    code, out, err = simulate(case, tmp_path)
    want = case.get("want", {})
    assert code == want.get("exit", 0), f"exit {code}; stderr: {err}"
    if "stderr" in want:
        assert want["stderr"] in err, err
        assert out == "", "nothing is written to stdout on bad input"
    if code != 0:
        return None
    if case.get("output") == "table":
        for line in want.get("table", []):
            assert line in out.splitlines(), out
        return None
    result = json.loads(out)
    if "bindings" in want:
        assert result["bindings"] == want["bindings"]
    for key, nodes in want.get("bindingsIn", {}).items():
        assert result["bindings"][key] in nodes, (key, result["bindings"][key])
    if "cycles" in want:
        cycles = result["cycles"]
        if not want.get("morecycles"):
            assert len(cycles) == len(want["cycles"]), [
                (c["pod"], c["outcome"], c["message"]) for c in cycles]
        for i, expected in enumerate(want["cycles"]):
            check_cycle(cycles[i], expected, f"cycle {i}")
    return result
