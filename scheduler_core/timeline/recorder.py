"""What a timeline run records besides the cycles: the steps applied, every queue move with
the event behind it, and samples of the cluster over virtual time for the charts.

Queue moves are named as kube-scheduler's queue names them (internal/queue/events.go and the
cluster events): PodAdd for a new pod, ScheduleAttemptFailure after a failed attempt,
BackoffComplete, UnschedulableTimeout for the flush, ForceActivate, and the cluster event
(NodeAdd, AssignedPodDelete, ...) that moved a pod out of the unschedulable pool.
"""
from __future__ import annotations

from ..observe import CycleRecorder, Observer
from ..queue import BACKOFF

# Pod events the cycles already tell; the others (evicted, deleted, completed...) are kept.
QUIET_POD_EVENTS = ("bound", "nominated", "waiting")


class _CycleEnd(CycleRecorder):
    per_node = False

    def __init__(self, recorder, index):
        self.recorder, self.index = recorder, index

    def finish(self, outcome, node, message, time):
        self.recorder.cycle_finished(self.index, outcome, time)


class TimelineRecorder(Observer):
    def __init__(self, scheduler, timer=None):
        self.s = scheduler
        self.timer = timer                  # a timings.PluginTimer, when timings are wanted
        self.steps: list[dict] = []
        self.moves: list[dict] = []
        self.pod_events: list[dict] = []
        self.samples: list[dict] = []
        self.timings: list[dict] = []
        self._seen: dict[str, tuple[int, str]] = {}   # uid -> (attempts, queue) last seen
        self._timer_total: dict = {}
        self._node_samples: dict[str, tuple] = {}    # name -> (NodeInfo, generation, entry)

    # --- observer ----------------------------------------------------------------------------
    def begin_cycle(self, index, time, pod, profile):
        return _CycleEnd(self, index)

    def queue_event(self, queue, qpi, time):
        cause = self.s.event_cause or self._infer(qpi)
        self._seen[qpi.pod.uid] = (qpi.attempts, queue)
        self.moves.append({"time": time, "pod": qpi.pod.key, "queue": queue, "event": cause})

    def pod_event(self, event, pod, time, detail=None):
        if event not in QUIET_POD_EVENTS:
            self.pod_events.append({"time": time, "cycle": self.s.cycle_count, "pod": pod.key,
                                    "event": event,
                                    "node": (detail or {}).get("node") or pod.node_name})
        self.sample(time)

    def _node_sample(self, ni) -> dict:
        """A node's entry, shared by the samples while the node is unchanged: a sample at
        5,000 nodes is taken twice a cycle, and a cycle changes one node or a few."""
        kept = self._node_samples.get(ni.name)
        # The NodeInfo itself too: a node deleted and added again starts a new generation count.
        if kept is not None and kept[0] is ni and kept[1] == ni.generation:
            return kept[2]
        entry = {"cpu": [ni.requested.milli_cpu, ni.allocatable.milli_cpu],
                 "memory": [ni.requested.memory, ni.allocatable.memory],
                 "pods": [len(ni.pods), ni.allocatable.allowed_pod_number]}
        self._node_samples[ni.name] = (ni, ni.generation, entry)
        return entry

    def _infer(self, qpi) -> str:
        seen = self._seen.get(qpi.pod.uid)
        if seen is None:
            return "PodAdd"
        attempts, queue = seen
        if qpi.attempts > attempts:
            return "ScheduleAttemptFailure"
        return "BackoffComplete" if queue == BACKOFF else "ForceActivate"

    # --- what the timeline tells it ----------------------------------------------------------
    def step_applied(self, step, time: float, outcome: str) -> None:
        self.steps.append({**step.to_dict(), "time": time, "cycle": self.s.cycle_count,
                           "outcome": outcome})
        self.sample(time)

    def cycle_finished(self, index: int, outcome: str, time: float) -> None:
        self.sample(time)
        if self.timer is None:
            return
        spent = {}
        for key, secs in self.timer.seconds.items():
            delta = secs - self._timer_total.get(key, 0.0)
            if delta > 0:
                spent["/".join(key)] = round(delta * 1e6)   # microseconds
        self._timer_total = dict(self.timer.seconds)
        self.timings.append({"cycle": index, "time": time, "micros": spent})

    def sample(self, time: float) -> None:
        """Requested and allocatable per node, and pending pods, at `time` (last one wins)."""
        nodes = {ni.name: self._node_sample(ni) for ni in self.s.cache.node_infos.values()}
        pending = sum(1 for node in self.s.bindings.values() if not node)
        entry = {"time": time, "pending": pending, "nodes": nodes}
        if self.samples and self.samples[-1]["time"] == time:
            self.samples[-1] = entry
        else:
            self.samples.append(entry)

    def to_json(self) -> dict:
        out = {"steps": self.steps, "podEvents": self.pod_events, "queueMoves": self.moves,
               "samples": self.samples}
        if self.timer is not None:
            out["timings"] = self.timings
        return out
