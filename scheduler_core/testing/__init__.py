"""The engine's test builders: Node and Pod manifests in a line, PodInfos from them, a Score run.

The submodules hold the rest, one home for every engine test: fakes (in-test plugins and a
one-call scheduler run), and the builders shaped like kube-scheduler's own test helpers for
noderesources, podtopologyspread and volumebinding.
"""
from __future__ import annotations

from ..framework.interfaces import NodeScore
from ..framework.types import PodInfo


def make_node(name: str, cpu="4", memory="32Gi", pods="110", labels=None, taints=None,
              unschedulable=False, allocatable=None, images=None) -> dict:
    alloc = {k: v for k, v in (("cpu", cpu), ("memory", memory), ("pods", pods)) if v is not None}
    alloc.update(allocatable or {})
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": {}, "status": {"allocatable": alloc, "capacity": dict(alloc)}}
    if taints:
        node["spec"]["taints"] = list(taints)
    if unschedulable:
        node["spec"]["unschedulable"] = True
    if images:
        node["status"]["images"] = [{"names": list(n), "sizeBytes": s} for n, s in images]
    return node


def make_pod(name: str, namespace="default", cpu=None, memory=None, node_name=None, labels=None,
             priority=None, requests=None, containers=None, **spec) -> dict:
    reqs = dict(requests or {})
    if cpu is not None:
        reqs["cpu"] = cpu
    if memory is not None:
        reqs["memory"] = memory
    if containers is None:
        resources = {"requests": reqs} if reqs else {}
        containers = [{"name": "c", "image": "pause", "resources": resources}]
    pod_spec = {"containers": containers, **spec}
    if node_name:
        pod_spec["nodeName"] = node_name
    if priority is not None:
        pod_spec["priority"] = priority
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels or {}),
                         "uid": f"{namespace}/{name}"},
            "spec": pod_spec}


def pod_info(manifest: dict) -> PodInfo:
    return PodInfo(manifest, priority=(manifest.get("spec") or {}).get("priority") or 0)


def normalized_scores(plugin, state, pod: PodInfo, node_infos) -> list[NodeScore]:
    """Score on each node, then NormalizeScore, as the runtime runs them; every call must
    succeed."""
    scores = []
    for ni in node_infos:
        score, status = plugin.score(state, pod, ni)
        assert status is None, status
        scores.append(NodeScore(ni.name, score))
    assert plugin.score_extensions().normalize_score(state, pod, scores) is None
    return scores
