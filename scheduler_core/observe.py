"""Observers receive every decision as it happens; the JSON trace is one of them.

The scheduler asks the observer for a recorder at the start of each cycle and passes it to the
runtime; with no observer the recorder is None and nothing is recorded.
"""
from __future__ import annotations

import json


class CycleRecorder:
    """Decisions of one scheduling attempt. Subclasses override what they need.

    A recorder with `per_node` False is never shown the Filter and Score points, so the
    scheduler does not build their per-node trails for it.
    """

    per_node = True

    def point(self, point: str, plugin: str, status, node: str | None = None,
              timeout: float | None = None, detail: dict | None = None) -> None:
        pass

    def filter(self, node_name: str, trail: list) -> None:
        """trail: [(plugin, Status or None for Success)], stopping at the first rejection."""

    def extender_filter(self, node_name: str, plugin: str, status,
                        detail: dict | None = None) -> None:
        """An extender's verdict on a node that passed the Filter plugins: after its trail."""

    def score(self, plugin: str, nodes, raw: list[int], normalized: list[int], weight: int,
              detail: dict | None = None) -> None:
        pass

    def total_scores(self, nodes, totals: list[int]) -> None:
        pass

    def preemption(self, nominated_node: str, victims: list[str], detail: dict | None) -> None:
        pass

    def finish(self, outcome: str, node: str | None, message: str, time: float) -> None:
        pass


class Observer:
    def begin_cycle(self, index: int, time: float, pod, profile: str) -> CycleRecorder | None:
        return None

    def queue_event(self, queue: str, qpi, time: float) -> None:
        pass

    def pod_event(self, event: str, pod, time: float, detail: dict | None = None) -> None:
        """bound, preempted, deleted, nominated."""


class MultiObserver(Observer):
    """Several observers at once (the trace and the live stream)."""

    def __init__(self, observers):
        self.observers = list(observers)

    def begin_cycle(self, index, time, pod, profile):
        recs = [o.begin_cycle(index, time, pod, profile) for o in self.observers]
        recs = [r for r in recs if r is not None]
        return _MultiRecorder(recs) if recs else None

    def queue_event(self, queue, qpi, time):
        for o in self.observers:
            o.queue_event(queue, qpi, time)

    def pod_event(self, event, pod, time, detail=None):
        for o in self.observers:
            o.pod_event(event, pod, time, detail)


class _MultiRecorder(CycleRecorder):
    def __init__(self, recs):
        self.recs = recs
        self.per_node = any(r.per_node for r in recs)

    def __getattribute__(self, name):
        if name in ("recs", "per_node") or name.startswith("__"):
            return object.__getattribute__(self, name)
        recs = object.__getattribute__(self, "recs")

        def fan_out(*args, **kwargs):
            for r in recs:
                getattr(r, name)(*args, **kwargs)
        return fan_out


def _entry(plugin, status, node=None, timeout=None, detail=None) -> dict:
    entry = status.to_dict(plugin)
    if node is not None:
        entry["node"] = node
    if timeout is not None:
        entry["timeout"] = timeout
    if detail:
        entry["detail"] = detail
    return entry


_SUCCESS_ENTRIES: dict[str, dict] = {}


def _success(plugin: str) -> dict:
    """One shared (never mutated) Success entry per plugin: most filter results are these."""
    entry = _SUCCESS_ENTRIES.get(plugin)
    if entry is None:
        entry = _SUCCESS_ENTRIES[plugin] = {"plugin": plugin, "code": "Success", "reasons": []}
    return entry


