"""The run's release and feature gates as DynamicResources reads them, once, when the plugin
is built (`handle.features`: scheduler_core.features.FeatureGates)."""
from __future__ import annotations

from .allocator import Features

CEL_ERROR_HINTS_SINCE = (1, 37)   # cel.EnhanceRuntimeError, PR #136709


def release_at_least(handle, version: tuple[int, int]) -> bool:
    return (1, handle.features.minor) >= version


def enabled(handle, gate: str) -> bool:
    return handle.features.enabled(gate)


def allocator_features(handle) -> Features:
    """The allocator's features from the gates (structured.Features in the plugin's New)."""
    return Features(
        admin_access=enabled(handle, "DRAAdminAccess"),
        prioritized_list=enabled(handle, "DRAPrioritizedList"),
        partitionable_devices=enabled(handle, "DRAPartitionableDevices"),
        device_taints=enabled(handle, "DRADeviceTaints"),
        binding_conditions=enabled(handle, "DRADeviceBindingConditions")
        and enabled(handle, "DRAResourceClaimDeviceStatus"),
        consumable_capacity=enabled(handle, "DRAConsumableCapacity"),
        list_type_attributes=enabled(handle, "DRAListTypeAttributes"),
        cel_error_hints=release_at_least(handle, CEL_ERROR_HINTS_SINCE),
    )
