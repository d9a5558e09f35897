"""Taint-based eviction (pkg/controller/tainteviction): NoExecute taints remove pods.

A pod that does not tolerate a node's NoExecute taint is deleted at once. One that tolerates
every such taint stays; if some of those tolerations carry tolerationSeconds, it is deleted
when the shortest of them has passed since the taint was added (getMinTolerationTime), unless
the taint is gone by then. The DefaultTolerationSeconds admission plugin gives every pod 300s
tolerations for not-ready and unreachable, which is why pods leave a failed node five
minutes after it went NotReady.
"""
from __future__ import annotations

from ..taints import toleration_tolerates_taint

NO_EXECUTE = "NoExecute"
REASON = "evicted by taint manager"


def _no_execute_taints(node: dict) -> list[dict]:
    return [t for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") == NO_EXECUTE]


def eviction_delay(tolerations: list[dict], taints: list[dict]) -> float | None:
    """0 when a taint is not tolerated, the shortest tolerationSeconds of the tolerations
    used, or None when the pod may stay forever."""
    used = []
    for taint in taints:
        matching = [t for t in tolerations if toleration_tolerates_taint(t, taint)]
        if not matching:
            return 0.0
        used += matching
    seconds = [float(t["tolerationSeconds"]) for t in used
               if t.get("tolerationSeconds") is not None]
    if not seconds:
        return None
    return max(0.0, min(seconds))


class TaintManager:
    def __init__(self, scheduler, informer):
        self.s = scheduler
        self.informer = informer
        self.added: dict[tuple[str, str], float] = {}   # (node, taint key) -> time added

    def node_changed(self, node: dict) -> None:
        name = node["metadata"]["name"]
        taints = _no_execute_taints(node)
        keys = {(name, t.get("key", "")) for t in taints}
        self.added = {k: v for k, v in self.added.items() if k[0] != name or k in keys}
        for key in keys:
            self.added.setdefault(key, self.s.clock)
        for pi in [p for p in self.informer.pods.values()
                   if p.node_name == name and p.uid in self.s.cache.pods]:
            self.pod_placed(pi)

    def pod_placed(self, pi) -> None:
        node = self.informer.node(pi.node_name)
        taints = _no_execute_taints(node) if node is not None else []
        if not taints or pi.terminating:
            return
        delay = eviction_delay(pi.tolerations, taints)
        if delay is None:
            return
        since = min(self.added.get((pi.node_name, t.get("key", "")), self.s.clock)
                    for t in taints)
        when = max(self.s.clock, since + delay)
        self.s.at(when, lambda: self._evict_if_still_due(pi))

    def _evict_if_still_due(self, pi) -> None:
        """The taint may have gone, or the pod moved on, since the eviction was planned."""
        node = self.informer.node(pi.node_name)
        if node is None or pi.terminating or pi.uid not in self.s.cache.pods:
            return
        taints = _no_execute_taints(node)
        delay = eviction_delay(pi.tolerations, taints) if taints else None
        if delay is None:
            return
        since = min(self.added.get((pi.node_name, t.get("key", "")), self.s.clock)
                    for t in taints)
        if since + delay <= self.s.clock:
            self.informer.delete_pod(pi, REASON)
