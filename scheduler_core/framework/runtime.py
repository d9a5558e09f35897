"""The framework runtime: builds a profile's plugins and runs each extension point.

Mirrors framework/runtime/framework.go. Every run_* method takes `rec`, the cycle's recorder
(an observer's per-cycle object) or None: an unobserved run pays one `is not None` test.
"""
from __future__ import annotations

import numpy as np

from .cycle_state import COLUMNS_KEY, CycleState
from .diagnosis import NodeToStatus
from .interfaces import (
    EXTENSION_POINTS,
    MAX_NODE_SCORE,
    MAX_PERMIT_TIMEOUT,
    MIN_NODE_SCORE,
    BindPlugin,
    NodeScore,
    PreFilterResult,
)
from .queueing_hint import ANY_EVENT, registered_hints
from .registry import Registry
from .status import Code, Status
from .types import NodeInfo, PodInfo
from .vector_scores import vector_normalized, vector_raw_scores, vector_target


class FrameworkError(ValueError):
    pass


class _OrderedSet(dict):
    def add(self, name: str) -> None:
        self.setdefault(name, None)


def _describe(plugin, state) -> dict | None:
    """What a stateful plugin did this cycle, for observers (VolumeBinding's assumptions)."""
    describe = getattr(plugin, "describe", None)
    return describe(state) if describe is not None else None


def _interface_name(point: str) -> str:
    return point[0].upper() + point[1:] + "Plugin"


def instantiate(profile, registry: Registry, handle) -> dict:
    """Every plugin the profile names, built once with its defaulted args."""
    needed = []
    for plugin_set in profile.plugins.values():
        needed += [p.name for p in plugin_set.enabled]
    instances = {}
    for name in dict.fromkeys(needed):
        if name not in registry:
            continue
        try:
            instances[name] = registry.spec(name).new(profile.plugin_config.get(name, {}), handle)
        except (ValueError, TypeError, KeyError) as exc:
            raise FrameworkError(f'initializing plugin "{name}": {exc}') from exc
    return instances


# NewFramework's order (getExtensionPoints): the first error it meets is the one reported.
_GO_POINT_ORDER = ("preFilter", "filter", "postFilter", "reserve", "preScore", "score", "preBind",
                   "bind", "postBind", "permit", "preEnqueue", "queueSort")


def expand_plugins(profile, registry: Registry, handle=None, instances=None):
    """Per-point plugin name lists (explicit first, then multiPoint expansion) and weights."""
    if instances is None:
        from .handle import FakeHandle
        instances = instantiate(profile, registry, handle or FakeHandle())
    explicit_sets = {}
    for point in _GO_POINT_ORDER:
        iface = EXTENSION_POINTS[point]
        explicit = explicit_sets[point] = _OrderedSet()
        for ref in profile.plugins.get(point).enabled:
            plugin = instances.get(ref.name)
            if plugin is None:
                raise FrameworkError(f'{_interface_name(point)} "{ref.name}" does not exist')
            if not isinstance(plugin, iface):
                raise FrameworkError(
                    f'plugin "{ref.name}" does not extend {_interface_name(point)} plugin')
            if ref.name in explicit:
                raise FrameworkError(
                    f'plugin "{ref.name}" already registered as "{_interface_name(point)}"')
            explicit.add(ref.name)
    expanded = {point: _expand_multi_point(point, EXTENSION_POINTS[point], profile, instances,
                                           explicit_sets[point])
                for point in _GO_POINT_ORDER}
    out = {point: expanded[point] for point in EXTENSION_POINTS}
    name = profile.scheduler_name
    if len(out["queueSort"]) != 1:
        raise FrameworkError(f'only one queue sort plugin required for profile with scheduler '
                             f'name "{name}", but got {len(out["queueSort"])}')
    if not out["bind"]:
        raise FrameworkError(
            f'at least one bind plugin is needed for profile with scheduler name "{name}"')
    return out, _score_weights(profile, instances)


def _expand_multi_point(point, iface, profile, instances, explicit: _OrderedSet) -> list[str]:
    disabled = set(profile.plugins[point].disabled)
    if "*" in disabled:
        return list(explicit)
    multi, overrides = _OrderedSet(), _OrderedSet()
    for ref in profile.plugins["multiPoint"].enabled:
        plugin = instances.get(ref.name)
        if plugin is None:
            raise FrameworkError(f'{_interface_name(point)} "{ref.name}" does not exist')
        if not isinstance(plugin, iface) or ref.name in disabled:
            continue
        if ref.name in explicit:
            overrides.add(ref.name)
            continue
        if ref.name in multi:
            raise FrameworkError(
                f'plugin "{ref.name}" already registered as "{_interface_name(point)}"')
        multi.add(ref.name)
    # Overridden plugins first, in the order the extension point lists them; then the
    # multiPoint-only ones; then the rest of the extension point's own list.
    ordered = _OrderedSet((name, None) for name in explicit if name in overrides)
    for name in list(multi) + list(explicit):
        ordered.add(name)
    return list(ordered)


