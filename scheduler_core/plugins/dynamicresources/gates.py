"""The run's release and feature gates as DynamicResources reads them, once, when the plugin
is built (the handle's `features`: scheduler_core.features.FeatureGates)."""
from __future__ import annotations

from .allocator import Features


def _features(handle):
    # A handle without `features` (older callers) follows the newest release's defaults.
    return getattr(handle, "features", None)


def release_at_least(handle, version: tuple[int, int]) -> bool:
    features = _features(handle)
    return features is None or (1, features.minor) >= version


def enabled(handle, gate: str) -> bool:
    features = _features(handle)
    return True if features is None else features.enabled(gate)


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
    )
