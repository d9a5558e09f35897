#!/usr/bin/env python3
"""Write fixtures/scale-500.yaml: 500 nodes in 5 zones and 2000 pods, the same bytes every time.

    python scripts/make_scale_fixture.py [--nodes 500] [--pods 2000] [--output PATH]

Half the pods already run on a node (spec.nodeName), half are pending. Node sizes, taints,
labels and pod requests are drawn from a fixed-seed random generator, so the file is
reproducible; bench_import.py uses the same generator for larger clusters.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import yaml

ZONES = ["zone-a", "zone-b", "zone-c", "zone-d", "zone-e"]
NODE_SHAPES = [  # (cpu, memory, pods)
    ("4", "16Gi", "110"), ("8", "32Gi", "110"), ("16", "64Gi", "110"), ("32", "128Gi", "250"),
]
POD_SHAPES = [  # (cpu, memory)
    ("100m", "128Mi"), ("250m", "256Mi"), ("500m", "512Mi"), ("1", "1Gi"), ("2", "4Gi"),
]
APPS = ["web", "api", "worker", "cache", "batch", "search", "auth", "billing"]


def node(i: int, rng: random.Random) -> dict:
    name = f"node-{i:05d}"
    cpu, memory, pods = rng.choice(NODE_SHAPES)
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "topology.kubernetes.io/region": "region-1",
        "topology.kubernetes.io/zone": ZONES[i % len(ZONES)],
        "node.kubernetes.io/instance-type": f"m.{cpu}x",
    }
    spec: dict = {}
    if i % 50 == 49:
        labels["dedicated"] = "infra"
        spec["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    if i % 97 == 96:
        spec["unschedulable"] = True
    doc = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
    if spec:
        doc["spec"] = spec
    doc["status"] = {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                     "capacity": {"cpu": cpu, "memory": memory, "pods": pods}}
    return doc


def pod(i: int, rng: random.Random, schedulable: list[str], bound: bool) -> dict:
    app = APPS[i % len(APPS)]
    cpu, memory = rng.choice(POD_SHAPES)
    spec: dict = {
        "containers": [{"name": app, "image": f"registry.example.com/{app}:1.0",
                        "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
    }
    if app == "batch":
        spec["priorityClassName"] = "low"
    elif app in ("api", "auth"):
        spec["priorityClassName"] = "high"
    if i % 10 == 3:
        spec["nodeSelector"] = {"topology.kubernetes.io/zone": ZONES[i % len(ZONES)]}
    if app == "cache":
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                               "labelSelector": {"matchLabels": {"app": app}}}}]}}
    if app == "web":
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": app}}}]
    doc = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": f"{app}-{i:06d}", "namespace": "default" if i % 3 else "team-b",
                        "labels": {"app": app}},
           "spec": spec}
    if bound:
        spec["nodeName"] = schedulable[i % len(schedulable)]
        doc["status"] = {"phase": "Running"}
    return doc


def documents(n_nodes: int, n_pods: int, seed: int = 500) -> list[dict]:
    rng = random.Random(seed)
    docs: list[dict] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-b"}},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 10000, "description": "user-facing services"},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "low"}, "value": -10, "preemptionPolicy": "Never",
         "description": "batch work that never preempts"},
    ]
    nodes = [node(i, rng) for i in range(n_nodes)]
    docs += nodes
    schedulable = [n["metadata"]["name"] for n in nodes if not n.get("spec")]
    docs += [pod(i, rng, schedulable, bound=i < n_pods // 2) for i in range(n_pods)]
    return docs


def render(docs: list[dict], description: str) -> str:
    body = "---\n".join(yaml.safe_dump(d, sort_keys=False, default_flow_style=False, width=100)
                        for d in docs)
    return f"# description: {description}\n{body}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=2000)
    parser.add_argument("--output", default=str(Path(__file__).resolve().parent.parent
                                                / "fixtures" / "scale-500.yaml"))
    args = parser.parse_args(argv)
    text = render(documents(args.nodes, args.pods),
                  f"Scale: {args.nodes} nodes in 5 zones and {args.pods} pods (half running, "
                  "half pending), generated by scripts/make_scale_fixture.py.")
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
