"""VolumeBinding's and NodeVolumeLimits' vectorized Filter against their per-node Filter, on
random clusters of volumes: in-tree EBS volumes (migrated or not on each node's CSINode, with
zone labels that translation turns into CSI topology) and CSI ones, with node affinity or
without, bound, missing or waiting for their first consumer, shared by pods or not, under
attach limits small enough to bite."""
from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.columns._compare import check_filter_vector
from scheduler_core.columns.store import columns_of
from scheduler_core.columns.test_equivalence import run
from scheduler_core.loader import Cluster
from scheduler_core.plugins.nodevolumelimits.csi import CSILimits
from scheduler_core.plugins.volumebinding.volume_binding import new as new_volume_binding
from scheduler_core.testing import make_node, make_pod, pod_info
from scheduler_core.testing import volumebinding as vb

EBS = "ebs.csi.aws.com"
ZONE = "topology.kubernetes.io/zone"
ZONES = ("a", "b")
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@st.composite
def clusters(draw):
    """(nodes, storage objects, running pods, pending pods)."""
    nodes, csinodes = [], []
    for i in range(draw(st.integers(1, 8))):
        name = f"n{i}"
        labels = {"kubernetes.io/hostname": name}
        if draw(st.integers(0, 4)):
            labels[ZONE] = draw(st.sampled_from(ZONES))
        if draw(st.booleans()):
            labels["topology.ebs.csi.aws.com/zone"] = draw(st.sampled_from(ZONES))
        allocatable = {}
        if draw(st.integers(0, 3)) == 0:
            allocatable[f"attachable-volumes-csi-{EBS}"] = str(draw(st.integers(0, 3)))
        nodes.append(make_node(name, labels=labels, allocatable=allocatable))
        if draw(st.integers(0, 3)):
            csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                       "metadata": {"name": name},
                       "spec": {"drivers": [{"name": EBS, "nodeID": name, "allocatable": {
                           "count": draw(st.integers(0, 3))}}] if draw(st.booleans()) else []}}
            if draw(st.booleans()):
                csinode["metadata"]["annotations"] = {
                    "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"}
            csinodes.append(csinode)
    wffc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "wffc"}, "provisioner": EBS,
            "volumeBindingMode": "WaitForFirstConsumer"}
    pvs, pvcs = [], []
    for i in range(draw(st.integers(1, 6))):
        claim = vb.pvc(f"c{i}")
        kind = draw(st.sampled_from(("aws", "csi", "missing", "unbound")))
        if kind == "unbound":
            claim["spec"]["storageClassName"] = "wffc"
            pvcs.append(claim)
            continue
        claim["spec"]["volumeName"] = f"v{i}"
        claim["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
        claim["status"] = {"phase": "Bound"}
        pvcs.append(claim)
        if kind == "missing":
            continue
        source = ({"awsElasticBlockStore": {"volumeID": f"vol-{i}"}} if kind == "aws"
                  else {"csi": {"driver": EBS, "volumeHandle": f"vol-{i}"}})
        affinity = {ZONE: [draw(st.sampled_from(ZONES))]} if draw(st.booleans()) else None
        labels = {ZONE: draw(st.sampled_from(ZONES))} if draw(st.booleans()) else None
        pvs.append(vb.pv(f"v{i}", capacity="1Gi", node_affinity=affinity, labels=labels,
                         claim=claim, source=source, phase="Bound"))
    claims = [c["metadata"]["name"] for c in pvcs]

    def volumes():
        chosen = draw(st.lists(st.sampled_from(claims), max_size=2, unique=True))
        return [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in chosen]

    running = []
    for i in range(draw(st.integers(0, 6))):
        pod = make_pod(f"r{i}", node_name=nodes[i % len(nodes)]["metadata"]["name"],
                       volumes=volumes())
        running.append(pod)
    # Pods without claims too: VolumeBinding's PreFilter skips them, its Score still runs.
    pending = [make_pod(f"p{i}", volumes=volumes()) for i in range(draw(st.integers(1, 6)))]
    return nodes, (pvs, pvcs, [wffc], csinodes), running, pending


def _plugins(handle):
    return [new_volume_binding({}, handle), CSILimits(handle)]


@SETTINGS
@given(cluster=clusters())
def test_the_volume_filters_give_each_node_the_per_node_code_and_reasons(cluster):
    nodes, (pvs, pvcs, classes, csinodes), running, pending = cluster
    handle = vb.handle(nodes, pvcs, pvs, classes, csinodes,
                       pods=[pod_info(p) for p in running])
    assert sum(len(ni.pods) for ni in handle.snapshot.list()) == len(running)
    cols = columns_of(handle.snapshot)
    node_infos = handle.snapshot.list()
    for plugin in _plugins(handle):
        for manifest in pending:
            pod = pod_info(manifest)
            # Either may decline (a claim not bound yet, missing or broken): per-node then.
            state, status, verdict = check_filter_vector(plugin, pod, cols, node_infos,
                                                         may_decline=True)
            if status is not None and status.is_skip():
                _same_scores(plugin, state, pod, cols, node_infos)
            if verdict is not None:
                passed = [ni for row, ni in enumerate(node_infos) if not verdict.kinds[row]]
                _same_scores(plugin, state, pod, cols, passed)


def _same_scores(plugin, state, pod, cols, node_infos):
    """Score on arrays (where it answers) equals Score node by node (StorageCapacityScoring
    is on in the default release, so VolumeBinding scores every pod)."""
    if not hasattr(plugin, "score_vector") or not node_infos:
        return
    status = plugin.pre_score(state, pod, node_infos)
    assert status is None
    got = plugin.score_vector(state, pod, cols, cols.rows_of(node_infos))
    assert got is not None
    assert got.tolist() == [plugin.score(state, pod, ni)[0] for ni in node_infos]


@SETTINGS
@given(cluster=clusters(), trace=st.booleans())
def test_a_whole_run_with_volumes_is_the_same_on_both_paths(monkeypatch, cluster, trace):
    nodes, (pvs, pvcs, classes, csinodes), running, pending = cluster

    def objects():
        handle = vb.handle((), copy.deepcopy(pvcs), copy.deepcopy(pvs), classes,
                           copy.deepcopy(csinodes))
        return handle.objects

    results = []
    for path in ("reference", "vector"):
        cluster_ = Cluster(nodes=copy.deepcopy(nodes), pods=copy.deepcopy(running + pending),
                           objects=objects())
        results.append(run(monkeypatch, path, None, None, trace, cluster=cluster_))
    assert results[0] == results[1]