def _score_weights(profile, instances) -> dict[str, int]:
    from .interfaces import ScorePlugin

    weights: dict[str, int] = {}
    total = 0
    for ref in profile.plugins["score"].enabled + profile.plugins["multiPoint"].enabled:
        if not isinstance(instances.get(ref.name), ScorePlugin) or ref.name in weights:
            continue
        weight = ref.weight or 1
        if weight < 0:
            raise FrameworkError(f'score plugin "{ref.name}" has a negative weight {weight}')
        if weight * MAX_NODE_SCORE > (2**63 - 1) - total:
            raise FrameworkError("total score of Score plugins could overflow")
        total += weight * MAX_NODE_SCORE
        weights[ref.name] = weight
    return weights


def _out_of_range(name: str, scores: np.ndarray) -> Status:
    """The error for the first score outside [MIN_NODE_SCORE, MAX_NODE_SCORE]."""
    value = scores[int(np.argmax((scores < MIN_NODE_SCORE) | (scores > MAX_NODE_SCORE)))]
    return Status(Code.ERROR, f"applying score defaultWeights on Score plugins: plugin "
                  f'"{name}" returns an invalid score {value}, it should in the range of '
                  f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing", plugin=name)


def nominated_to_add(pod: PodInfo, nominated) -> list[PodInfo]:
    """The nominated pods Filter counts as already on their node (addGENominatedPods): those
    at least as important as the pod, other than itself."""
    return [npi for npi in nominated if npi.priority >= pod.priority and npi.uid != pod.uid]


class Framework:
    """One profile's plugins per extension point, and the runners for each point."""

    def __init__(self, profile, registry: Registry, handle):
        self.profile_name = profile.scheduler_name
        self.profile = profile
        self.instances = instantiate(profile, registry, handle)
        names_by_point, self.weights = expand_plugins(profile, registry, instances=self.instances)
        self.names_by_point = names_by_point
        by = {point: [self.instances[n] for n in names] for point, names in names_by_point.items()}
        self.pre_enqueue_plugins = by["preEnqueue"]
        self.queue_sort_plugin = by["queueSort"][0]
        self.pre_filter_plugins = by["preFilter"]
        self.filter_plugins = by["filter"]
        self.post_filter_plugins = by["postFilter"]
        self.pre_score_plugins = by["preScore"]
        self.score_plugins = by["score"]
        self.reserve_plugins = by["reserve"]
        self.permit_plugins = by["permit"]
        self.pre_bind_plugins = by["preBind"]
        self.bind_plugins: list[BindPlugin] = by["bind"]
        self.post_bind_plugins = by["postBind"]
        self.extensions = {p.name(): p.pre_filter_extensions() for p in self.pre_filter_plugins}
        self._sums_filters: dict[frozenset, object] = {}
        self._weight_arrays: dict[tuple, np.ndarray] = {}
        # Whether some Score plugin can score on the columns (else no rows are looked up).
        self._score_vectors = any(getattr(pl, "score_vector", None) is not None
                                  for pl in self.score_plugins)

    # --- queue -----------------------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: PodInfo, gates: list | None = None) -> Status | None:
        """The first gate that keeps the pod out of activeQ; `gates`, when given, collects
        each plugin's verdict as a trace entry, up to the one that gated the pod."""
        for pl in self.pre_enqueue_plugins:
            status = pl.pre_enqueue(pod)
            if gates is not None:
                gates.append((status or Status()).to_dict(pl.name()))
            if status is not None and not status.is_success():
                status.plugin = pl.name()
                return status
        return None

    def queue_sort_entry(self, head, runner_up, popped_from: str, before=()) -> dict:
        """QueueSort's trace entry: the comparison that put `head` ahead of the next pod;
        before: the pods still in activeQ it was popped ahead of, in queue order."""
        name = self.queue_sort_plugin.name()
        entry = {"plugin": name, "before": [q.pod.key for q in before], "from": popped_from,
                 "runnerUp": runner_up.pod.key if runner_up is not None else None}
        if runner_up is not None and name != "PrioritySort":
            entry["why"] = f"{name} orders it before {runner_up.pod.key}"
            return entry
        if runner_up is None:
            entry["why"] = "the only pod in activeQ" if popped_from == "activeQ" else \
                "activeQ was empty: the head of backoffQ was popped"
            return entry
        a, b = head.pod, runner_up.pod
        if a.priority != b.priority:
            entry.update(criterion="priority", why=f"priority {a.priority} > {b.priority}")
        elif head.timestamp != runner_up.timestamp:
            entry.update(criterion="timestamp", why=f"same priority {a.priority}; queued at "
                         f"{head.timestamp:g}s, before {runner_up.timestamp:g}s")
        else:
            entry.update(criterion="arrival", why=f"same priority {a.priority} and time; "
                                                  "added to the queue first")
        return entry

    def hints_of(self, plugin_name: str) -> dict:
        """{event: QueueingHintFn or None} of a plugin that rejected a pod (queueingHintMap)."""
        plugin = self.instances.get(plugin_name)
        return registered_hints(plugin) if plugin is not None else {ANY_EVENT: None}

    # --- scheduling cycle -----------------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState, pod: PodInfo, nodes, rec=None):
        """(PreFilterResult, Status, plugins that narrowed the nodes), as RunPreFilterPlugins.

        An Unschedulable PreFilter lets the others run (preemption may still help); an
        UnschedulableAndUnresolvable one ends the point at once.
        """
        skip: set[str] = set()
        # Go sets SkipFilterPlugins in a defer: whatever the outcome, for PostFilter's AddPod.
        state.skip_filter_plugins = skip
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        returned = Status()
        for pl in self.pre_filter_plugins:
            name = pl.name()
            r, status = pl.pre_filter(state, pod, nodes)
            if rec is not None:
                rec.point("preFilter", name, status or Status())
            if status is not None and status.code != Code.SUCCESS:
                if status.is_skip():
                    skip.add(name)
                    continue
                status.plugin = name
                if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, status, set()
                if status.code == Code.UNSCHEDULABLE:
                    returned = status
                    continue
                return None, Status(Code.ERROR, f'running PreFilter plugin "{name}": '
                                    f"{status.message()}", plugin=name), set()
            if r is None or r.all_nodes():
                result = result or PreFilterResult()
                continue
            with_nodes.add(name)
            result = (result or PreFilterResult()).merge(r)
            if not result.node_names:
                listed = sorted(with_nodes)
                if len(listed) == 1:
                    msg = f"node(s) didn't satisfy plugin {listed[0]}"
                else:
                    msg = f"node(s) didn't satisfy plugin(s) [{' '.join(listed)}] simultaneously"
                return result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg), with_nodes
        return result, returned, with_nodes

    def run_filter_plugins(self, state: CycleState, pod: PodInfo, node_info: NodeInfo,
                           rec=None, room=None) -> Status:
        """`room`, when given, is the node as the sums_filter plugin sees it (the pods it holds
        differ from node_info's): that plugin filters on it, the others on node_info."""
        skip = state.skip_filter_plugins
        trail = [] if rec is not None else None
        on_sums = self.sums_filter(skip) if room is not None else None
        for pl in self.filter_plugins:
            name = pl.NAME or pl.name()
            if name in skip:
                continue
            status = pl.filter(state, pod, node_info) if pl is not on_sums else room.status()
            if status is None or status.code == Code.SUCCESS:
                if trail is not None:
                    trail.append((name, None))
                continue
            if not status.is_rejected():
                status = Status(Code.ERROR, f'running "{name}" filter plugin: {status.message()}')
            status.plugin = name
            if trail is not None:
                trail.append((name, status))
                rec.filter(node_info.name, trail)
            return status
        if trail is not None:
            rec.filter(node_info.name, trail)
        return Status()

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: PodInfo,
                                               node_info: NodeInfo, nominator=None,
                                               rec=None) -> Status:
        """Filter twice when higher-or-equal priority pods are nominated to the node."""
        nominated = nominator(node_info.name) if nominator is not None else []
        added, state2, info2 = False, state, node_info
        if nominated:
            try:
                added, state2, info2 = self._add_nominated_pods(state, pod, node_info, nominated)
            except FrameworkError as exc:
                return Status(Code.ERROR, str(exc))
        status = self.run_filter_plugins(state2, pod, info2, rec)
        if added and status.is_success():
            status = self.run_filter_plugins(state, pod, node_info, rec)
        return status

    def sums_filter(self, skip) -> object | None:
        """The running Filter plugin that alone looks at a node's pods, when it judges them by
        their summed requests (it offers `room(state, node_info)`): every other running one
        looks at the node alone and no running PreFilter extension follows pods added or
        removed. None otherwise. `skip`: the Filter plugins the cycle's PreFilter skipped."""
        skip = frozenset(skip)
        if skip not in self._sums_filters:
            self._sums_filters[skip] = self._find_sums_filter(skip)
        return self._sums_filters[skip]

    def _find_sums_filter(self, skip: frozenset):
        found = None
        for pl in self.filter_plugins:
            if (pl.NAME or pl.name()) in skip or getattr(pl, "NODE_ONLY", False):
                continue
            if found is not None or not hasattr(pl, "room"):
                return None
            found = pl
        if any(ext is not None and name not in skip for name, ext in self.extensions.items()):
            return None
        return found

    def _add_nominated_pods(self, state, pod, node_info, nominated):
        to_add = nominated_to_add(pod, nominated)
        if not to_add:
            return False, state, node_info
        info_out, state_out = node_info.clone(), state.clone()
        for npi in to_add:
            info_out.add_pod(npi)
            status = self.run_pre_filter_extension_add_pod(state_out, pod, npi, info_out)
            if not status.is_success():
                raise FrameworkError(status.message())
        return True, state_out, info_out

    def run_pre_filter_extension_add_pod(self, state, pod, pod_to_add, node_info) -> Status:
        return self._run_extension("AddPod", state, pod, pod_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state, pod, pod_to_remove, node_info) -> Status:
        return self._run_extension("RemovePod", state, pod, pod_to_remove, node_info)

    def _run_extension(self, go_name, state, pod, other, node_info) -> Status:
        method = "add_pod" if go_name == "AddPod" else "remove_pod"
        for name, ext in self.extensions.items():
            if ext is None or name in state.skip_filter_plugins:
                continue
            status = getattr(ext, method)(state, pod, other, node_info)
            if status is not None and not status.is_success():
                return Status(Code.ERROR, f'running {go_name} on PreFilter plugin "{name}": '
                              f"{status.message()}", plugin=name)
        return Status()

    def run_post_filter_plugins(self, state, pod, node_to_status: NodeToStatus, rec=None):
        """The first plugin that succeeds or errors decides; rejections' reasons are joined."""
        reasons, rejector, last_result = [], "", None
        for pl in self.post_filter_plugins:
            result, status = pl.post_filter(state, pod, node_to_status)
            status = status or Status()
            if rec is not None:
                rec.point("postFilter", pl.name(), status, detail=_describe(pl, state))
            if status.is_success():
                return result, status.with_plugin(pl.name())
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return result, Status(status.code, *status.reasons, plugin=pl.name())
            if not status.is_rejected():
                return None, Status(Code.ERROR, *status.reasons, plugin=pl.name())
            # A rejecting plugin may still nominate, or clear a stale nomination with "".
            last_result = result if result is not None else last_result
            reasons += status.reasons
            rejector = rejector or pl.name()
        return last_result, Status(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    def run_pre_score_plugins(self, state, pod, nodes, rec=None) -> Status:
        skip = set()
        for pl in self.pre_score_plugins:
            status = pl.pre_score(state, pod, nodes)
            if rec is not None:
                rec.point("preScore", pl.name(), status or Status())
            if status is None or status.code == Code.SUCCESS:
                continue
            if status.is_skip():
                skip.add(pl.name())
                continue
            return Status(Code.ERROR, f'running PreScore plugin "{pl.name()}": '
                          f"{status.message()}", plugin=pl.name())
        state.skip_score_plugins = skip
        return Status()

    def run_score_plugins(self, state, pod, nodes: list[NodeInfo], rec=None):
        """Weighted totals per node (an array aligned with nodes), or an error Status.

        As RunScorePlugins: every plugin scores every node, then every plugin normalizes, then
        the scores are range-checked and weighted; so a Score error is reported before any
        Normalize error, and a Normalize error before any score out of range.
        """
        skip = state.skip_score_plugins
        plugins = [pl for pl in self.score_plugins if pl.name() not in skip]
        target = vector_target(state, nodes) if self._score_vectors else None
        raws = []
        for pl in plugins:
            raw, status = self._score_one(pl, state, pod, nodes, target)
            if status is not None:
                return None, status
            raws.append(raw)
        normalized = []
        on_columns = state.get(COLUMNS_KEY) is not None
        for pl, raw in zip(plugins, raws):
            values, status = self._normalize_one(pl, state, pod, nodes, raw, on_columns)
            if status is not None:
                return None, status
            normalized.append(values)
        if rec is not None:
            for pl, raw, values in zip(plugins, raws, normalized):
                rec.score(pl.name(), nodes, raw, values, self.weights.get(pl.name(), 1))
        # Summed as arrays: the first out-of-range score (in plugin, then node order) still
        # decides the error.
        totals = np.zeros(len(nodes), np.int64)
        if not nodes:
            return totals, Status()
        if normalized and all(type(values) is np.ndarray and values.dtype == np.int64
                              for values in normalized):
            # The usual case, every plugin on the columns: one range check and one weighted
            # sum over the plugins' rows (a numpy call per plugin and check costs more than
            # the arithmetic on a few hundred nodes); the loop below words an error.
            scores = np.array(normalized)   # (np.stack checks in Python what this does in C)
            if (np.minimum.reduce(scores, axis=None) >= MIN_NODE_SCORE
                    and np.maximum.reduce(scores, axis=None) <= MAX_NODE_SCORE):
                return self._weights_of(plugins) @ scores, Status()
        for pl, values in zip(plugins, normalized):
            scores = np.asarray(values)
            if scores.min() < MIN_NODE_SCORE or scores.max() > MAX_NODE_SCORE:
                return None, _out_of_range(pl.name(), scores)
            weight = self.weights.get(pl.name(), 1)
            totals += scores * weight if weight != 1 else scores
        return totals, Status()

    def _weights_of(self, plugins: list) -> np.ndarray:
        """The plugins' weights as an array, made once per list of plugins scoring."""
        key = tuple(pl.name() for pl in plugins)
        weights = self._weight_arrays.get(key)
        if weights is None:
            weights = self._weight_arrays[key] = np.array(
                [self.weights.get(name, 1) for name in key], np.int64)
        return weights

    @staticmethod
    def _score_one(pl, state, pod, nodes, target):
        """One plugin's raw scores, or the Score error; target: vector_target's."""
        raw = vector_raw_scores(pl, state, pod, target)
        if raw is not None:
            return raw, None
        name, score, raw = pl.name(), pl.score, []
        for ni in nodes:
            value, status = score(state, pod, ni)
            if status is not None and status.code != Code.SUCCESS:
                return None, Status(Code.ERROR, f'running Score plugins: plugin "{name}" failed '
                                    f"with: {status.message()}", plugin=name)
            raw.append(value)
        return raw, None

    @staticmethod
    def _normalize_one(pl, state, pod, nodes, raw, on_columns: bool):
        """One plugin's scores after NormalizeScore (the raw ones without ScoreExtensions)."""
        ext = pl.score_extensions()
        if ext is None:
            return raw, None
        normalized = vector_normalized(ext, state, pod, raw, on_columns)
        if normalized is not None:
            return normalized, None
        if isinstance(raw, np.ndarray):
            raw = raw.tolist()  # a plugin's NormalizeScore sees plain ints, as per node
        scores = [NodeScore(ni.name, v) for ni, v in zip(nodes, raw)]
        status = ext.normalize_score(state, pod, scores)
        if status is not None and not status.is_success():
            return None, Status(Code.ERROR, f"running Normalize on Score plugins: plugin "
                                f'"{pl.name()}" failed with: {status.message()}', plugin=pl.name())
        return [s.score for s in scores], None

    # --- reserve, permit, binding cycle ----------------------------------------------------
    def run_reserve_plugins_reserve(self, state, pod, node_name, rec=None) -> Status:
        for pl in self.reserve_plugins:
            status = pl.reserve(state, pod, node_name) or Status()
            if rec is not None:
                rec.point("reserve", pl.name(), status, node=node_name, detail=_describe(pl, state))
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return Status(Code.ERROR, f'running Reserve plugin "{pl.name()}": '
                              f"{status.message()}", plugin=pl.name())
        return Status()

    def run_reserve_plugins_unreserve(self, state, pod, node_name, rec=None) -> None:
        for pl in reversed(self.reserve_plugins):
            pl.unreserve(state, pod, node_name)
            if rec is not None:
                rec.point("unreserve", pl.name(), Status(), node=node_name,
                          detail=_describe(pl, state))

    def run_permit_plugins(self, state, pod, node_name, rec=None):
        """(Status, {plugin: timeout}) — Wait when any plugin waits and none rejects."""
        waits: dict[str, float] = {}
        for pl in self.permit_plugins:
            status, timeout = pl.permit(state, pod, node_name)
            status = status or Status()
            if status.is_wait():
                timeout = min(float(timeout), MAX_PERMIT_TIMEOUT)
            if rec is not None:
                rec.point("permit", pl.name(), status, node=node_name,
                          timeout=timeout if status.is_wait() else None)
            if status.is_success():
                continue
            if status.is_rejected():
                return status.with_plugin(pl.name()), {}
            if status.is_wait():
                waits[pl.name()] = timeout
                continue
            return Status(Code.ERROR, f'running Permit plugin "{pl.name()}": '
                          f"{status.message()}", plugin=pl.name()), {}
        if waits:
            return Status(Code.WAIT, "one or more plugins asked to wait and no plugin rejected "
                          f'pod "{pod.name}"'), waits
        return Status(), {}

    def run_pre_bind_pre_flights(self, state, pod, node_name) -> Status:
        """RunPreBindPreFlights: Success when some PreBind plugin will work for the pod,
        Skip when none will (those that skip are left out of PreBind), Error on an error."""
        skipped, result = set(), Status(Code.SKIP)
        for pl in self.pre_bind_plugins:
            status = pl.pre_bind_pre_flight(state, pod, node_name) or Status()
            if status.code == Code.ERROR:
                return Status(Code.ERROR, f'running PreBindPreFlight "{pl.name()}": '
                              f"{status.message()}", plugin=pl.name())
            if status.is_success():
                result = Status()
            elif status.is_skip():
                skipped.add(pl.name())
            else:
                return Status(Code.ERROR, f"PreBindPreFlight {pl.name()} returned "
                              f'"{status.code.label}", which is unsupported. It is supposed to '
                              "return Success, Skip, or Error status", plugin=pl.name())
        state.skip_pre_bind_plugins = skipped
        return result

    def run_pre_bind_plugins(self, state, pod, node_name, rec=None, start: int = 0) -> Status:
        """The PreBind plugins from `start`. A plugin that blocks (Wait) stops the point: the
        Wait status names it, and `resume_pre_bind` goes on once its poll has ended."""
        for pl in self.pre_bind_plugins[start:]:
            if pl.name() in state.skip_pre_bind_plugins:
                continue
            status = pl.pre_bind(state, pod, node_name) or Status()
            if status.is_wait():
                return status.with_plugin(pl.name())
            failed = self._pre_bind_result(pl, state, node_name, status, rec)
            if failed is not None:
                return failed
        return Status()

    def resume_pre_bind(self, state, pod, node_name, plugin: str, status: Status,
                        rec=None) -> Status:
        """The blocked PreBind plugin's final status, then the PreBind plugins after it."""
        index = next(i for i, pl in enumerate(self.pre_bind_plugins) if pl.name() == plugin)
        failed = self._pre_bind_result(self.pre_bind_plugins[index], state, node_name, status,
                                       rec)
        return failed or self.run_pre_bind_plugins(state, pod, node_name, rec, index + 1)

    def pre_bind_plugin(self, name: str):
        return next(pl for pl in self.pre_bind_plugins if pl.name() == name)

    @staticmethod
    def _pre_bind_result(pl, state, node_name, status: Status, rec) -> Status | None:
        """Records one PreBind call; the point's failure, or None to go on."""
        if rec is not None:
            rec.point("preBind", pl.name(), status, node=node_name, detail=_describe(pl, state))
        if status.is_skip() or status.is_success():
            return None
        if status.is_rejected():
            return status.with_plugin(pl.name())
        return Status(Code.ERROR, f'running PreBind plugin "{pl.name()}": '
                      f"{status.message()}", plugin=pl.name())

    def run_bind_plugins(self, state, pod, node_name, rec=None) -> Status:
        for pl in self.bind_plugins:
            status = pl.bind(state, pod, node_name) or Status()
            if rec is not None:
                rec.point("bind", pl.name(), status, node=node_name)
            if status.is_skip():
                continue
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return Status(Code.ERROR, f'running Bind plugin "{pl.name()}": '
                              f"{status.message()}", plugin=pl.name())
            return status
        return Status(Code.SKIP)

    def run_post_bind_plugins(self, state, pod, node_name, rec=None) -> None:
        for pl in self.post_bind_plugins:
            pl.post_bind(state, pod, node_name)
            if rec is not None:
                rec.point("postBind", pl.name(), Status(), node=node_name,
                          detail=_describe(pl, state))

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)
