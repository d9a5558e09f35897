"""OpportunisticBatching (beta, on from v1.35): the previous cycle's ranking reused as a hint.

Mirrors framework/runtime/batch.go (KEP-5598). After PreFilter the pod is signed; when it has
the signature of the pod scheduled in the cycle just before (same profile), that cycle left a
ranking of the other scored nodes, it is at most maxBatchAge old, and the node the previous
pod took now rejects this pod (the pods are "one per node"), the head of that ranking is
popped and handed to the scheduler as a hint. The scheduler filters that one node (as it does
a nominated node) and, when it passes, binds there without scoring: Filter runs on one node,
PreScore and Score not at all. Otherwise the full cycle runs and its ranking is stored for the
next pod.

What the trace shows of it (the cycle's `batch`, written for signed pods only, so that a
profile that signs none prints the contract's cycles unchanged): the hint or why there was none
(Go's batch_cache_flushed reasons), the check on the previous node, and the outcome (Go's
batch_attempt_stats results).
"""
from __future__ import annotations

from collections.abc import Callable

# batch.go's maxBatchAge: 500 ms, here in the run's virtual seconds.
MAX_BATCH_AGE = 0.5

# metrics.go's batch attempt results and cache flush reasons (the labels Go counts them by).
HINT_USED, HINT_NOT_USED, NO_HINT = "hint_used", "hint_not_used", "no_hint"
POD_SKIPPED, POD_FAILED, NODE_MISSING = "pod_skipped", "pod_failed", "node_missing"
NODE_NOT_FULL, EMPTY_LIST, EXPIRED = "node_not_full", "empty_list", "expired"
POD_INCOMPATIBLE, POD_NOT_BATCHABLE = "pod_incompatible", "pod_not_batchable"


class BatchState:
    """batchState: the signature the ranking is for, the ranking left, when it was made."""

    __slots__ = ("signature", "sorted_nodes", "creation_time")

    def __init__(self, signature, sorted_nodes: list[str], creation_time: float):
        self.signature = signature
        self.sorted_nodes = sorted_nodes
        self.creation_time = creation_time


class OpportunisticBatch:
    """One per profile (frameworkImpl.batch). `sign(pod)` -> (signature or None, why not);
    `filter_node(state, pod, node_info)` -> Status is RunFilterPlugins, without nominated pods;
    `get_node(name)` the snapshot's NodeInfo or None."""

    def __init__(self, sign: Callable, filter_node: Callable, get_node: Callable):
        self.sign = sign
        self.filter_node = filter_node
        self.get_node = get_node
        self.state: BatchState | None = None
        self.last_cycle = 0          # lastCycle.cycleCount
        self.last_chosen = ""        # lastCycle.chosenNode
        self.last_succeeded = False  # lastCycle.succeeded
        self.batched_pods = 0        # pods bound to their hint (batchedPods)

    def get_node_hint(self, state, pod, cycle: int, now: float) -> tuple[str, object, dict]:
        """GetNodeHint: (hint or "", signature, the trace entry)."""
        signature, _ = self.sign(pod)
        entry: dict = {"signed": signature is not None}
        reason = self._incompatible(state, pod, signature, cycle, now, entry)
        if reason is not None:
            entry["noHint"] = reason
            return "", signature, entry
        hint = self.state.sorted_nodes.pop(0)
        entry.update(hint=hint, remaining=len(self.state.sorted_nodes))
        return hint, signature, entry

    def _incompatible(self, state, pod, signature, cycle, now, entry) -> str | None:
        """batchStateCompatible, as the reason the state cannot be used (None: it can). A
        state found unusable is kept: only the next StoreScheduleResults replaces it."""
        if self.state is None or not self.state.sorted_nodes:
            return "no_state"
        if cycle != self.last_cycle + 1:
            return POD_SKIPPED       # a pod of another profile, or a failed one, came between
        if not self.last_succeeded:
            return POD_FAILED
        if signature is None or signature != self.state.signature:
            return POD_INCOMPATIBLE
        if now > self.state.creation_time + MAX_BATCH_AGE:
            return EXPIRED
        last = self.get_node(self.last_chosen)
        if last is None:
            return NODE_MISSING
        status = self.filter_node(state, pod, last)
        entry["previousNode"] = {"node": self.last_chosen, **status.to_dict()}
        if not status.is_rejected():
            return NODE_NOT_FULL     # it could go there again: the old ranking says nothing
        return None

    def store_schedule_results(self, signature, hinted: str, chosen: str, other_nodes,
                               cycle: int, now: float, entry: dict) -> None:
        """StoreScheduleResults, after a cycle that found a host. other_nodes: the ranking
        after the host (a sized iterable, read only when kept), or None."""
        self.last_cycle, self.last_chosen, self.last_succeeded = cycle, chosen, True
        if hinted and hinted == chosen:
            self.batched_pods += 1
            entry["result"] = HINT_USED
            return
        entry["result"] = HINT_NOT_USED if hinted else NO_HINT
        if signature is not None and other_nodes:
            self.state = BatchState(signature, list(other_nodes), now)
            entry["stored"] = len(self.state.sorted_nodes)
            return
        entry["flushed"] = POD_NOT_BATCHABLE if other_nodes else EMPTY_LIST
        self.state = None
