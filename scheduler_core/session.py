"""A run that can be stepped, inspected and rebuilt: what the Celery tasks drive.

A run is fully determined by its documents, its configuration and its seed, so a worker that
lost its in-memory scheduler rebuilds it by replaying the cycles already done, unobserved.
"""
from __future__ import annotations

from itertools import islice

from .build import build_scheduler
from .features import DEFAULT_GATES, FeatureGates
from .loader import load_documents
from .observe import MultiObserver, Observer
from .queue import ACTIVE, BACKOFF, GATED, UNSCHEDULABLE
from .scheduler import Scheduler


class RunSession:
    def __init__(self, sources: list[tuple[str, list]], config: dict | None, seed: int = 0,
                 out_of_tree: dict | None = None, record: bool = False, checked: bool = False,
                 features: FeatureGates = DEFAULT_GATES):
        """record: keep the timeline recorder (steps, samples, plugin timings) observing.
        checked: the documents were validated when stored (load_documents' `checked`).
        features: the kube-scheduler release and gates the run follows."""
        cluster = load_documents(sources, seed, checked=checked, features=features)
        for note in features.notes:   # as simulate's load_scheduler: the gates' warnings
            cluster.warnings.append(note)
        self.scheduler = build_scheduler(cluster, config, seed=seed, out_of_tree=out_of_tree,
                                         record=record)
        self.record = record
        self.finished = False

    @property
    def cycles(self) -> int:
        return self.scheduler.cycle_count

    def replay(self, cycles: int) -> None:
        """Bring a fresh session to where a run was, without observing."""
        self.advance(cycles, observer=None)

    def advance(self, cycles: int | None, observer: Observer | None = None) -> int:
        """Run up to `cycles` scheduling cycles (None: to the end); returns how many ran."""
        sched = self.scheduler
        life = sched.life
        if self.record:
            observer = MultiObserver([o for o in (observer, life.recorder) if o is not None])
        sched.set_observer(observer)
        done = 0
        while cycles is None or done < cycles:
            if life is not None:
                life.apply_due_actions()
            if not sched.step():
                self.finished = True
                break
            done += 1
        if life is not None:
            life.apply_due_actions()
        sched.set_observer(None)
        return done

    def state(self, max_nodes: int | None = None) -> dict:
        """Queues, waiting pods and node usage: what a client joining late needs first."""
        s = self.scheduler
        return {
            "time": s.clock,
            "cycles": s.cycle_count,
            "finished": self.finished,
            "release": s.features.release,
            "warnings": s.warnings.to_list(),
            "queues": queue_state(s),
            "nodes": [node_summary(ni) for ni in islice(s.cache.node_infos.values(), max_nodes)],
            "bindings": dict(s.bindings),
        }


def queue_state(s: Scheduler) -> dict:
    q, now = s.queue, s.clock
    entries = {ACTIVE: [], BACKOFF: [], UNSCHEDULABLE: [], GATED: [], "waitingOnPermit": []}
    for qpi in sorted(q.active):
        entries[ACTIVE].append(_pod_entry(qpi))
    for qpi in sorted(q.backoff.values(), key=q.backoff_release):
        entries[BACKOFF].append(_pod_entry(qpi, remaining=round(q.backoff_release(qpi) - now, 3)))
    for qpi in q.unschedulable.values():
        entries[qpi.queue].append(_pod_entry(qpi, reason=qpi.message, plugin=qpi.gated_by or
                                             ",".join(sorted(qpi.unschedulable_plugins))))
    for wp in s.waiting.values():
        entries["waitingOnPermit"].append({
            "pod": wp.pod.key, "node": wp.binding.host,
            "plugins": {p: round(t - now, 3) for p, t in wp.deadlines.items()},
            **({"nominatedNode": wp.pod.nominated_node_name}
               if wp.pod.nominated_node_name else {})})
    return entries


def _pod_entry(qpi, **extra) -> dict:
    entry = {"pod": qpi.pod.key, "priority": qpi.pod.priority, "attempts": qpi.attempts}
    if qpi.pod.nominated_node_name:
        entry["nominatedNode"] = qpi.pod.nominated_node_name
    entry.update({k: v for k, v in extra.items() if v not in (None, "")})
    return entry


def node_usage(ni) -> dict:
    """[requested, allocatable] per resource (cpu in millicores), and [pods, allowed pods]."""
    alloc, req = ni.allocatable, ni.requested
    usage = {"cpu": [req.milli_cpu, alloc.milli_cpu], "memory": [req.memory, alloc.memory],
             "pods": [len(ni.pods), alloc.allowed_pod_number]}
    for name, value in alloc.scalar.items():
        usage[name] = [req.scalar.get(name, 0), value]
    return usage


def node_summary(ni) -> dict:
    return {"name": ni.name, "resources": node_usage(ni),
            "pods": [{"pod": p.key, "terminating": p.terminating} for p in ni.pods]}
