"""The correct answer to a question, from the cycle's trace (the contract's CYCLE object).

At Filter the answer is the nodes that survive, decided by the Filter plugins that rejected
the others; at Score the node that wins, decided by the Score plugin that put the most
weighted points between it and the runner-up; at PostFilter the victims the preemption
picked (none when it did not preempt), decided by the PostFilter plugin that ended the
PostFilter phase (the first that did not answer Unschedulable).
"""

from __future__ import annotations

from collections import Counter


def correct_answer(point: str, trace: dict) -> dict:
    """{"answer": sorted names, "plugin": deciding plugin, "reason": why}."""
    return {"Filter": _filter, "Score": _score, "PostFilter": _post_filter}[point](trace)


def _rejection(trail: list) -> tuple[str, str] | None:
    last = trail[-1] if trail else None
    if last is None or last["code"] == "Success":
        return None
    return last["plugin"], "; ".join(last.get("reasons") or []) or last["code"]


def _filter(trace: dict) -> dict:
    survivors, rejected = [], {}
    for node, trail in (trace.get("filter") or {}).items():
        verdict = _rejection(trail)
        if verdict is None:
            survivors.append(node)
        else:
            rejected[node] = verdict
    if not rejected:
        return {"answer": sorted(survivors), "plugin": "",
                "reason": "every Filter plugin passed every node"}
    plugin, _ = Counter(p for p, _ in rejected.values()).most_common(1)[0]
    reasons = [f"{node}: {p}: {why}" for node, (p, why) in sorted(rejected.items())]
    return {"answer": sorted(survivors), "plugin": plugin, "reason": "; ".join(reasons[:12])}


def _score(trace: dict) -> dict:
    winner = trace.get("node")
    totals = trace.get("totalScore") or {}
    if winner is None:
        return {"answer": [], "plugin": "", "reason": trace.get("message") or "no node won"}
    others = sorted((n for n in totals if n != winner), key=lambda n: (-totals[n], n))
    if not others:
        return {"answer": [winner], "plugin": "",
                "reason": f"{winner} was the only feasible node: Score did not run"}
    runner_up = others[0]
    gaps = {plugin: scores.get(winner, {}).get("weighted", 0)
            - scores.get(runner_up, {}).get("weighted", 0)
            for plugin, scores in (trace.get("score") or {}).items()}
    plugin = max(sorted(gaps), key=lambda p: gaps[p]) if gaps else ""
    reason = (f"{winner} {totals.get(winner)} against {runner_up} {totals[runner_up]}; "
              f"{plugin} gave {winner} {gaps.get(plugin, 0):+d} weighted points")
    if totals.get(winner) == totals[runner_up]:
        reason += " (a tie, broken at random by the scheduler's seed)"
    return {"answer": [winner], "plugin": plugin, "reason": reason}


def _deciding_call(calls: list) -> dict | None:
    """The PostFilter call that decided: as the framework's RunPostFilterPlugins does, the
    first one that did not answer Unschedulable (DefaultPreemption's Success), else the last
    one that ran (every plugin said Unschedulable: the last one's word stands)."""
    for call in calls:
        if call.get("code") != "Unschedulable":
            return call
    return calls[-1] if calls else None


def _post_filter(trace: dict) -> dict:
    call = _deciding_call(trace.get("postFilter") or [])
    preemption = trace.get("preemption") or {}
    victims = sorted(preemption.get("victims") or [])
    if call is None:
        return {"answer": victims, "plugin": "",
                "reason": "PostFilter did not run: the pod fit a node"}
    plugin = call["plugin"]
    if victims:
        reason = (f"{plugin} nominated {preemption.get('nominatedNode')} and evicts "
                  f"{', '.join(victims)}")
    elif call.get("code") == "Success":
        reason = f"{plugin} nominated {preemption.get('nominatedNode')} without evicting anyone"
    else:
        reason = "; ".join(call.get("reasons") or []) or call["code"]
    return {"answer": victims, "plugin": plugin, "reason": reason}
