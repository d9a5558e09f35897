"""A bounded per-cycle summary for live streams: never per-node detail for every node.

Each cycle becomes one small dict: the pod, outcome, node, message, per extension point the
plugins' codes, the filter rejections as a histogram, and the top few total scores.
"""
from __future__ import annotations

import heapq
from collections import Counter
from operator import attrgetter, neg

import numpy as np

from .observe import CycleRecorder, Observer, TraceObserver, TraceRecorder
from .tracecols import int_values

_NAME = attrgetter("name")


def _plain(values):
    """A numpy array's values as Python's (the engine's columns path hands arrays)."""
    return values.tolist() if hasattr(values, "tolist") else values

TOP_SCORES = 5
# The points of the contract's CYCLE that are lists of plugin calls.
LIST_POINTS = ("preFilter", "postFilter", "preScore", "reserve", "permit", "preBind", "bind",
               "postBind", "unreserve")


class SummaryRecorder(CycleRecorder):
    __slots__ = ("data", "_rejected")

    def __init__(self, index, time, pod, profile):
        self.data = {"index": index, "time": time, "pod": pod.key, "profile": profile,
                     "outcome": None, "node": None, "message": "", "points": {},
                     "filter": {"feasible": 0, "rejected": {}}, "topScores": []}

    def point(self, point, plugin, status, node=None, timeout=None, detail=None):
        entry = {"plugin": plugin, "code": status.code.label}
        if status.reasons:
            entry["reasons"] = status.reasons[:3]
        if timeout is not None:
            entry["timeout"] = timeout
        self.data["points"].setdefault(point, []).append(entry)

    def queue_points(self, queue_sort, pre_enqueue):
        self.data["queueSort"] = queue_sort
        self.data["preEnqueue"] = pre_enqueue

    def filter(self, node_name, trail):
        plugin, status = trail[-1]
        summary = self.data["filter"]
        if status is None:
            summary["feasible"] += 1
        else:
            summary["rejected"][plugin] = summary["rejected"].get(plugin, 0) + 1

    def filter_many(self, plugins, names, rows, stops, statuses):
        # Counted, not walked node by node as the default does (one trail per node): the
        # rejected nodes are those stopped before the last plugin (TraceRecorder's reading).
        summary = self.data["filter"]
        summary["feasible"] += len(rows)
        if not statuses:
            return
        stops = np.asarray(stops)
        stopped = Counter(stops[stops < len(plugins)].tolist())
        summary["feasible"] -= stopped.total()
        for stop, count in stopped.items():
            plugin = plugins[stop]
            summary["rejected"][plugin] = summary["rejected"].get(plugin, 0) + count

    def extender_filter(self, node_name, plugin, status, detail=None):
        if status.is_rejected():
            summary = self.data["filter"]
            # The node was counted feasible when it passed the Filter plugins (if any ran).
            summary["feasible"] = max(0, summary["feasible"] - 1)
            summary["rejected"][plugin] = summary["rejected"].get(plugin, 0) + 1

    def total_scores(self, nodes, totals):
        # The highest totals first, ties by name (plain ints: the summary is sent as JSON).
        top = heapq.nsmallest(TOP_SCORES, zip(map(neg, _plain(totals)), map(_NAME, nodes)))
        self.data["topScores"] = [{"node": n, "score": -t} for t, n in top]

    def preemption(self, nominated_node, victims, detail):
        self.data["preemption"] = {"nominatedNode": nominated_node, "victims": victims[:20]}

    def nominated(self, node):
        self.data["nominatedNodeName"] = node

    def batch(self, entry):
        self.data["batch"] = entry

    def pod_group(self, entry):
        self.data["podGroup"] = entry

    def finish(self, outcome, node, message, time):
        self.data.update(outcome=outcome, node=node, message=message[:2000], endTime=time)


