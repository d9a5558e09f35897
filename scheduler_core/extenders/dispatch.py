"""The scheduling cycle's calls to the extenders (schedule_one.go).

findNodesThatPassExtenders (filter_with_extenders), the extender part of prioritizeNodes
(prioritize_with_extenders) and extendersBinding (bind_with_extender), with what each call
leaves in the cycle's trace.
"""
from __future__ import annotations

from ..framework.status import Code, SchedulingError, Status
from .client import SCORE_SCALE, args_summary
from .decoding import ExtenderError


def _fail_cycle(message: str):
    return SchedulingError(Status(Code.ERROR, message))


def filter_with_extenders(extenders, pod, feasible_node_infos, diagnosis, rec) -> list:
    """findNodesThatPassExtenders: each interested extender filters what the previous left.

    FailedNodes become Unschedulable statuses, FailedAndUnresolvableNodes (which win when a node
    is in both) UnschedulableAndUnresolvable ones, so preemption leaves those nodes alone. A
    failed call ends the cycle with its error, unless the extender is ignorable.
    """
    feasible = list(feasible_node_infos)
    for ext in extenders:
        if not feasible:
            break
        if not ext.is_interested(pod) or not ext.config.filter_verb:
            continue
        call = ext.new_call(ext.config.filter_verb, args_summary(ext.config, pod, feasible))
        try:
            passed, failed, unresolvable = ext.filter(pod, feasible, call)
        except ExtenderError as exc:
            call.error, call.ignored = str(exc), ext.is_ignorable()
            code = Code.SKIP if call.ignored else Code.ERROR
            if rec is not None:
                for ni in feasible:
                    rec.extender_filter(ni.name, ext.plugin, Status(code, str(exc)),
                                        call.detail())
            if call.ignored:
                continue
            raise _fail_cycle(str(exc)) from None
        for name, message in unresolvable.items():
            diagnosis.node_to_status.set(name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                      message))
        for name, message in failed.items():
            if name not in unresolvable:
                diagnosis.node_to_status.set(name, Status(Code.UNSCHEDULABLE, message))
        if rec is not None:
            _record_filter(rec, ext, feasible, passed, failed, unresolvable, call)
        feasible = passed
    return feasible


def _record_filter(rec, ext, sent, passed, failed, unresolvable, call) -> None:
    kept = {ni.name for ni in passed}
    detail = call.detail()
    for ni in sent:
        if ni.name in kept:
            status = Status()
        elif ni.name in unresolvable:
            status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, unresolvable[ni.name])
        elif ni.name in failed:
            status = Status(Code.UNSCHEDULABLE, failed[ni.name])
        else:
            # Dropped without a reason: the framework's status for an absent node.
            status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
            rec.extender_filter(ni.name, ext.plugin, status,
                                {**detail, "note": "left out of the result without a reason"})
            continue
        rec.extender_filter(ni.name, ext.plugin, status, detail)


def prioritize_with_extenders(extenders, pod, node_infos, totals: list[int], rec) -> None:
    """prioritizeNodes' extender part: score x weight x (MaxNodeScore / MaxExtenderPriority)
    added to each node's total. A failed call only loses that extender's scores."""
    index = {ni.name: i for i, ni in enumerate(node_infos)}
    for ext in extenders:
        if not ext.is_interested(pod) or not ext.config.prioritize_verb:
            continue  # Go's Prioritize without a verb scores 0 with weight 0: nothing to add
        call = ext.new_call(ext.config.prioritize_verb,
                            args_summary(ext.config, pod, node_infos))
        raw = [0] * len(node_infos)
        try:
            scores = ext.prioritize(pod, node_infos, call)
        except ExtenderError as exc:
            call.error = str(exc)
            scores = []
        for host, score in scores:
            i = index.get(host)
            if i is None:
                continue  # a host that was not asked about counts for nothing, as in Go
            raw[i] += score
            totals[i] += score * ext.weight * SCORE_SCALE
        if rec is not None:
            detail = call.detail()
            if call.error:
                detail["ignored"] = "prioritize errors are ignored: this extender adds nothing"
            rec.score(ext.plugin, node_infos, raw, [r * SCORE_SCALE for r in raw], ext.weight,
                      detail=detail)


def bind_with_extender(extenders, pod, node_name: str, rec) -> Status | None:
    """extendersBinding: the first interested binder binds instead of the Bind plugins.

    None when no extender bound the pod (none binds, none is interested, or an ignorable one
    failed), so the Bind plugins run.
    """
    for ext in extenders:
        if not ext.is_binder() or not ext.is_interested(pod):
            continue
        call = ext.new_call(ext.config.bind_verb, f"pod {pod.key} to node {node_name}")
        try:
            ext.bind(pod, node_name, call)
            status = Status()
        except ExtenderError as exc:
            call.error, call.ignored = str(exc), ext.is_ignorable()
            status = Status(Code.SKIP if call.ignored else Code.ERROR, str(exc))
        if rec is not None:
            rec.point("bind", ext.plugin, status, node=node_name, detail=call.detail())
        if status.is_skip():
            continue
        return status
    return None
