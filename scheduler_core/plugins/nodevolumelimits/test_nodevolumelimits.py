"""NodeVolumeLimits, ported from csi_test.go (TestCSILimits) and the attach limit key helper."""
import copy

import pytest

from scheduler_core.columns.store import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.nodevolumelimits import new
from scheduler_core.plugins.nodevolumelimits.csi import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED
from scheduler_core.plugins.volumebinding import storage as st
from scheduler_core.testing import make_node, pod_info
from scheduler_core.testing.volumebinding import (
    csinode,
    ephemeral_volume,
    handle,
    pod,
    pv,
    pvc,
    storage_class,
)

EBS, GCE = "ebs.csi.aws.com", "pd.csi.storage.gke.io"
EBS_IN_TREE, HOSTPATH_IN_TREE = "kubernetes.io/aws-ebs", "kubernetes.io/hostpath"
SC_NAME = "csi-sc"
NODE_NAME = "node-for-max-pd-test-1"
EXCEEDED = Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
SKIP = Status.skip()


def fake_pvs(drivers):
    """getFakeCSIPVLister: csi-<driver>-<j> for j < 4, as CSI, EBS or hostPath volumes."""
    pvs = []
    for driver in drivers:
        for j in range(4):
            handle_name = f"csi-{driver}-{j}"
            if driver == EBS_IN_TREE:
                source = {"awsElasticBlockStore": {"volumeID": handle_name}}
            elif driver == HOSTPATH_IN_TREE:
                source = {"hostPath": {"path": "/tmp"}}
            else:
                source = {"csi": {"driver": driver, "volumeHandle": handle_name}}
            pvs.append(pv(handle_name, source=source))
    return pvs


def fake_pvcs(drivers):
    """getFakeCSIPVCLister: a bound claim per fake PV, plus csi-4 (unbound, with a class),
    csi-5 (unbound, no class) and csi-6 (bound to a missing PV, with a class)."""
    claims = [pvc(f"csi-{d}-{j}", volume_name=f"csi-{d}-{j}") for d in drivers for j in range(4)]
    return claims + [pvc("csi-4", SC_NAME), pvc("csi-5"),
                     pvc("csi-6", SC_NAME, volume_name="missing-in-action")]


def pvc_pod(name, *claims, extra_volumes=()):
    return pod(name, volumes=[*claims, *extra_volumes])


RUNNING = pvc_pod("running", "csi-ebs.csi.aws.com-3")
PENDING_VOLUME = pvc_pod("pending", "csi-4")
UNBOUND_PVC_POD2 = pvc_pod("pending-2", "csi-4")
MISSING_PV = pvc_pod("missing-pv", "csi-6")
NO_SC_PVC = pvc_pod("no-sc", "csi-5")
GCE_TWO_VOL = pvc_pod("gce-two", "csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2")
IN_TREE_ONE_VOL = pvc_pod("in-tree-one", "csi-kubernetes.io/aws-ebs-0")
IN_TREE_TWO_VOL = pvc_pod("in-tree-two", "csi-kubernetes.io/aws-ebs-1",
                          "csi-kubernetes.io/aws-ebs-2")
CSI_EBS_ONE_VOL = pvc_pod("csi-ebs-one", "csi-ebs.csi.aws.com-0")
CSI_EBS_TWO_VOL = pvc_pod("csi-ebs-two", "csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2")
IN_TREE_NON_MIGRATABLE = pvc_pod("hostpath", "csi-kubernetes.io/hostpath-0")
CONFIG_AND_SECRET = [{"name": "cm", "configMap": {}}, {"name": "secret", "secret": {}}]
EBS_INLINE = {"name": "inline", "awsElasticBlockStore": {"volumeID": "aws-inline1"}}
IN_TREE_INLINE = pod("inline", volumes=[EBS_INLINE])
IN_TREE_INLINE_SAME_ID = pod("inline-same-id", volumes=[
    {"name": "inline", "awsElasticBlockStore": {"volumeID": "csi-ebs.csi.aws.com-1"}}])
ONLY_CONFIG_AND_SECRET = pod("cm-secret", volumes=CONFIG_AND_SECRET)
PVC_WITH_CONFIG_AND_SECRET = pvc_pod("pvc-cm-secret", "csi-ebs.csi.aws.com-0",
                                     extra_volumes=CONFIG_AND_SECRET)
EPHEMERAL = pod("abc", "test", volumes=[ephemeral_volume("xyz")], uid="12345")
EPHEMERAL_WITH_CONFIG_AND_SECRET = pod("abc", "test",
                                       volumes=[*CONFIG_AND_SECRET, ephemeral_volume("xyz")])