class TraceRecorder(CycleRecorder):
    """One cycle in the contract's JSON form.

    A finished cycle is kept as compact JSON text, about a tenth of its size as dicts, so a
    long run at thousands of nodes fits in memory; `data` decodes it again on demand.
    """

    def __init__(self, index, time, pod, profile):
        self._frozen: str | None = None
        self._data = {
            "index": index, "time": time, "pod": pod.key, "profile": profile,
            "outcome": None, "node": None, "message": "",
            "preFilter": [], "filter": {}, "postFilter": [], "preemption": None,
            "preScore": [], "score": {}, "totalScore": {},
            "reserve": [], "permit": [], "preBind": [], "bind": [], "postBind": [],
            "unreserve": [],
        }

    @property
    def data(self) -> dict:
        """The cycle as a dict (a fresh copy once the cycle has finished)."""
        return self._data if self._frozen is None else json.loads(self._frozen)

    def _live(self) -> dict:
        """The dict to record into; a late entry thaws a finished cycle."""
        if self._frozen is not None:
            self._data, self._frozen = json.loads(self._frozen), None
        return self._data

    def point(self, point, plugin, status, node=None, timeout=None, detail=None):
        self._live()[point].append(_entry(plugin, status, node, timeout, detail))

    def filter(self, node_name, trail):
        self._live()["filter"][node_name] = [
            _success(p) if s is None else s.to_dict(p) for p, s in trail]

    def extender_filter(self, node_name, plugin, status, detail=None):
        self._live()["filter"].setdefault(node_name, []).append(
            _entry(plugin, status, detail=detail))

    def score(self, plugin, nodes, raw, normalized, weight, detail=None):
        extra = {"detail": detail} if detail else {}
        self._live()["score"][plugin] = {
            ni.name: {"raw": r, "normalized": n, "weighted": n * weight, **extra}
            for ni, r, n in zip(nodes, raw, normalized)}

    def total_scores(self, nodes, totals):
        self._live()["totalScore"] = {ni.name: t for ni, t in zip(nodes, totals)}

    def preemption(self, nominated_node, victims, detail):
        entry = {"nominatedNode": nominated_node, "victims": list(victims)}
        if detail:
            entry.update(detail)
        self._live()["preemption"] = entry

    def finish(self, outcome, node, message, time):
        self._live().update(outcome=outcome, node=node, message=message)
        self._frozen, self._data = json.dumps(self._data, separators=(",", ":")), None

    def pretty(self, indent: int) -> str:
        """The cycle as json.dumps(..., indent=2) prints it `indent` spaces deep in a document."""
        text = json.dumps(self.data, indent=2)
        return text.replace("\n", "\n" + " " * indent)


class TraceObserver(Observer):
    """Collects the contract's `cycles` list."""

    def __init__(self):
        self.cycles: list[TraceRecorder] = []

    def begin_cycle(self, index, time, pod, profile):
        rec = TraceRecorder(index, time, pod, profile)
        self.cycles.append(rec)
        return rec

    def to_list(self) -> list[dict]:
        return [c.data for c in self.cycles]

    def write_json(self, out, head: dict) -> None:
        """json.dump({**head, "cycles": [...]}, indent=2) written one cycle at a time."""
        text = json.dumps({**head, "cycles": []}, indent=2)
        if not self.cycles:
            out.write(text)
            return
        out.write(text[: text.rindex("[]")] + "[")
        for i, rec in enumerate(self.cycles):
            out.write(("," if i else "") + "\n    " + rec.pretty(4))
        out.write("\n  ]\n}")


class OutcomeRecorder(CycleRecorder):
    """One cycle as `simulate --output summary` shows it: no per-point, no per-node detail."""

    per_node = False

    def __init__(self, index, time, pod, profile):
        self.data = {"index": index, "time": time, "pod": pod.key, "outcome": None,
                     "node": None, "message": ""}

    def finish(self, outcome, node, message, time):
        self.data.update(outcome=outcome, node=node, message=message)


class OutcomeObserver(Observer):
    """Collects the summary's reduced `cycles` list."""

    def __init__(self):
        self.cycles: list[OutcomeRecorder] = []

    def begin_cycle(self, index, time, pod, profile):
        rec = OutcomeRecorder(index, time, pod, profile)
        self.cycles.append(rec)
        return rec

    def to_list(self) -> list[dict]:
        return [c.data for c in self.cycles]
