"""VolumeRestrictions: volumes two pods may not share on a node (volume_restrictions.go).

In-tree disks (GCE PD, AWS EBS, Ceph RBD, iSCSI) conflict when a pod on the node already mounts
them (read-write), and a ReadWriteOncePod claim may be used by one pod in the whole cluster.
"""
from __future__ import annotations

from ...framework.cycle_state import StateData
from ...framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterExtensions,
    PreFilterPlugin,
)
from ...framework.status import Status
from .. import names
from ..volumebinding import storage as st
from . import queueing_hints

NAME = names.VOLUME_RESTRICTIONS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode")
RESTRICTED_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


class _PreFilterState(StateData):
    """The pod's ReadWriteOncePod claim names and how many scheduled pods use them."""

    def __init__(self, read_write_once_pod_pvcs: set[str], conflicting_pvc_ref_count: int):
        self.read_write_once_pod_pvcs = read_write_once_pod_pvcs
        self.conflicting_pvc_ref_count = conflicting_pvc_ref_count

    def update_with_pod(self, pod, multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * sum(
            1 for v in pod.spec.get("volumes") or []
            if v.get("persistentVolumeClaim") is not None
            and (v["persistentVolumeClaim"] or {}).get("claimName")
            in self.read_write_once_pod_pvcs)

    def clone(self):
        return _PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)


def _have_overlap(a: list, b: list) -> bool:
    return bool(set(a or []) & set(b or []))


def is_volume_conflict(volume: dict, pod_spec: dict) -> bool:
    """Whether the volume conflicts with one of the (already placed) pod's volumes."""
    for existing in pod_spec.get("volumes") or []:
        disk, other = volume.get("gcePersistentDisk"), existing.get("gcePersistentDisk")
        # The same GCE disk conflicts unless every pod mounts it read-only.
        if disk is not None and other is not None and disk.get("pdName") == other.get("pdName") \
                and not (disk.get("readOnly") and other.get("readOnly")):
            return True
        ebs, other = volume.get("awsElasticBlockStore"), existing.get("awsElasticBlockStore")
        if ebs is not None and other is not None and ebs.get("volumeID") == other.get("volumeID"):
            return True
        iscsi, other = volume.get("iscsi"), existing.get("iscsi")
        # The same IQN allows one read-write mount only.
        if iscsi is not None and other is not None and iscsi.get("iqn") == other.get("iqn") \
                and not (iscsi.get("readOnly") and other.get("readOnly")):
            return True
        rbd, other = volume.get("rbd"), existing.get("rbd")
        # The same image (a shared monitor, pool and image name) allows one read-write mount.
        if rbd is not None and other is not None \
                and _have_overlap(rbd.get("monitors"), other.get("monitors")) \
                and (rbd.get("pool") or "rbd") == (other.get("pool") or "rbd") \
                and rbd.get("image") == other.get("image") \
                and not (rbd.get("readOnly") and other.get("readOnly")):
            return True
    return False


def _needs_restrictions_check(volume: dict) -> bool:
    return any(volume.get(source) is not None for source in RESTRICTED_SOURCES)


def satisfy_volume_conflicts(pod, node_info) -> bool:
    for volume in pod.spec.get("volumes") or []:
        if not _needs_restrictions_check(volume):
            continue
        if any(is_volume_conflict(volume, existing.spec) for existing in node_info.pods):
            return False
    return True


class VolumeRestrictions(PreFilterPlugin, PreFilterExtensions, FilterPlugin, EnqueueExtensions):
    NAME = NAME

    def __init__(self, handle):
        self.handle = handle

    # --- PreFilter -----------------------------------------------------------------------------

    def _read_write_once_pod_pvcs(self, pod) -> tuple[set[str], str | None]:
        claims = set()
        for volume in pod.spec.get("volumes") or []:
            source = volume.get("persistentVolumeClaim")
            if source is None:
                continue
            name = (source or {}).get("claimName") or ""
            pvc = self.handle.objects.pvcs.get(f"{pod.namespace}/{name}")
            if pvc is None:
                return set(), st.not_found("persistentvolumeclaim", name)
            if st.READ_WRITE_ONCE_POD in (st.spec(pvc).get("accessModes") or []):
                claims.add(name)
        return claims, None

    def _pvcs_in_use(self) -> set[str]:
        """The snapshot's usedPVCSet: "ns/claim" of every claim a scheduled pod mounts."""
        used = set()
        for node_info in self.handle.snapshot.list():
            for pi in node_info.pods:
                for volume in pi.spec.get("volumes") or []:
                    if volume.get("persistentVolumeClaim") is not None:
                        name = (volume["persistentVolumeClaim"] or {}).get("claimName") or ""
                        used.add(f"{pi.namespace}/{name}")
        return used

    def pre_filter(self, state, pod, nodes):
        needs_check = any(_needs_restrictions_check(v) for v in pod.spec.get("volumes") or [])
        claims, err = self._read_write_once_pod_pvcs(pod)
        if err:
            return None, Status.unresolvable(err)
        in_use = self._pvcs_in_use() if claims else set()
        # There can be at most one pod using a ReadWriteOncePod claim.
        conflicts = sum(1 for name in claims if f"{pod.namespace}/{name}" in in_use)
        if not needs_check and conflicts == 0:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(claims, conflicts))
        return None, None

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pod_to_add, node_info):
        data = state.get(PRE_FILTER_STATE_KEY)
        if data is None:
            return Status.as_error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        data.update_with_pod(pod_to_add, 1)
        return None

    def remove_pod(self, state, pod, pod_to_remove, node_info):
        data = state.get(PRE_FILTER_STATE_KEY)
        if data is None:
            return Status.as_error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        data.update_with_pod(pod_to_remove, -1)
        return None

    # --- Filter --------------------------------------------------------------------------------

    def filter(self, state, pod, node_info):
        if not satisfy_volume_conflicts(pod, node_info):
            return Status.unschedulable(ERR_REASON_DISK_CONFLICT)
        data = state.get(PRE_FILTER_STATE_KEY)
        if data is None:
            return Status.as_error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        if data.conflicting_pvc_ref_count > 0:
            # Unschedulable, not unresolvable: preempting the other user of the claim helps.
            return Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return None

    # --- EnqueueExtensions ---------------------------------------------------------------------

    def events_to_register(self) -> set[str]:
        # Pod/Delete (a conflicting pod went away), Node/Add (|UpdateNodeTaint|UpdateNodeLabel
        # without queueing hints) and PersistentVolumeClaim/Add (the claim now exists).
        return {"AssignedPodDelete", "NodeAdd", "NodeUpdate", "PvcAdd"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_volume_restrictions(satisfy_volume_conflicts)


def new(args: dict, handle) -> VolumeRestrictions:
    return VolumeRestrictions(handle)
