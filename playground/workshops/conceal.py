"""Hide the outcome of an asked cycle from attendees until the trainer reveals it.

A question at a point of cycle c hides that point and what follows it in c (verdicts, scores,
the outcome), every later cycle, and whatever gives the outcome away meanwhile: the counts
of bound and pending pods, queue moves, pod events and, once c has run, the engine state.
What comes before the point stays visible, so an attendee can reason: at Score they see
Filter's verdicts, at PostFilter which nodes Filter rejected and why.
"""

from __future__ import annotations

# The trace keys of an asked cycle an attendee still sees, per question point.
VISIBLE_KEYS = {
    "Filter": ("index", "time", "pod", "profile", "preFilter"),
    "Score": ("index", "time", "pod", "profile", "preFilter", "filter", "preScore"),
    "PostFilter": ("index", "time", "pod", "profile", "preFilter", "filter"),
}
SUMMARY_KEYS = ("index", "time", "pod", "profile")


class Concealer:
    """What to hide while a question on `index` at `point` is open (None: nothing open)."""

    def __init__(self, question: dict | None = None):
        self.index = question["cycle_index"] if question else None
        self.point = question["point"] if question else None

    @property
    def key(self) -> tuple:
        """Equal for concealers that hide the same things."""
        return (self.index, self.point)

    @property
    def active(self) -> bool:
        return self.index is not None

    def _hides(self, index) -> bool:
        return self.active and isinstance(index, int) and index >= self.index

    def summary(self, cycle: dict) -> dict:
        if not self._hides(cycle.get("index")):
            return cycle
        return {k: cycle[k] for k in SUMMARY_KEYS if k in cycle} | {"hidden": True}

    def events(self, events: list[dict]) -> list[dict]:
        if not self.active:
            return events
        out = []
        for event in events:
            kind = event.get("kind")
            if kind == "cycle":
                out.append({"kind": "cycle", **self.summary(event)})
            elif kind == "progress":
                out.append({k: v for k, v in event.items() if k not in ("podsBound", "queues")}
                           | {"hidden": True})
        return out

    def snapshot(self, snap: dict) -> dict:
        if not self.active:
            return snap
        run = {**snap["run"], "pods_bound": None, "hidden": True}
        out = {**snap, "run": run, "cycles": [self.summary(c) for c in snap["cycles"]]}
        if run["cycle_count"] > self.index:
            out["state"], out["stateHidden"] = None, True
        return out

    def trace(self, trace: dict) -> dict:
        index = trace.get("index")
        if not self._hides(index):
            return trace
        if index > self.index:
            return {k: trace[k] for k in SUMMARY_KEYS if k in trace} | {"hidden": True}
        out = {k: trace[k] for k in VISIBLE_KEYS[self.point] if k in trace}
        if self.point == "Filter":
            out["nodes"] = list(trace.get("filter") or {})
        return out | {"hidden": True, "hiddenFrom": self.point}
