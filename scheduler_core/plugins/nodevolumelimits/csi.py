"""NodeVolumeLimits: the CSI attach limit of each driver on a node (nodevolumelimits/csi.go).

A CSINode's spec.drivers[].allocatable.count caps how many distinct volumes of that driver can
be attached to the node. The pods already on the node and the new pod are counted together,
each volume (driver/volumeHandle) once however many pods share it. In-tree volumes whose plugin
has migrated to CSI on the node count as their CSI driver's volumes.
"""
from __future__ import annotations

import uuid

from ...framework.interfaces import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from ...framework.status import Status
from .. import names
from ..volumebinding import storage as st
from . import queueing_hints, vector

NAME = names.NODE_VOLUME_LIMITS
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"


class VolumeError(Exception):
    """A volume the Filter cannot count."""


class _NotFound(VolumeError):
    """A claim of the new pod is missing: the pod cannot run until it is created."""


class _Error(VolumeError):
    """Any other failure; it becomes an Error status."""


def is_csi_migration_on(csinode: dict | None, plugin: str) -> bool:
    """isCSIMigrationOn: the GA migrations need only a CSINode; Portworx must be listed in its
    migrated-plugins annotation."""
    if csinode is None or not plugin:
        return False
    if plugin in (st.AWS_EBS, st.GCE_PD, st.AZURE_DISK, st.CINDER):
        return True
    if plugin == st.PORTWORX:
        return plugin in st.migrated_plugins(csinode)
    return False


def _inline_migratable(volume: dict) -> bool:
    return bool(st.in_tree_plugin_of(volume))


def volume_limits(node_info, csinode: dict | None) -> dict[str, int]:
    """getVolumeLimits: attachable-volumes-* allocatable of the node, then the CSINode's counts."""
    limits = {name: value for name, value in node_info.allocatable.scalar.items()
              if name.startswith(ATTACHABLE_VOLUMES_PREFIX)}
    for driver in st.spec(csinode or {}).get("drivers") or []:
        count = (driver.get("allocatable") or {}).get("count")
        if count is not None:
            limits[st.csi_attach_limit_key(driver.get("name", ""))] = int(count)
    return limits


class CSILimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    NAME = NAME
    # What the vectorized Filter (vector.py) shares with this one.
    VolumeError = VolumeError
    EXCEEDED = ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED
    volume_limits = staticmethod(volume_limits)

    def __init__(self, handle):
        self.handle = handle
        # Stands in for the volume handle of a claim that has no volume yet.
        self.random_volume_id_prefix = uuid.uuid4().hex

    def pre_filter(self, state, pod, nodes):
        for volume in pod.spec.get("volumes") or []:
            if volume.get("persistentVolumeClaim") is not None or \
                    volume.get("ephemeral") is not None or _inline_migratable(volume):
                return None, None
        return None, Status.skip()

    def filter(self, state, pod, node_info):
        if not pod.spec.get("volumes"):
            return None
        # Without a CSINode the limits may still come from the node's allocatable.
        csinode = self.handle.objects.csinodes.get(node_info.name)
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(pod, csinode, True, new_volumes)
        except _NotFound as exc:
            return Status.unresolvable(str(exc))
        except _Error as exc:
            return Status.as_error(str(exc))
        if not new_volumes:
            return None
        limits = volume_limits(node_info, csinode)
        if not limits:
            return None
        attached: dict[str, str] = {}
        for existing in node_info.pods:
            try:
                self._attachable_volumes(existing, csinode, False, attached)
            except (_NotFound, _Error) as exc:
                return Status.as_error(str(exc))
        attached_count: dict[str, int] = {}
        for unique_name, limit_key in attached.items():
            # A volume the node already has costs nothing more.
            new_volumes.pop(unique_name, None)
            attached_count[limit_key] = attached_count.get(limit_key, 0) + 1
        new_count: dict[str, int] = {}
        for limit_key in new_volumes.values():
            new_count[limit_key] = new_count.get(limit_key, 0) + 1
        for limit_key, count in new_count.items():
            limit = limits.get(limit_key)
            if limit is not None and attached_count.get(limit_key, 0) + count > limit:
                return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def filter_vector(self, state, pod, cols):
        """The same verdicts with what each node attaches kept per row (vector.py)."""
        return vector.filter_vector(self, pod, cols)

    def _attachable_volumes(self, pod, csinode, new_pod: bool, result: dict[str, str]) -> None:
        """filterAttachableVolumes: add "driver/handle" -> attach limit key for each volume."""
        for volume in pod.spec.get("volumes") or []:
            name, ephemeral = st.claim_name_for_volume(pod, volume)
            if name is None:
                # An inline volume counts only if it migrated to CSI on this node.
                self._inline_volume(volume, csinode, result)
                continue
            if not name:
                raise _Error("PersistentVolumeClaim had no name")
            pvc = self.handle.objects.pvcs.get(f"{pod.namespace}/{name}")
            if pvc is None:
                if new_pod:
                    raise _NotFound(f"looking up PVC {pod.namespace}/{name}: "
                                    f"{st.not_found('persistentvolumeclaim', name)}")
                # An existing pod's broken claim is not counted.
                continue
            if ephemeral:
                err = st.volume_is_for_pod(pod, pvc)
                if err:
                    raise _Error(err)
            driver, handle = self._csi_driver_info(csinode, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = st.csi_attach_limit_key(driver)

    def _inline_volume(self, volume: dict, csinode, result: dict[str, str]) -> None:
        """checkAttachableInlineVolume."""
        plugin = st.in_tree_plugin_of(volume)
        if not plugin or not is_csi_migration_on(csinode, plugin):
            return
        handle = st.csi_volume_handle(plugin, volume[st.IN_TREE_PLUGINS[plugin][0]] or {}, None)
        if not handle:
            return
        driver = st.csi_driver_of(plugin)
        result[f"{driver}/{handle}"] = st.csi_attach_limit_key(driver)

    def _csi_driver_info(self, csinode, pvc: dict) -> tuple[str, str]:
        """getCSIDriverInfo: the driver and volume handle of the claim's volume."""
        pv_name = st.spec(pvc).get("volumeName") or ""
        pv = self.handle.objects.pvs.get(pv_name) if pv_name else None
        if pv is None:
            # Not bound yet (or the PV is gone): count it by its class's provisioner.
            return self._csi_driver_info_from_class(csinode, pvc)
        csi = st.spec(pv).get("csi")
        if csi is not None:
            return csi.get("driver") or "", csi.get("volumeHandle") or ""
        plugin = st.in_tree_plugin_of(st.spec(pv))
        if not plugin or not is_csi_migration_on(csinode, plugin):
            return "", ""
        source = st.spec(pv)[st.IN_TREE_PLUGINS[plugin][0]] or {}
        return st.csi_driver_of(plugin), st.csi_volume_handle(
            plugin, source, st.meta(pv).get("labels"))

    def _csi_driver_info_from_class(self, csinode, pvc: dict) -> tuple[str, str]:
        class_name = st.claim_class(pvc)
        # Without a class the claim binds immediately, so it must be bound already.
        if not class_name:
            return "", ""
        sc = self.handle.objects.storage_classes.get(class_name)
        if sc is None:
            return "", ""
        handle = f"{self.random_volume_id_prefix}-{st.claim_key(pvc)}"
        provisioner = sc.get("provisioner") or ""
        if provisioner in st.IN_TREE_PLUGINS:
            if not is_csi_migration_on(csinode, provisioner):
                return "", ""
            return st.csi_driver_of(provisioner), handle
        return provisioner, handle

    def events_to_register(self) -> set[str]:
        # CSINode/Add, Pod/Delete and PersistentVolumeClaim/Add.
        return {"CSINodeAdd", "AssignedPodDelete", "PvcAdd"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_csi_limits(_inline_migratable)


def new(args: dict, handle) -> CSILimits:
    return CSILimits(handle)