EPHEMERAL_TWO_VOL = pod("abc", "test", volumes=[ephemeral_volume("x"), ephemeral_volume("y")],
                        uid="12345II")
INLINE_MIGRATABLE_WITH_CONFIG_AND_SECRET = pod("inline-cm-secret",
                                               volumes=[*CONFIG_AND_SECRET, EBS_INLINE])
EPHEMERAL_CLAIM = pvc("abc-xyz", SC_NAME, namespace="test", owner_uid="12345")
CONFLICTING_CLAIM = pvc("abc-xyz", SC_NAME, namespace="test")
EPHEMERAL_CLAIM_X = pvc("abc-x", SC_NAME, namespace="test", owner_uid="12345II")
EPHEMERAL_CLAIM_Y = pvc("abc-y", SC_NAME, namespace="test", owner_uid="12345II")
MISSING_EPHEMERAL = Status.unresolvable(
    'looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found')
IN_TREE_DRIVERS = [EBS_IN_TREE, EBS]

# new pod, existing pods, extra claims, max volumes, drivers, limit source, filter, prefilter
CASES = [
    pytest.param(CSI_EBS_ONE_VOL, [RUNNING, CSI_EBS_TWO_VOL], [], 4, [EBS], "csinode", None,
                 None, id="fits when node volume limit >= new pods CSI volume"),
    pytest.param(CSI_EBS_ONE_VOL, [RUNNING, CSI_EBS_TWO_VOL], [], 2, [EBS], "csinode", EXCEEDED,
                 None, id="doesn't when node volume limit <= pods CSI volume"),
    pytest.param(CSI_EBS_ONE_VOL, [RUNNING, CSI_EBS_TWO_VOL], [], 2, [EBS],
                 "csinode-with-no-limit", None, None,
                 id="fits when driver does not support volume limits"),
    pytest.param(CSI_EBS_ONE_VOL, [PENDING_VOLUME, CSI_EBS_TWO_VOL], [], 2, [EBS], "csinode",
                 EXCEEDED, None, id="count pending PVCs towards volume limit <= pods CSI volume"),
    pytest.param(CSI_EBS_ONE_VOL, [PENDING_VOLUME, UNBOUND_PVC_POD2, CSI_EBS_TWO_VOL], [], 4,
                 [EBS], "csinode", None, None,
                 id="count multiple pending pvcs towards volume limit >= pods CSI volume"),
    pytest.param(CSI_EBS_ONE_VOL, [MISSING_PV, CSI_EBS_TWO_VOL], [], 2, [EBS], "csinode",
                 EXCEEDED, None, id="should count PVCs with invalid PV name but valid SC"),
    pytest.param(CSI_EBS_ONE_VOL, [RUNNING, NO_SC_PVC], [], 2, [EBS], "csinode", None, None,
                 id="don't count pvcs with missing SC towards volume limit"),
    pytest.param(CSI_EBS_ONE_VOL, [GCE_TWO_VOL, CSI_EBS_TWO_VOL], [], 2, [EBS, GCE], "csinode",
                 EXCEEDED, None, id="count pvcs with the same type towards volume limit"),
    pytest.param(GCE_TWO_VOL, [CSI_EBS_TWO_VOL, RUNNING], [], 2, [EBS, GCE], "csinode", None,
                 None, id="don't count pvcs with different type towards volume limit"),
    pytest.param(IN_TREE_ONE_VOL, [IN_TREE_TWO_VOL], [], 2, IN_TREE_DRIVERS, "csinode", EXCEEDED,
                 None, id="should count in-tree volumes if migration is enabled"),
    pytest.param(IN_TREE_INLINE, [IN_TREE_TWO_VOL], [], 0, IN_TREE_DRIVERS, "", None, None,
                 id="nil csi node"),
    pytest.param(PENDING_VOLUME, [IN_TREE_TWO_VOL], [], 2, IN_TREE_DRIVERS, "csinode", EXCEEDED,
                 None, id="should count unbound in-tree volumes if migration is enabled"),
    pytest.param(IN_TREE_ONE_VOL, [IN_TREE_TWO_VOL], [], 2, IN_TREE_DRIVERS,
                 "csinode-with-no-limit", None, None,
                 id="should not limit pod if volume used does not report limits"),
    pytest.param(IN_TREE_NON_MIGRATABLE, [CSI_EBS_TWO_VOL], [], 2, [HOSTPATH_IN_TREE, EBS],
                 "csinode", None, None, id="should not count non-migratable in-tree volumes"),
    pytest.param(IN_TREE_INLINE, [IN_TREE_TWO_VOL], [], 2, IN_TREE_DRIVERS, "csinode", EXCEEDED,
                 None, id="should count in-tree inline volumes if migration is enabled"),
    pytest.param(IN_TREE_ONE_VOL, [CSI_EBS_TWO_VOL], [], 2, IN_TREE_DRIVERS, "csinode", EXCEEDED,
                 None, id="should count in-tree and csi volumes if migration is enabled "
                          "(when scheduling in-tree volumes)"),
    pytest.param(IN_TREE_INLINE, [CSI_EBS_TWO_VOL, IN_TREE_ONE_VOL], [], 3, IN_TREE_DRIVERS,
                 "csinode", EXCEEDED, None,
                 id="should count in-tree, inline and csi volumes if migration is enabled "
                    "(when scheduling in-tree volumes)"),
    pytest.param(IN_TREE_INLINE_SAME_ID, [CSI_EBS_TWO_VOL, IN_TREE_ONE_VOL], [], 3,
                 IN_TREE_DRIVERS, "csinode", None, None,
                 id="should not count an inline volume whose CSI handle is already attached"),
    pytest.param(CSI_EBS_ONE_VOL, [IN_TREE_TWO_VOL], [], 2, IN_TREE_DRIVERS, "csinode",
                 EXCEEDED, None, id="should count in-tree and csi volumes if migration is enabled "
                                    "(when scheduling csi volumes)"),
    pytest.param(EPHEMERAL, [], [], 0, [EBS], "csinode-with-no-limit", MISSING_EPHEMERAL, None,
                 id="ephemeral volume missing"),
    pytest.param(EPHEMERAL, [], [CONFLICTING_CLAIM], 0, [EBS], "csinode-with-no-limit",
                 Status.as_error("PVC test/abc-xyz was not created for pod test/abc "
                                 "(pod is not owner)"), None, id="ephemeral volume not owned"),
    pytest.param(EPHEMERAL, [], [EPHEMERAL_CLAIM], 0, [EBS], "csinode-with-no-limit", None, None,
                 id="ephemeral volume unbound"),
    pytest.param(EPHEMERAL, [RUNNING, CSI_EBS_TWO_VOL], [EPHEMERAL_CLAIM], 2, [EBS], "csinode",
                 EXCEEDED, None, id="ephemeral doesn't when node volume limit <= pods CSI volume"),
    pytest.param(CSI_EBS_ONE_VOL, [RUNNING, EPHEMERAL_TWO_VOL],
                 [EPHEMERAL_CLAIM_X, EPHEMERAL_CLAIM_Y], 2, [EBS], "csinode", EXCEEDED, None,
                 id="ephemeral doesn't when node volume limit <= pods ephemeral CSI volume"),
    pytest.param(CSI_EBS_ONE_VOL, [RUNNING, EPHEMERAL, CSI_EBS_TWO_VOL], [EPHEMERAL_CLAIM], 3,
                 [EBS], "csinode", EXCEEDED, None,
                 id="persistent doesn't when node volume limit <= pods ephemeral CSI volume + "
                    "persistent volume"),
    pytest.param(CSI_EBS_ONE_VOL, [RUNNING, EPHEMERAL, CSI_EBS_TWO_VOL], [EPHEMERAL_CLAIM], 5,
                 [EBS], "csinode", None, None,
                 id="persistent okay when node volume limit > pods ephemeral CSI volume + "
                    "persistent volume"),
    pytest.param(ONLY_CONFIG_AND_SECRET, [], [], 2, [EBS], "csinode", None, SKIP,
                 id="skip Filter when the pod only uses secrets and configmaps"),
    pytest.param(PVC_WITH_CONFIG_AND_SECRET, [], [], 2, [EBS], "csinode", None, None,
                 id="don't skip Filter when the pod has pvcs"),
    pytest.param(EPHEMERAL_WITH_CONFIG_AND_SECRET, [], [], 0, [EBS], "csinode-with-no-limit",
                 MISSING_EPHEMERAL, None,
                 id="don't skip Filter when the pod has ephemeral volumes"),
    pytest.param(INLINE_MIGRATABLE_WITH_CONFIG_AND_SECRET, [IN_TREE_TWO_VOL], [], 2,
                 IN_TREE_DRIVERS, "csinode", EXCEEDED, None,
                 id="don't skip Filter when the pod has inline migratable volumes"),
]


