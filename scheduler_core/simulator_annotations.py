"""A cycle's trace as the pod annotations kube-scheduler-simulator writes.

kube-scheduler-simulator (kubernetes-sigs) records every plugin's result in a store while the
pod is scheduled and then writes it onto the pod (simulator/scheduler/plugin/resultstore):
one annotation per extension point, each a JSON object marshalled by Go's encoding/json
(compact, map keys sorted, <, > and & escaped). The values are strings: "success" (or
"passed" for Filter, "wait" for a waiting Permit) or the status message otherwise, scores as
decimal strings, Permit timeouts as Go durations.

Its extender store (simulator/scheduler/extender/resultstore) adds, for a pod an extender saw,
four annotations keyed by the extender's urlPrefix, each the extender's decoded answer as Go
marshals kube-scheduler's extender/v1 types (no JSON tags: "NodeNames", "FailedNodes", "Host",
"Score", "Error", ...). The store reflector (simulator/scheduler/storereflector) then appends
every attempt's annotations to the result-history annotation, a JSON list, dropping the oldest
entries while it exceeds the 256 KiB annotation limit.
"""

from __future__ import annotations

import json

from .scheduler import go_duration

PREFIX = "kube-scheduler-simulator.sigs.k8s.io/"
PREFILTER_STATUS = PREFIX + "prefilter-result-status"
PREFILTER_RESULT = PREFIX + "prefilter-result"
FILTER = PREFIX + "filter-result"
POSTFILTER = PREFIX + "postfilter-result"
PRESCORE = PREFIX + "prescore-result"
SCORE = PREFIX + "score-result"
FINAL_SCORE = PREFIX + "finalscore-result"
RESERVE = PREFIX + "reserve-result"
PERMIT = PREFIX + "permit-result"
PERMIT_TIMEOUT = PREFIX + "permit-result-timeout"
PREBIND = PREFIX + "prebind-result"
BIND = PREFIX + "bind-result"
SELECTED_NODE = PREFIX + "selected-node"
EXTENDER_FILTER = PREFIX + "extender-filter-result"
EXTENDER_PRIORITIZE = PREFIX + "extender-prioritize-result"
EXTENDER_PREEMPT = PREFIX + "extender-preempt-result"
EXTENDER_BIND = PREFIX + "extender-bind-result"
RESULT_HISTORY = PREFIX + "result-history"
# apimachinery's TotalAnnotationSizeLimitB.
ANNOTATION_SIZE_LIMIT = 256 * 1024
EXTENDER_PREFIX = "extender:"

SUCCESS_MESSAGE = "success"
PASSED_FILTER_MESSAGE = "passed"
WAIT_MESSAGE = "wait"
POSTFILTER_NOMINATED_MESSAGE = "preemption victim"


def go_json(value) -> str:
    """json.Marshal's output: compact, sorted map keys, HTML characters escaped."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _message(entry: dict) -> str:
    """framework.Status.Message(): the reasons joined by ", "."""
    return ", ".join(entry.get("reasons") or [])


def _result(entry: dict, success: str = SUCCESS_MESSAGE) -> str:
    return success if entry.get("code") == "Success" else _message(entry)


def _by_plugin(entries: list[dict]) -> dict[str, str]:
    return {e["plugin"]: _result(e) for e in entries}


def pod_annotations(cycle: dict) -> dict[str, str]:
    """The annotations for one cycle in the contract's form."""
    prefilter_result = {}
    for entry in cycle.get("preFilter") or []:
        names = (entry.get("detail") or {}).get("nodeNames")
        if names is not None:
            prefilter_result[entry["plugin"]] = sorted(names)

    filters = {node: {e["plugin"]: _result(e, PASSED_FILTER_MESSAGE) for e in trail}
               for node, trail in (cycle.get("filter") or {}).items()}

    post_filter: dict[str, dict[str, str]] = {}
    if cycle.get("postFilter"):
        # The store gets every node of the filter's status map, and "preemption victim" for
        # the plugin that nominated one.
        post_filter = {node: {} for node in cycle.get("filter") or {}}
        nominated = (cycle.get("preemption") or {}).get("nominatedNode")
        for entry in cycle["postFilter"]:
            if nominated and entry.get("code") == "Success":
                post_filter.setdefault(nominated, {})[entry["plugin"]] = \
                    POSTFILTER_NOMINATED_MESSAGE

    scores: dict[str, dict[str, str]] = {}
    final_scores: dict[str, dict[str, str]] = {}
    for plugin, nodes in (cycle.get("score") or {}).items():
        for node, s in nodes.items():
            scores.setdefault(node, {})[plugin] = str(s["raw"])
            final_scores.setdefault(node, {})[plugin] = str(s["weighted"])

    permit, permit_timeout = {}, {}
    for entry in cycle.get("permit") or []:
        code = entry.get("code")
        permit[entry["plugin"]] = (SUCCESS_MESSAGE if code == "Success"
                                   else WAIT_MESSAGE if code == "Wait" else _message(entry))
        permit_timeout[entry["plugin"]] = go_duration(float(entry.get("timeout") or 0))

    reserve = cycle.get("reserve") or []
    # Reserve records the node it was called with: set once the pod reached Reserve.
    selected = next((e.get("node") for e in reserve if e.get("node")), "") or ""

    return {
        PREFILTER_RESULT: go_json(prefilter_result),
        PREFILTER_STATUS: go_json(_by_plugin(cycle.get("preFilter") or [])),
        FILTER: go_json(filters),
        POSTFILTER: go_json(post_filter),
        PRESCORE: go_json(_by_plugin(cycle.get("preScore") or [])),
        SCORE: go_json(scores),
        FINAL_SCORE: go_json(final_scores),
        RESERVE: go_json(_by_plugin(reserve)),
        PERMIT: go_json(permit),
        PERMIT_TIMEOUT: go_json(permit_timeout),
        PREBIND: go_json(_by_plugin(cycle.get("preBind") or [])),
        BIND: go_json(_by_plugin(cycle.get("bind") or [])),
        SELECTED_NODE: selected,
    }


