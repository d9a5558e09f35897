"""kube-scheduler's own test plugins, for `simulate --plugin Name=<this module>:<factory>`.

Each factory takes (args, handle) like an out-of-tree plugin. The behaviour and the reason
strings are those of pkg/scheduler/testing/framework/fake_plugins.go, schedule_one_test.go and
framework/runtime/framework_test.go, so that a fidelity case can state kube-scheduler's own
expectations. Codes in args are names ("Unschedulable") or Go's numbers (2).
"""
from __future__ import annotations

from scheduler_core.framework import interfaces as fw
from scheduler_core.framework.interfaces import PostFilterResult, PreFilterResult
from scheduler_core.framework.status import Code, Status

ERR_REASON_FAKE = "Nodes failed the fake plugin"   # tf.ErrReasonFake
INJECT_REASON = "injected status"                   # framework_test.go injectReason
INJECT_FILTER_REASON = "injected filter status"     # framework_test.go injectFilterReason
INJECT_FAILURE = "injecting failure."               # setScoreRes / injectNormalizeRes

_CODES = {c.label: c for c in Code}


def code(value) -> Code:
    if isinstance(value, str):
        return _CODES[value]
    return Code(int(value or 0))


def _status(value, *reasons) -> Status | None:
    """None for Success, as a Go plugin returning nil; otherwise the code with the reasons."""
    c = code(value)
    return None if c == Code.SUCCESS and not reasons else Status(c, *reasons)


# --- fake_plugins.go -----------------------------------------------------------------------
class FalseFilterPlugin(fw.FilterPlugin):
    NAME = "FalseFilter"

    def filter(self, state, pod, node_info):
        return Status(Code.UNSCHEDULABLE, ERR_REASON_FAKE)


class TrueFilterPlugin(fw.FilterPlugin):
    NAME = "TrueFilter"

    def filter(self, state, pod, node_info):
        return None


class MatchFilterPlugin(fw.FilterPlugin):
    """Success only on the node named like the pod."""

    NAME = "MatchFilter"

    def filter(self, state, pod, node_info):
        return None if pod.name == node_info.name else Status(Code.UNSCHEDULABLE, ERR_REASON_FAKE)


class NoPodsFilterPlugin(fw.FilterPlugin):
    """Success only on a node without pods (schedule_one_test.go noPodsFilterPlugin)."""

    NAME = "NoPodsFilter"

    def filter(self, state, pod, node_info):
        return None if not node_info.pods else Status(Code.UNSCHEDULABLE, ERR_REASON_FAKE)


class FakeFilterPlugin(fw.FilterPlugin):
    """args.failedNodeReturnCodeMap: node name -> the code to return there; args.pods, when
    given, limits the failures to the pods of these names."""

    NAME = "FakeFilter"

    def __init__(self, args):
        self.codes = {n: code(c) for n, c in (args.get("failedNodeReturnCodeMap") or {}).items()}
        self.pods = args.get("pods")

    def filter(self, state, pod, node_info):
        if node_info.name in self.codes and (self.pods is None or pod.name in self.pods):
            return Status(self.codes[node_info.name], f"injecting failure for pod {pod.name}")
        return None


class FakeNodeSelectorPlugin(fw.FilterPlugin):
    """args.nodeName: the only node that passes (schedule_one_test.go fakeNodeSelector)."""

    NAME = "FakeNodeSelector"

    def __init__(self, args):
        self.node_name = args.get("nodeName", "")

    def filter(self, state, pod, node_info):
        if node_info.name != self.node_name:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        return None


class FakePreFilterPlugin(fw.PreFilterPlugin):
    """args: name, result (node names; absent means all nodes), code and reasons."""

    def __init__(self, args):
        self.NAME = args.get("name", "FakePreFilter")
        names = args.get("result")
        self.result = None if names is None else PreFilterResult(names)
        self.status = _status(args.get("code", 0), *(args.get("reasons") or []))

    def pre_filter(self, state, pod, nodes):
        return self.result, self.status


class FakeReservePlugin(fw.ReservePlugin):
    NAME = "FakeReserve"

    def __init__(self, args):
        self.status = _status(args.get("code", 0), *(args.get("reasons") or []))

    def reserve(self, state, pod, node_name):
        return self.status

    def unreserve(self, state, pod, node_name):
        return None


class FakePreBindPlugin(fw.PreBindPlugin):
    NAME = "FakePreBind"

    def __init__(self, args):
        self.status = _status(args.get("code", 0), *(args.get("reasons") or []))

    def pre_bind(self, state, pod, node_name):
        return self.status