def summarize(trace: dict, end_time: float | None = None) -> dict:
    """The summary a SummaryRecorder would have made of a cycle, from its contract trace.

    For a cycle that finished after its chunk was stored (a pod that waited on Permit): the
    playground sends this once the wait is over.
    """
    points: dict[str, list] = {}
    for point in LIST_POINTS:
        for e in trace.get(point) or []:
            entry = {"plugin": e["plugin"], "code": e["code"]}
            if e.get("reasons"):
                entry["reasons"] = list(e["reasons"][:3])   # (the trace keeps them as a tuple)
            if e.get("timeout") is not None:
                entry["timeout"] = e["timeout"]
            points.setdefault(point, []).append(entry)
    feasible, rejected = 0, {}
    for trail in (trace.get("filter") or {}).values():
        last = trail[-1] if trail else None
        if last is None or last["code"] == "Success":
            feasible += 1
        else:
            rejected[last["plugin"]] = rejected.get(last["plugin"], 0) + 1
    ranked = sorted((trace.get("totalScore") or {}).items(), key=lambda t: (-t[1], t[0]))
    out = {"index": trace["index"], "time": trace["time"], "pod": trace["pod"],
           "profile": trace.get("profile"), "outcome": trace.get("outcome"),
           "node": trace.get("node"), "message": (trace.get("message") or "")[:2000],
           "points": points, "filter": {"feasible": feasible, "rejected": rejected},
           "topScores": [{"node": n, "score": s} for n, s in ranked[:TOP_SCORES]]}
    pre = trace.get("preemption")
    if pre:
        out["preemption"] = {"nominatedNode": pre.get("nominatedNode"),
                             "victims": list(pre.get("victims") or [])[:20]}
    if trace.get("nominatedNodeName"):
        out["nominatedNodeName"] = trace["nominatedNodeName"]
    if trace.get("batch"):
        out["batch"] = trace["batch"]
    if end_time is not None:
        out["endTime"] = end_time
    return out


class SummaryObserver(Observer):
    """Calls emit(kind, payload) for each finished cycle and each queue or pod event."""

    def __init__(self, emit):
        self.emit = emit

    def begin_cycle(self, index, time, pod, profile):
        return _EmittingRecorder(index, time, pod, profile, self.emit)

    def queue_event(self, queue, qpi, time):
        self.emit("queue", {"pod": qpi.pod.key, "queue": queue, "time": time,
                            "reason": qpi.message[:500] if qpi.message else "",
                            "move": qpi.last_move})

    def pod_event(self, event, pod, time, detail=None):
        self.emit("pod", {"pod": pod.key, "event": event, "time": time, **(detail or {})})


class _EmittingRecorder(SummaryRecorder):
    __slots__ = ("_emit",)

    def __init__(self, index, time, pod, profile, emit):
        super().__init__(index, time, pod, profile)
        self._emit = emit

    def finish(self, outcome, node, message, time):
        super().finish(outcome, node, message, time)
        self._emit("cycle", self.data)


class TracedSummaryObserver(TraceObserver):
    """The trace and the live stream at once, one recorder per cycle (the web path's chunks):
    each cycle's summary is read from its trace when it finishes, equal to what a
    SummaryObserver beside the trace emits, without a second recorder taking every call and
    a heap over every scored node for the top scores (at 5,000 nodes that second recorder
    cost half as much as the trace)."""

    def __init__(self, emit, tables=None):
        super().__init__(tables)
        self.emit = emit

    def begin_cycle(self, index, time, pod, profile):
        rec = _SummarizingRecorder(index, time, pod, profile, self.tables, self.emit)
        self.cycles.append(rec)
        return rec

    queue_event = SummaryObserver.queue_event
    pod_event = SummaryObserver.pod_event