# --- extenders -----------------------------------------------------------------------------


def _is_extender(plugin: str) -> bool:
    return plugin.startswith(EXTENDER_PREFIX)


def _url(plugin: str) -> str:
    return plugin[len(EXTENDER_PREFIX):]


def extender_annotations(cycle: dict, cache_capable: dict[str, bool]) -> dict[str, str]:
    """The extender store's four annotations, or none when no extender saw the pod.

    cache_capable: urlPrefix -> nodeCacheCapable, which decides whether a filter answer
    carried node names or a NodeList (whose items are the nodes that passed)."""
    filters: dict[str, dict] = {}
    for node, trail in (cycle.get("filter") or {}).items():
        for entry in trail:
            if _is_extender(entry["plugin"]):
                _filter_answer(filters, _url(entry["plugin"]), node, entry)
    prioritize = {_url(plugin): [{"Host": node, "Score": s["raw"]} for node, s in nodes.items()]
                  for plugin, nodes in (cycle.get("score") or {}).items() if _is_extender(plugin)}
    bind = {_url(e["plugin"]): {"Error": "" if e.get("code") == "Success" else _message(e)}
            for e in cycle.get("bind") or [] if _is_extender(e["plugin"])}
    if not (filters or prioritize or bind):
        return {}
    for url, answer in filters.items():
        passed = answer.pop("passed")
        if cache_capable.get(url, False):
            answer["Nodes"], answer["NodeNames"] = None, passed
        else:
            answer["Nodes"] = {"metadata": {}, "items": [{"metadata": {"name": n}}
                                                         for n in passed]}
            answer["NodeNames"] = None
    return {EXTENDER_FILTER: go_json(filters), EXTENDER_PRIORITIZE: go_json(prioritize),
            EXTENDER_PREEMPT: go_json({}), EXTENDER_BIND: go_json(bind)}


def _filter_answer(filters: dict, url: str, node: str, entry: dict) -> None:
    answer = filters.setdefault(url, {"passed": [], "FailedNodes": {},
                                      "FailedAndUnresolvableNodes": {}, "Error": ""})
    code = entry.get("code")
    if code == "Success":
        answer["passed"].append(node)
    elif code == "Unschedulable":
        answer["FailedNodes"][node] = _message(entry)
    elif code == "UnschedulableAndUnresolvable":
        answer["FailedAndUnresolvableNodes"][node] = _message(entry)
    else:
        answer["Error"] = _message(entry)


# --- the history ---------------------------------------------------------------------------


def cycle_annotations(cycle: dict, cache_capable: dict[str, bool]) -> dict[str, str]:
    """Everything the stores write for one attempt."""
    return {**pod_annotations(cycle), **extender_annotations(cycle, cache_capable)}


def result_history(attempts: list[dict[str, str]]) -> str:
    """updateResultHistory over the attempts in order: the JSON list, oldest entries dropped
    until it fits the annotation size limit."""
    for start in range(len(attempts)):
        text = go_json(attempts[start:])
        if len(text.encode()) <= ANNOTATION_SIZE_LIMIT:
            return text
    return "[]"
