"""VolumeBinding's QueueingHints (volumebinding/volume_binding.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from . import storage as st


def for_volume_binding(plugin) -> dict:
    """StorageClass, PersistentVolumeClaim and CSINode Add|Update with hints; PersistentVolume
    Add|Update, Node Add|UpdateNodeLabel, CSIDriver and CSIStorageCapacity always queue here
    (their hints need the driver's and the capacity's details, not ported)."""
    return {"StorageClassAdd": is_schedulable_after_storage_class_change,
            "StorageClassUpdate": is_schedulable_after_storage_class_change,
            "PvcAdd": is_schedulable_after_pvc_change,
            "PvcUpdate": is_schedulable_after_pvc_change,
            "PvAdd": None, "PvUpdate": None, "NodeAdd": None, "NodeUpdate": None,
            "CSINodeAdd": is_schedulable_after_csinode_change,
            "CSINodeUpdate": is_schedulable_after_csinode_change,
            "CSIDriverAdd": None, "CSIDriverUpdate": None,
            "CSIStorageCapacityAdd": None, "CSIStorageCapacityUpdate": None}


def _claim_names(pod) -> set[str]:
    """The pod's claims: named ones, and the `<pod>-<volume>` claims of ephemeral volumes."""
    names = set()
    for volume in pod.spec.get("volumes") or []:
        if volume.get("persistentVolumeClaim") is not None:
            names.add((volume["persistentVolumeClaim"] or {}).get("claimName"))
        elif volume.get("ephemeral") is not None:
            names.add(f"{pod.name}-{volume.get('name')}")
    return names


def is_schedulable_after_pvc_change(pod, old_pvc, new_pvc) -> str:
    """The claim added or updated is one of the pod's."""
    meta = st.meta(new_pvc)
    if (meta.get("namespace") or "default") != pod.namespace:
        return QUEUE_SKIP
    return QUEUE if meta.get("name") in _claim_names(pod) else QUEUE_SKIP


def is_schedulable_after_storage_class_change(pod, old_sc, new_sc) -> str:
    """A new class, or one whose allowed topologies changed."""
    if old_sc is None:
        return QUEUE
    return QUEUE if old_sc.get("allowedTopologies") != new_sc.get("allowedTopologies") \
        else QUEUE_SKIP


def is_schedulable_after_csinode_change(pod, old_csinode, new_csinode) -> str:
    """A new CSINode, or one whose migrated in-tree plugins changed."""
    if old_csinode is None:
        return QUEUE
    return QUEUE if st.migrated_plugins(old_csinode) != st.migrated_plugins(new_csinode) \
        else QUEUE_SKIP
