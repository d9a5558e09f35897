"""VolumeZone's QueueingHints (volumezone/volume_zone.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from ..volumebinding import storage as st


def for_volume_zone(topology_labels) -> dict:
    """StorageClass/Add, PersistentVolumeClaim/Add|Update and PersistentVolume/Add|Update with
    hints; Node/Add|UpdateNodeLabel always queue. topology_labels: the PV labels that count."""
    def pv_change(pod, old_pv, new_pv) -> str:
        return is_schedulable_after_pv_change(topology_labels, pod, old_pv, new_pv)
    return {"StorageClassAdd": is_schedulable_after_storage_class_added,
            "NodeAdd": None, "NodeUpdate": None,
            "PvcAdd": is_schedulable_after_pvc_change, "PvcUpdate": is_schedulable_after_pvc_change,
            "PvAdd": pv_change, "PvUpdate": pv_change}


def is_schedulable_after_pvc_change(pod, old_pvc, new_pvc) -> str:
    """The claim added or updated is one of the pod's."""
    meta = st.meta(new_pvc)
    if (meta.get("namespace") or "default") != pod.namespace:
        return QUEUE_SKIP
    claims = {(v.get("persistentVolumeClaim") or {}).get("claimName")
              for v in pod.spec.get("volumes") or [] if v.get("persistentVolumeClaim")}
    return QUEUE if meta.get("name") in claims else QUEUE_SKIP


def is_schedulable_after_storage_class_added(pod, old_sc, new_sc) -> str:
    """Only a WaitForFirstConsumer class lets VolumeZone wait for the node."""
    return QUEUE if new_sc.get("volumeBindingMode") == st.WAIT_FOR_FIRST_CONSUMER \
        else QUEUE_SKIP


def _topologies(topology_labels, pv: dict) -> list:
    """getPVTopologies: (key, zones) of each parsable topology label."""
    labels = st.meta(pv).get("labels") or {}
    out = []
    for key in topology_labels:
        if key in labels:
            values, err = st.label_zones_to_set(labels[key])
            if not err:
                out.append((key, values))
    return out


def is_schedulable_after_pv_change(topology_labels, pod, old_pv, new_pv) -> str:
    """A new volume, or one whose topology labels changed."""
    if old_pv is None:
        return QUEUE
    if _topologies(topology_labels, old_pv) != _topologies(topology_labels, new_pv):
        return QUEUE
    return QUEUE_SKIP