class FakePermitPlugin(fw.PermitPlugin):
    """args: code, reasons and timeout (seconds) for the pods named in args.pods (all pods when
    absent; the others are permitted). A later pod's Permit does what the Go tests do from a
    goroutine: args.allowWaiting allows every waiting pod, args.rejectWaiting rejects them
    with that message."""

    NAME = "FakePermit"

    def __init__(self, args, handle):
        self.handle = handle
        self.args = args

    def permit(self, state, pod, node_name):
        args = self.args
        for wp in self.handle.iterate_waiting_pods():
            if args.get("allowWaiting"):
                wp.allow(self.NAME)
            elif args.get("rejectWaiting"):
                wp.reject(self.NAME, args["rejectWaiting"])
        if args.get("pods") is not None and pod.name not in args["pods"]:
            return None, 0
        return _status(args.get("code", 0), *(args.get("reasons") or [])), args.get("timeout", 0)


class FakePreScoreAndScorePlugin(fw.PreScorePlugin, fw.ScorePlugin):
    """args: name, score, preScoreCode/preScoreReasons, scoreCode/scoreReasons."""

    def __init__(self, args):
        self.NAME = args.get("name", "FakePreScoreAndScorePlugin")
        self.value = int(args.get("score", 0))
        self.pre_score_status = _status(args.get("preScoreCode", 0),
                                        *(args.get("preScoreReasons") or []))
        self.score_status = _status(args.get("scoreCode", 0), *(args.get("scoreReasons") or []))

    def pre_score(self, state, pod, nodes):
        return self.pre_score_status

    def score(self, state, pod, node_info):
        return self.value, self.score_status


class EqualPrioritizerPlugin(fw.ScorePlugin):
    NAME = "EqualPrioritizerPlugin"

    def score(self, state, pod, node_info):
        return 1, None


class Node2PrioritizerPlugin(fw.ScorePlugin):
    NAME = "Node2Prioritizer"

    def score(self, state, pod, node_info):
        return (100 if node_info.name == "node2" else 10), None


# --- schedule_one_test.go ------------------------------------------------------------------
class FalseMapPlugin(fw.ScorePlugin):
    NAME = "FalseMap"

    def score(self, state, pod, node_info):
        return 0, Status.as_error("priority map encounters an error")


class NumericMapPlugin(fw.ScorePlugin):
    """The node's name read as a number."""

    NAME = "NumericMap"

    def score(self, state, pod, node_info):
        try:
            return int(node_info.name), None
        except ValueError:
            return 0, Status(Code.ERROR, f"Error converting nodename to int: {node_info.name}")


class ReverseNumericMapPlugin(NumericMapPlugin, fw.ScoreExtensions):
    NAME = "ReverseNumericMap"

    def score_extensions(self):
        return self

    def normalize_score(self, state, pod, scores):
        high = max([0.0] + [float(s.score) for s in scores])
        low = min(float(s.score) for s in scores)
        for s in scores:
            s.score = int(high + low - s.score)
        return None


class TrueMapPlugin(fw.ScorePlugin, fw.ScoreExtensions):
    NAME = "TrueMap"

    def score(self, state, pod, node_info):
        return 1, None

    def score_extensions(self):
        return self

    def normalize_score(self, state, pod, scores):
        return None


# --- a PostFilter that neither nominates nor clears (result nil) ---------------------------
class NoopPostFilterPlugin(fw.PostFilterPlugin):
    """args: code (Unschedulable by default) and reasons; returns no PostFilterResult, or one
    nominating args.nominate."""

    NAME = "NoopPostFilter"

    def __init__(self, args):
        self.status = Status(code(args.get("code", "Unschedulable")),
                             *(args.get("reasons") or []))
        self.nominate = args.get("nominate")

    def post_filter(self, state, pod, node_to_status):
        result = None if self.nominate is None else PostFilterResult(self.nominate)
        return result, self.status


# --- a PreFilter that errors on a pod's first attempts, to retry it after backoff ----------
class FlakyPreFilterPlugin(fw.PreFilterPlugin):
    """args.pods: the pods to fail; args.times: how many attempts fail (1 by default)."""

    NAME = "FlakyPreFilter"

    def __init__(self, args):
        self.pods = set(args.get("pods") or [])
        self.times = int(args.get("times", 1))
        self.calls: dict[str, int] = {}

    def pre_filter(self, state, pod, nodes):
        if pod.name in self.pods:
            self.calls[pod.name] = self.calls.get(pod.name, 0) + 1
            if self.calls[pod.name] <= self.times:
                return None, Status(Code.ERROR, "flaky")
        return None, None