def on_node(p):
    """The pod as scheduled on the test node."""
    manifest = copy.deepcopy(p.obj)
    manifest["spec"]["nodeName"] = NODE_NAME
    return pod_info(manifest)


def csinode_for(limit_source, max_vols, drivers):
    """getNodeWithPodAndVolumeLimits' CSINode, with in-tree EBS marked migrated."""
    if limit_source == "csinode":
        counts = {d: max_vols for d in drivers}
    elif limit_source == "csinode-with-no-limit":
        counts = {d: None for d in drivers}
    else:
        return []
    return [csinode(NODE_NAME, counts, migrated=EBS_IN_TREE)]


@pytest.mark.parametrize("new_pod, existing, extra_claims, max_vols, drivers, limit_source, "
                         "want, want_pre_filter", CASES)
def test_csi_limits(new_pod, existing, extra_claims, max_vols, drivers, limit_source, want,
                    want_pre_filter):
    h = handle([make_node(NODE_NAME)], fake_pvcs(drivers) + list(extra_claims),
               fake_pvs(drivers), [storage_class(SC_NAME, provisioner=drivers[0])],
               csinode_for(limit_source, max_vols, drivers), pods=[on_node(p) for p in existing])
    plugin = new({}, h)
    state = CycleState()
    _, status = plugin.pre_filter(state, new_pod, [])
    assert status == want_pre_filter
    if status is None:
        assert plugin.filter(state, new_pod, h.snapshot.get(NODE_NAME)) == want


