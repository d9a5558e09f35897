"""VolumeRestrictions, ported from volume_restrictions_test.go."""
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.volumerestrictions import new
from scheduler_core.plugins.volumerestrictions.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
)
from scheduler_core.testing.volumebinding import handle, node, pod, pvc

SKIP = Status.skip()
DISK_CONFLICT = Status.unschedulable(ERR_REASON_DISK_CONFLICT)


def vol(**source):
    return {"name": "v", **source}


def node_with(*volume_lists):
    """A NodeInfo running one pod per list of volumes."""
    ni = NodeInfo(node("node-1"))
    for i, volumes in enumerate(volume_lists):
        ni.add_pod(pod(f"existing-{i}", volumes=volumes, node_name="node-1"))
    return ni


GCE = vol(gcePersistentDisk={"pdName": "foo"})
GCE2 = vol(gcePersistentDisk={"pdName": "bar"})
GCE_RO = vol(gcePersistentDisk={"pdName": "foo", "readOnly": True})
AWS = vol(awsElasticBlockStore={"volumeID": "foo"})
AWS2 = vol(awsElasticBlockStore={"volumeID": "bar"})
AWS_RO = vol(awsElasticBlockStore={"volumeID": "foo", "readOnly": True})
RBD = vol(rbd={"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"})
RBD2 = vol(rbd={"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"})
RBD_SHARED_MONITOR = vol(rbd={"monitors": ["b", "z"], "pool": "foo", "image": "bar"})
ISCSI = vol(iscsi={"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01",
                   "fsType": "ext4", "lun": 0})
ISCSI2 = vol(iscsi={"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01",
                    "fsType": "ext4", "lun": 0})
NO_RESTRICTION = vol()


def disk_cases(kind, same, different):
    return [
        pytest.param([], node_with(), SKIP, None, id=f"{kind}: nothing"),
        pytest.param([], node_with([same]), SKIP, None, id=f"{kind}: one state"),
        pytest.param([same], node_with([same]), None, DISK_CONFLICT, id=f"{kind}: same state"),
        pytest.param([different], node_with([same]), None, None, id=f"{kind}: different state"),
    ]


DISK_CASES = [
    *disk_cases("GCE PD", GCE, GCE2),
    pytest.param([NO_RESTRICTION], node_with(), SKIP, None,
                 id="GCE PD: pod with a volume that doesn't have restrictions"),
    *disk_cases("AWS EBS", AWS, AWS2),
    *disk_cases("RBD", RBD, RBD2),
    *disk_cases("ISCSI", ISCSI, ISCSI2),
    pytest.param([GCE_RO], node_with([GCE_RO]), None, None,
                 id="the same GCE disk mounted read-only by both pods does not conflict"),
    pytest.param([GCE_RO], node_with([GCE]), None, DISK_CONFLICT,
                 id="the same GCE disk conflicts when one pod mounts it read-write"),
    pytest.param([AWS_RO], node_with([AWS_RO]), None, DISK_CONFLICT,
                 id="the same EBS volume conflicts even read-only"),
    pytest.param([RBD_SHARED_MONITOR], node_with([RBD]), None, DISK_CONFLICT,
                 id="RBD images sharing one monitor, pool and image conflict"),
    pytest.param([GCE], node_with([GCE2], [AWS, GCE]), None, DISK_CONFLICT,
                 id="any pod on the node can hold the conflicting disk"),
]


@pytest.mark.parametrize("volumes, node_info, want_pre_filter, want_filter", DISK_CASES)
def test_disk_conflicts(volumes, node_info, want_pre_filter, want_filter):
    plugin = new({}, handle())
    state = CycleState()
    p = pod(volumes=volumes)
    _, status = plugin.pre_filter(state, p, [])
    assert status == want_pre_filter
    if status is None:
        assert plugin.filter(state, p, node_info) == want_filter


