"""VolumeZone: a bound volume's zone and region labels must match the node's (volume_zone.go).

A PersistentVolume labelled topology.kubernetes.io/zone (or region, or the beta
failure-domain.beta.kubernetes.io keys) can only be used from nodes with the same label value;
a value "a__b" allows either zone. Nodes without any zone or region label always fit.
"""
from __future__ import annotations

from ...framework.cycle_state import StateData
from ...framework.interfaces import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from ...framework.status import Status
from .. import names
from ..volumebinding import storage as st
from . import queueing_hints

NAME = names.VOLUME_ZONE
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"
# The order PreFilter reads a PV's labels in.
TOPOLOGY_LABELS = (st.ZONE_BETA, st.REGION_BETA, st.ZONE_GA, st.REGION_GA)
_GA_OF = {st.REGION_BETA: st.REGION_GA, st.ZONE_BETA: st.ZONE_GA}


class _StateData(StateData):
    """(pv name, label key, allowed values) for each topology label of the pod's volumes."""

    def __init__(self, topologies: list[tuple[str, str, set[str]]]):
        self.topologies = topologies


class VolumeZone(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    NAME = NAME

    def __init__(self, handle):
        self.handle = handle

    def _pv_topologies(self, pod) -> tuple[list[tuple[str, str, set[str]]], Status | None]:
        """getPVbyPod: the topology of every bound volume the pod's claims use."""
        objects = self.handle.objects
        topologies = []
        for volume in pod.spec.get("volumes") or []:
            if volume.get("persistentVolumeClaim") is None:
                continue
            claim_name = (volume["persistentVolumeClaim"] or {}).get("claimName") or ""
            if not claim_name:
                return [], Status.unresolvable("PersistentVolumeClaim had no name")
            pvc = objects.pvcs.get(f"{pod.namespace}/{claim_name}")
            if pvc is None:
                return [], Status.unresolvable(st.not_found("persistentvolumeclaim", claim_name))
            pv_name = st.spec(pvc).get("volumeName") or ""
            if not pv_name:
                class_name = st.claim_class(pvc)
                if not class_name:
                    return [], Status.unresolvable(
                        "PersistentVolumeClaim had no pv name and storageClass name")
                sc = objects.storage_classes.get(class_name)
                if sc is None:
                    return [], Status.unresolvable(
                        st.not_found("storageclass.storage.k8s.io", class_name))
                mode = sc.get("volumeBindingMode")
                if mode is None:
                    return [], Status.unresolvable(
                        f"VolumeBindingMode not set for StorageClass {st.go_quote(class_name)}")
                if mode == st.WAIT_FOR_FIRST_CONSUMER:
                    # Not bound yet: VolumeBinding picks a volume that suits the node.
                    continue
                return [], Status.unresolvable("PersistentVolume had no name")
            pv = objects.pvs.get(pv_name)
            if pv is None:
                return [], Status.unresolvable(st.not_found("persistentvolume", pv_name))
            labels = st.meta(pv).get("labels") or {}
            for key in TOPOLOGY_LABELS:
                if key in labels:
                    values, err = st.label_zones_to_set(labels[key])
                    if err:
                        continue  # an unparsable label is ignored
                    topologies.append((pv_name, key, values))
        return topologies, None

    def pre_filter(self, state, pod, nodes):
        topologies, status = self._pv_topologies(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _StateData(topologies))
        return None, None

    def filter(self, state, pod, node_info):
        if not pod.spec.get("volumes"):
            return None
        data = state.get(PRE_FILTER_STATE_KEY)
        if data is not None:
            topologies = data.topologies
        else:
            topologies, status = self._pv_topologies(pod)
            if status is not None:
                return status
        labels = node_info.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            # A node without zone labels (a single-zone cluster) can use any volume.
            return None
        for _, key, values in topologies:
            # A PV's beta label also matches the node's GA label.
            value = labels.get(key, labels.get(_GA_OF.get(key, key)))
            if value is None or value not in values:
                return Status.unresolvable(ERR_REASON_CONFLICT)
        return None

    def events_to_register(self) -> set[str]:
        # StorageClass/Add (a WaitForFirstConsumer class), Node/Add|UpdateNodeLabel|
        # UpdateNodeTaint, PersistentVolumeClaim/Add|Update, PersistentVolume/Add|Update.
        return {"StorageClassAdd", "NodeAdd", "NodeUpdate", "PvcAdd", "PvcUpdate", "PvAdd",
                "PvUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_volume_zone(TOPOLOGY_LABELS)


def new(args: dict, handle) -> VolumeZone:
    return VolumeZone(handle)
