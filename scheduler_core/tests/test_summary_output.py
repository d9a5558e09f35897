"""`simulate --output summary`: bindings, counts and each cycle's outcome, no per-node detail."""
import json
import subprocess
import sys
from pathlib import Path

import yaml

from scheduler_core.build import build_scheduler
from scheduler_core.loader import Cluster
from scheduler_core.observe import CycleRecorder, Observer
from scheduler_core.testing import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
SUMMARY_CYCLE_KEYS = ["index", "time", "pod", "outcome", "node", "message"]


def simulate(*args) -> bytes:
    out = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", *map(str, args)],
                         cwd=ROOT, capture_output=True, timeout=120, check=True)
    return out.stdout


def cluster_file(tmp_path) -> Path:
    nodes = [make_node(f"n{i}", cpu="2") for i in range(4)]
    pods = [make_pod(f"web-{i}", cpu="500m") for i in range(6)] + [make_pod("big", cpu="64")]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(nodes + pods))
    return path


def test_summary_is_the_json_output_reduced(tmp_path):
    path = cluster_file(tmp_path)
    full = json.loads(simulate(path, "--output", "json", "--seed", "2"))
    summary = json.loads(simulate(path, "--output", "summary", "--seed", "2"))
    assert list(summary) == ["schemaVersion", "release", "warnings", "bindings", "counts", "cycles"]
    assert summary["schemaVersion"] == 1
    assert summary["bindings"] == full["bindings"]
    assert summary["cycles"] == [{k: c[k] for k in SUMMARY_CYCLE_KEYS} for c in full["cycles"]]
    assert summary["counts"] == {"pods": 7, "bound": 6, "pending": 1,
                                 "cycles": len(full["cycles"])}
    big = next(c for c in summary["cycles"] if c["pod"] == "default/big")
    assert big["outcome"] == "Unschedulable" and big["node"] is None
    assert big["message"].startswith("0/4 nodes are available: 4 Insufficient cpu.")


def test_summary_is_byte_identical_for_a_fixed_seed(tmp_path):
    path = cluster_file(tmp_path)
    assert simulate(path, "--output", "summary", "--seed", "5") == \
        simulate(path, "--output", "summary", "--seed", "5")


class _NoPerNode(CycleRecorder):
    per_node = False

    def __init__(self, log):
        self.log = log

    def filter(self, node_name, trail):
        raise AssertionError("a per_node=False recorder was shown a Filter trail")

    def score(self, *args, **kwargs):
        raise AssertionError("a per_node=False recorder was shown scores")

    def total_scores(self, nodes, totals):
        raise AssertionError("a per_node=False recorder was shown total scores")

    def finish(self, outcome, node, message, time):
        self.log.append((outcome, node))


class _Collect(Observer):
    def __init__(self):
        self.log = []

    def begin_cycle(self, index, time, pod, profile):
        return _NoPerNode(self.log)


def test_a_recorder_without_per_node_detail_sees_only_outcomes():
    observer = _Collect()
    cluster = Cluster(nodes=[make_node(f"n{i}", cpu="1") for i in range(3)],
                      pods=[make_pod(f"p{i}", cpu="600m") for i in range(4)])
    sched = build_scheduler(cluster, observer=observer)
    sched.run()
    assert [o for o, _ in observer.log] == ["Bound", "Bound", "Bound", "Unschedulable"]
    assert sorted(n for _, n in observer.log if n) == ["n0", "n1", "n2"]