RWOP1 = pvc("claim-with-rwop-1", access_modes=["ReadWriteOncePod"])
RWOP2 = pvc("claim-with-rwop-2", access_modes=["ReadWriteOncePod"])
RWX = pvc("claim-with-rwx", access_modes=["ReadWriteMany"])
ONE_PVC = pod("pod-with-one-pvc", volumes=["claim-with-rwop-1"], node_name="node-1")
TWO_PVCS = pod("pod-with-two-pvcs", volumes=["claim-with-rwop-1", "claim-with-rwop-2"],
               node_name="node-1")
ONE_CONFLICT = pod("pod-with-one-conflict", volumes=["claim-with-rwop-1"], node_name="node-1")
TWO_CONFLICTS = pod("pod-with-two-conflicts", volumes=["claim-with-rwop-1", "claim-with-rwop-2"],
                    node_name="node-1")
RWX_POD = pod("pod-with-rwx", volumes=["claim-with-rwx"], node_name="node-1")
RWOP_CONFLICT = Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)

ACCESS_MODE_CASES = [
    pytest.param(pod(), [], [], [], SKIP, None, id="nothing"),
    pytest.param(ONE_PVC, [], [], [],
                 Status.unresolvable('persistentvolumeclaim "claim-with-rwop-1" not found'), None,
                 id="failed to get PVC"),
    pytest.param(ONE_PVC, [RWX_POD], [node("node-1")], [RWOP1, RWX], SKIP, None,
                 id="no access mode conflict"),
    pytest.param(ONE_CONFLICT, [ONE_PVC, RWX_POD], [node("node-1")], [RWOP1, RWX], None,
                 RWOP_CONFLICT, id="access mode conflict, unschedulable"),
    pytest.param(TWO_CONFLICTS, [TWO_PVCS, RWX_POD], [node("node-1")], [RWOP1, RWOP2, RWX], None,
                 RWOP_CONFLICT, id="two conflicts, unschedulable"),
]


@pytest.mark.parametrize("p, existing, nodes, pvcs, want_pre_filter, want_filter",
                         ACCESS_MODE_CASES)
def test_access_mode_conflicts(p, existing, nodes, pvcs, want_pre_filter, want_filter):
    h = handle(nodes, pvcs, pods=existing)
    plugin = new({}, h)
    state = CycleState()
    _, status = plugin.pre_filter(state, p, [])
    assert status == want_pre_filter
    if status is None:
        assert plugin.filter(state, p, h.snapshot.get("node-1")) == want_filter


def test_removing_the_other_user_of_a_read_write_once_pod_claim_resolves_the_conflict():
    """What preemption checks: RemovePod/AddPod keep the conflict count in step."""
    h = handle([node("node-1")], [RWOP1], pods=[ONE_PVC])
    plugin = new({}, h)
    state = CycleState()
    plugin.pre_filter(state, ONE_CONFLICT, [])
    ni = h.snapshot.get("node-1")
    what_if = state.clone()
    ext = plugin.pre_filter_extensions()
    assert ext.remove_pod(what_if, ONE_CONFLICT, ONE_PVC, ni) is None
    assert plugin.filter(what_if, ONE_CONFLICT, ni) is None
    assert plugin.filter(state, ONE_CONFLICT, ni) == RWOP_CONFLICT  # the clone is independent
    assert ext.add_pod(what_if, ONE_CONFLICT, ONE_PVC, ni) is None
    assert plugin.filter(what_if, ONE_CONFLICT, ni) == RWOP_CONFLICT


def test_a_claim_of_the_same_name_in_another_namespace_does_not_conflict():
    other = pod("other", namespace="team-b", volumes=["claim-with-rwop-1"], node_name="node-1")
    h = handle([node("node-1")], [RWOP1, pvc("claim-with-rwop-1", namespace="team-b")],
               pods=[other])
    assert new({}, h).pre_filter(CycleState(), ONE_CONFLICT, [])[1] == SKIP


def test_events_to_register():
    assert new({}, handle()).events_to_register() == {"AssignedPodDelete", "NodeAdd",
                                                      "NodeUpdate", "PvcAdd"}
