"""The declared features a pod needs to be scheduled (component-helpers/nodedeclaredfeatures:
Framework.InferForPodScheduling over features/registry.go's AllFeatures).

Each feature says whether a pod spec needs it (InferForScheduling) and the last kube version
that still needs it declared (MaxVersion; None: no limit). The features that only matter to
in-place resizes (GuaranteedQoSPodCPUResize, PodLevelResourcesResize) never infer at
scheduling time; they are listed so the registry reads as Go's does.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# v1.ContainerRestartRuleActionRestartAllContainers
RESTART_ALL_CONTAINERS = "RestartAllContainers"


@dataclass(frozen=True)
class DeclaredFeature:
    name: str
    infer_for_scheduling: Callable[[dict], bool]
    since_minor: int                 # the first release whose registry has it
    max_minor: int | None = None     # MaxVersion: newer targets do not require it


def _never(spec: dict) -> bool:
    return False


def _restarts_all_containers(spec: dict) -> bool:
    """restart_all_containers.go: a container or init container with a restartPolicyRules
    action RestartAllContainers."""
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            for rule in (container or {}).get("restartPolicyRules") or []:
                if (rule or {}).get("action") == RESTART_ALL_CONTAINERS:
                    return True
    return False


REGISTRY = (
    DeclaredFeature("GuaranteedQoSPodCPUResize", _never, 35),
    DeclaredFeature("PodLevelResourcesResize", _never, 35),
    DeclaredFeature("RestartAllContainersOnContainerExits", _restarts_all_containers, 35),
)


def registry_at(minor: int) -> tuple[DeclaredFeature, ...]:
    """AllFeatures as the release 1.<minor> has it."""
    return tuple(f for f in REGISTRY if f.since_minor <= minor)


def infer_for_pod_scheduling(spec: dict, minor: int, registry) -> set[str]:
    """The feature names the pod needs on its node, for a scheduler of release 1.<minor>:
    a feature whose MaxVersion is older than the scheduler is no longer required."""
    return {f.name for f in registry
            if (f.max_minor is None or minor <= f.max_minor) and f.infer_for_scheduling(spec)}