class _SummarizingRecorder(TraceRecorder):
    """A TraceRecorder that emits its cycle's summary (SummaryRecorder's dict) on finish. It
    keeps beside the trace what the trace shortens or leaves out: QueueSort's whole entry, the
    extenders' rejections in call order, and the summary's own preemption, nominated node and
    batch entries in call order."""

    def __init__(self, index, time, pod, profile, tables, emit):
        super().__init__(index, time, pod, profile, tables)
        self._emit = emit
        self._queue: dict = {}
        self._extenders: list[str] = []
        self._tail: dict = {}

    def queue_points(self, queue_sort, pre_enqueue):
        super().queue_points(queue_sort, pre_enqueue)
        self._queue = {"queueSort": queue_sort, "preEnqueue": pre_enqueue}

    def extender_filter(self, node_name, plugin, status, detail=None):
        super().extender_filter(node_name, plugin, status, detail)
        if status.is_rejected():
            self._extenders.append(plugin)

    def preemption(self, nominated_node, victims, detail):
        super().preemption(nominated_node, victims, detail)
        self._tail["preemption"] = {"nominatedNode": nominated_node, "victims": victims[:20]}

    def nominated(self, node):
        super().nominated(node)
        self._tail["nominatedNodeName"] = node

    def batch(self, entry):
        super().batch(entry)
        self._tail["batch"] = entry

    def finish(self, outcome, node, message, time):
        super().finish(outcome, node, message, time)
        self._emit("cycle", self.summary(time))

    def summary(self, end_time: float) -> dict:
        data = self._data
        return {"index": data["index"], "time": data["time"], "pod": data["pod"],
                "profile": data["profile"], "outcome": data["outcome"], "node": data["node"],
                "message": data["message"][:2000], "points": _points(data),
                "filter": self._filter_counts(), "topScores": self._top_scores(),
                **self._queue, **self._tail, "endTime": end_time}

    def _filter_counts(self) -> dict:
        """Feasible nodes and rejections per plugin, counted per shape of trail (a node
        filtered twice counts twice, as in SummaryRecorder), plugins in first-rejection order."""
        feasible, rejected = 0, {}
        shapes = int_values(self._filter.shapes)
        if shapes is not None and len(shapes):
            counts = np.bincount(shapes)
            used = np.flatnonzero(counts).tolist()
            if len(used) > 1:   # in order of first use
                used.sort(key=lambda sid: int(np.argmax(shapes == sid)))
            for sid in used:
                last = self.tables.shapes[sid][1]
                if last is None:
                    feasible += int(counts[sid])
                else:
                    rejected[last[0]] = rejected.get(last[0], 0) + int(counts[sid])
        for plugin in self._extenders:   # after the Filter plugins, as the extenders run
            feasible = max(0, feasible - 1)
            rejected[plugin] = rejected.get(plugin, 0) + 1
        return {"feasible": feasible, "rejected": rejected}

    def _top_scores(self) -> list[dict]:
        """SummaryRecorder.total_scores' top, from the columns: the highest totals, ties by
        name (the names' ranks, Tables.ranks), without a Python step per node."""
        if self._totals is None:
            return []
        names, ids, totals = self.tables.names, self._totals.ids, self._totals.totals
        values = int_values(totals)
        if values is None or len(values) <= TOP_SCORES:
            top = heapq.nsmallest(TOP_SCORES, zip(map(neg, totals), (names[i] for i in ids)))
            return [{"node": n, "score": -t} for t, n in top]
        ranks = self.tables.ranks()[np.frombuffer(ids, np.int32)]
        top = np.lexsort((ranks, -values))[:TOP_SCORES]   # highest first, then by name
        return [{"node": names[ids[i]], "score": int(values[i])} for i in top.tolist()]


def _points(data: dict) -> dict:
    """SummaryRecorder's `points` from the trace's entries: reasons cut to three."""
    points = {}
    for point in LIST_POINTS:
        entries = data[point]
        if entries:
            points[point] = [_point(e) for e in entries]
    return points


def _point(e: dict) -> dict:
    entry = {"plugin": e["plugin"], "code": e["code"]}
    if e["reasons"]:
        entry["reasons"] = list(e["reasons"][:3])   # (the trace keeps them as a tuple)
    if "timeout" in e:
        entry["timeout"] = e["timeout"]
    return entry
