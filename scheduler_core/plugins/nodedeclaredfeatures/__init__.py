"""NodeDeclaredFeatures: keep a pod off nodes that do not declare the features it needs
(framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures.go; alpha v1.35, beta and on by
default v1.36, GA v1.37, in the default profile while its gate is on).

PreFilter infers the pod's requirements from its spec (component-helpers'
nodedeclaredfeatures InferForPodScheduling over the release's feature registry) and skips
when there is none; Filter rejects, UnschedulableAndUnresolvable, a node whose
status.declaredFeatures lacks one of them. With the gate off the plugin does nothing (PreFilter
Skip, Filter Success), as Go's New returns an empty plugin then.
"""
from __future__ import annotations

from ...framework.cycle_state import CycleState
from ...framework.interfaces import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from ...framework.status import Status
from ...framework.types import NodeInfo, PodInfo
from .. import names
from .registry import infer_for_pod_scheduling, registry_at

NAME = names.NODE_DECLARED_FEATURES
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"


def declared_features(node: dict | None) -> list:
    return list(((node or {}).get("status") or {}).get("declaredFeatures") or [])


class NodeDeclaredFeatures(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    NAME = NAME
    NODE_ONLY = True

    def __init__(self, enabled: bool, minor: int, registry=()):
        self.enabled = enabled
        self.minor = minor            # the scheduler's own version, as Go's version.Get()
        self.registry = registry      # the declared features this release knows

    def _requirements(self, pod: PodInfo) -> set[str]:
        return infer_for_pod_scheduling(pod.obj.get("spec") or {}, self.minor, self.registry)

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes):
        if not self.enabled:
            return None, Status.skip()
        reqs = self._requirements(pod)
        if not reqs:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, frozenset(reqs))
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        reqs = state.get(PRE_FILTER_STATE_KEY)
        if reqs is None:
            return Status.as_error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: '
                                   f'not found')
        if not reqs <= set(declared_features(node_info.node)):
            return Status.unresolvable(ERR_REASON_UNSATISFIED_REQUIREMENTS)
        return None

    # EnqueueExtensions ------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        return {"NodeAdd", "NodeUpdate", "UnscheduledPodUpdate"} if self.enabled else set()

    def queueing_hints(self) -> dict:
        if not self.enabled:
            return {}
        return {"NodeAdd": is_schedulable_after_node_change,
                "NodeUpdate": is_schedulable_after_node_change,
                "UnscheduledPodUpdate": self.is_schedulable_after_target_pod_update}

    def is_schedulable_after_target_pod_update(self, pod, old_pod, new_pod) -> str:
        """Queue when the pod's own requirements changed."""
        if new_pod.uid != pod.uid:
            return QUEUE_SKIP
        same = self._requirements(old_pod) == self._requirements(new_pod)
        return QUEUE_SKIP if same else QUEUE


def is_schedulable_after_node_change(pod, old_node, new_node) -> str:
    """Queue on a new node, or when a node's declared features changed."""
    if old_node is not None and declared_features(old_node) == declared_features(new_node):
        return QUEUE_SKIP
    return QUEUE


GATE_OFF_WARNING = ("profile plugin NodeDeclaredFeatures: its feature gate is off in "
                    "v{release}, so kube-scheduler builds it disabled and it does nothing "
                    "(--feature-gates NodeDeclaredFeatures=true turns it on)")


def new(args: dict, handle) -> NodeDeclaredFeatures:
    features = handle.features
    enabled = features.enabled("NodeDeclaredFeatures")
    if not enabled:   # configured by hand: the default profile leaves it out then
        handle.warnings.append(GATE_OFF_WARNING.format(release=features.release))
    return NodeDeclaredFeatures(enabled, features.minor, registry_at(features.minor))