# --- framework_test.go TestPlugin: every extension point, results injected through args ---
_TEST_PLUGIN_POINTS = {
    "queueSort": fw.QueueSortPlugin, "preFilter": fw.PreFilterPlugin,
    "filter": fw.FilterPlugin, "postFilter": fw.PostFilterPlugin,
    "preScore": fw.PreScorePlugin, "score": fw.ScorePlugin, "reserve": fw.ReservePlugin,
    "permit": fw.PermitPlugin, "preBind": fw.PreBindPlugin, "bind": fw.BindPlugin,
    "postBind": fw.PostBindPlugin,
}


class _TestPluginBase(fw.PreFilterExtensions, fw.ScoreExtensions):
    """injectedResult: scoreRes, normalizeRes (normalizing only when set), scoreStatus,
    normalizeStatus, preFilterResult, preFilterStatus, preFilterAddPodStatus,
    preFilterRemovePodStatus, filterStatus, postFilterStatus, preScoreStatus, reserveStatus,
    permitStatus, preBindStatus, bindStatus."""

    def __init__(self, args):
        self.NAME = args.get("name", "test-plugin")
        self.inj = args

    def _st(self, key, reason=INJECT_REASON):
        return Status(code(self.inj.get(key, 0)), reason)

    def less(self, a, b):
        return False

    def pre_filter(self, state, pod, nodes):
        names = self.inj.get("preFilterResult")
        return (None if names is None else PreFilterResult(names)), self._st("preFilterStatus")

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pod_to_add, node_info):
        return self._st("preFilterAddPodStatus")

    def remove_pod(self, state, pod, pod_to_remove, node_info):
        return self._st("preFilterRemovePodStatus")

    def filter(self, state, pod, node_info):
        return self._st("filterStatus", INJECT_FILTER_REASON)

    def post_filter(self, state, pod, node_to_status):
        return None, self._st("postFilterStatus")

    def pre_score(self, state, pod, nodes):
        return self._st("preScoreStatus")

    def score(self, state, pod, node_info):
        c = code(self.inj.get("scoreStatus", 0))
        if c != Code.SUCCESS:
            return 0, Status(c, INJECT_FAILURE)
        return int(self.inj.get("scoreRes", 0)), None

    def score_extensions(self):
        return self if "normalizeRes" in self.inj or "normalizeStatus" in self.inj else None

    def normalize_score(self, state, pod, scores):
        c = code(self.inj.get("normalizeStatus", 0))
        if c != Code.SUCCESS:
            return Status(c, INJECT_FAILURE)
        for s in scores:
            s.score = int(self.inj.get("normalizeRes", 0))
        return None

    def reserve(self, state, pod, node_name):
        return self._st("reserveStatus")

    def unreserve(self, state, pod, node_name):
        return None

    def permit(self, state, pod, node_name):
        return self._st("permitStatus"), 0

    def pre_bind(self, state, pod, node_name):
        return self._st("preBindStatus")

    def bind(self, state, pod, node_name):
        return self._st("bindStatus")

    def post_bind(self, state, pod, node_name):
        return None


def TestPlugin(args, handle):
    """args.points limits the extension points (all of them by default, as in Go)."""
    points = args.get("points") or list(_TEST_PLUGIN_POINTS)
    bases = (_TestPluginBase, *(_TEST_PLUGIN_POINTS[p] for p in points))
    return type("TestPlugin", bases, {})(args)


def FalseFilter(args, handle):
    return FalseFilterPlugin()


def TrueFilter(args, handle):
    return TrueFilterPlugin()


def MatchFilter(args, handle):
    return MatchFilterPlugin()


def NoPodsFilter(args, handle):
    return NoPodsFilterPlugin()


def FakeFilter(args, handle):
    return FakeFilterPlugin(args)


def FakeNodeSelector(args, handle):
    return FakeNodeSelectorPlugin(args)


def FakePreFilter(args, handle):
    return FakePreFilterPlugin(args)


def FakeReserve(args, handle):
    return FakeReservePlugin(args)


def FakePreBind(args, handle):
    return FakePreBindPlugin(args)


def FakePermit(args, handle):
    return FakePermitPlugin(args, handle)


def FakePreScoreAndScore(args, handle):
    return FakePreScoreAndScorePlugin(args)


def EqualPrioritizer(args, handle):
    return EqualPrioritizerPlugin()


def Node2Prioritizer(args, handle):
    return Node2PrioritizerPlugin()


def FalseMap(args, handle):
    return FalseMapPlugin()


def NumericMap(args, handle):
    return NumericMapPlugin()


def ReverseNumericMap(args, handle):
    return ReverseNumericMapPlugin()


def TrueMap(args, handle):
    return TrueMapPlugin()


def NoopPostFilter(args, handle):
    return NoopPostFilterPlugin(args)


def FlakyPreFilter(args, handle):
    return FlakyPreFilterPlugin(args)