def test_node_allocatable_limits_apply_without_a_csinode():
    node = make_node(NODE_NAME, allocatable={st.csi_attach_limit_key(EBS): "1"})
    h = handle([node], fake_pvcs([EBS]), fake_pvs([EBS]),
               pods=[on_node(pvc_pod("old", "csi-ebs.csi.aws.com-1"))])
    plugin = new({}, h)
    p = pvc_pod("new", "csi-ebs.csi.aws.com-0")
    assert plugin.filter(CycleState(), p, h.snapshot.get(NODE_NAME)) == EXCEEDED


def test_a_volume_shared_with_a_pod_on_the_node_costs_nothing():
    h = handle([make_node(NODE_NAME)], fake_pvcs([EBS]), fake_pvs([EBS]),
               csinodes=[csinode(NODE_NAME, {EBS: 1})])
    ni = NodeInfo(make_node(NODE_NAME))
    ni.add_pod(pvc_pod("old", "csi-ebs.csi.aws.com-0"))
    plugin = new({}, h)
    assert plugin.filter(CycleState(), pvc_pod("new", "csi-ebs.csi.aws.com-0"), ni) is None
    assert plugin.filter(CycleState(), pvc_pod("new", "csi-ebs.csi.aws.com-1"), ni) == EXCEEDED


@pytest.mark.parametrize("driver, want", [
    pytest.param("ebs.csi.aws.com", "attachable-volumes-csi-ebs.csi.aws.com",
                 id="a short driver name is used whole"),
    pytest.param("a-very-long-driver-name.storage.example.com",
                 "attachable-volumes-csi-a-very-long-driver-name0c78ae5b31e295e9",
                 id="a long driver name is cut and hashed to fit 63 characters"),
])
def test_csi_attach_limit_key(driver, want):
    assert st.csi_attach_limit_key(driver) == want


def test_events_to_register():
    assert new({}, handle()).events_to_register() == {"CSINodeAdd", "AssignedPodDelete",
                                                      "PvcAdd"}


def test_the_columns_count_a_rows_pods_again_as_they_come_and_go():
    """The vectorized Filter keeps what each pod of a row attaches: a row rewritten because a
    pod left or came, or a storage object edited, counts its volumes as they now are."""
    old, other = (on_node(pvc_pod(name, f"csi-ebs.csi.aws.com-{i}"))
                  for i, name in enumerate(("old", "other")))
    h = handle([make_node(NODE_NAME)], fake_pvcs([EBS]), fake_pvs([EBS]),
               csinodes=[csinode(NODE_NAME, {EBS: 2})], pods=[old, other])
    plugin, cols = new({}, h), columns_of(h.snapshot)
    new_pod = pvc_pod("new", "csi-ebs.csi.aws.com-2")

    def rejected() -> bool:
        verdict = plugin.filter_vector(CycleState(), new_pod, cols)
        by_node = plugin.filter(CycleState(), new_pod, cols.node_infos[0])
        assert bool(verdict.kinds[0]) == (by_node is not None)
        return bool(verdict.kinds[0])

    def rewrite(change) -> None:
        before = cols.node_infos[0]
        after = before.clone()
        change(after)
        cols.node_infos[0] = after
        cols.update_row(0, after, before)

    assert rejected()
    rewrite(lambda ni: ni.remove_pod(other))
    assert not rejected()
    rewrite(lambda ni: ni.add_pod(on_node(pvc_pod("again", "csi-ebs.csi.aws.com-1"))))
    assert rejected()
    # The claim now names the new pod's volume: the node has it, so it costs nothing more.
    h.objects.pvcs["default/csi-ebs.csi.aws.com-1"]["spec"]["volumeName"] = \
        "csi-ebs.csi.aws.com-2"
    h.objects.storage_changed()
    assert not rejected()
