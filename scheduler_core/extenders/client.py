"""Scheduler extenders over real HTTP: kube-scheduler's HTTPExtender (extender.go).

The client sends JSON bodies exactly as k8s.io/kube-scheduler/extender/v1 has them, POSTed to
urlPrefix + "/" + verb with an overall deadline of httpTimeout (scheduler_core.extenders.transport),
and decodes the answers as Go would (scheduler_core.extenders.decoding). scheduler.go's
buildExtenders gives build_extenders; DefaultPreemption calls Extender.process_preemption; the
scheduling cycle calls the others through scheduler_core.extenders.dispatch.

Every call shows in the cycle's trace under the plugin name `extender:<urlPrefix>`, with a
`detail` holding the URL, what was sent and received, the latency (wall clock) or the error.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass

from ..errors import ConfigError
from ..framework.interfaces import MAX_NODE_SCORE
from ..framework.types import Victims
from .config import ExtenderConfig, decode_extender
from .decoding import (
    BINDING_RESULT,
    FILTER_RESULT,
    HOST_PRIORITY_LIST,
    PREEMPTION_RESULT,
    ExtenderError,
    decode,
    decode_json,
    encode,
)

MAX_EXTENDER_PRIORITY = 10
# The factor prioritizeNodes scales an extender's 0..10 scores by (int64 division in Go).
SCORE_SCALE = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
PLUGIN_PREFIX = "extender:"


# --- requests ----------------------------------------------------------------------------------
def pod_json(pod) -> dict:
    """The pod as the API server would hold it: its manifest, with a namespace and a UID."""
    obj = dict(pod.obj)
    meta = dict(obj.get("metadata") or {})
    meta.setdefault("namespace", pod.namespace)
    meta.setdefault("uid", str(pod.uid))
    obj["metadata"] = meta
    return obj


def node_args(ext: ExtenderConfig, pod, node_infos) -> dict:
    """ExtenderArgs: node names to a node-cache-capable extender, else the whole NodeList."""
    if ext.node_cache_capable:
        return {"Pod": pod_json(pod), "Nodes": None, "NodeNames": [ni.name for ni in node_infos]}
    items = [ni.node for ni in node_infos]
    return {"Pod": pod_json(pod), "Nodes": {"metadata": {}, "items": items}, "NodeNames": None}


def args_summary(ext: ExtenderConfig, pod, node_infos) -> str:
    if ext.node_cache_capable:
        return f"pod {pod.key}, {len(node_infos)} node names (NodeNames)"
    return f"pod {pod.key}, {len(node_infos)} nodes (Nodes)"


@dataclass
class Call:
    """One HTTP exchange with an extender, as the trace's `detail` shows it."""

    verb: str
    url: str
    request: str
    response: str = ""
    latency_ms: float = 0.0
    error: str = ""
    ignored: bool = False

    def detail(self) -> dict:
        out = {"verb": self.verb, "url": self.url, "request": self.request,
               "latencyMs": self.latency_ms}
        if self.response:
            out["response"] = self.response
        if self.error:
            out["error"] = self.error
            if self.ignored:
                out["ignored"] = "the extender is ignorable: its error is skipped"
        return out


# --- the extender ------------------------------------------------------------------------------
class Extender:
    """HTTPExtender: one configured extender and its verbs."""

    def __init__(self, config: ExtenderConfig, node_infos=None):
        self.config = config
        self.url_prefix = config.url_prefix
        self.plugin = PLUGIN_PREFIX + config.url_prefix
        self.weight = config.weight
        self.timeout = config.http_timeout
        self.managed = {r.name for r in config.managed_resources}
        # The HTTP and TLS modules are imported only when an extender is configured (they are a
        # measurable part of a short process's start).
        from .transport import opener, ssl_context
        self._opener = opener(config, ssl_context(config))
        # () -> the cycle's Snapshot, to turn the UIDs a preempt call returns back into pods.
        self._node_infos = node_infos

    def __repr__(self):
        return f"Extender({self.url_prefix!r})"

    # The framework.Extender interface -----------------------------------------------------
    def name(self) -> str:
        return self.url_prefix

    def is_ignorable(self) -> bool:
        return self.config.ignorable

    def is_binder(self) -> bool:
        return bool(self.config.bind_verb)

    def supports_preemption(self) -> bool:
        return bool(self.config.preempt_verb)

    def is_interested(self, pod) -> bool:
        """The pod requests or limits one of the managed resources (or none are listed)."""
        if not self.managed:
            return True
        spec = pod.obj.get("spec") or {}
        for field in ("containers", "initContainers"):
            for container in spec.get(field) or []:
                resources = container.get("resources") or {}
                for kind in ("requests", "limits"):
                    if self.managed.intersection(resources.get(kind) or {}):
                        return True
        return False

    # HTTP -------------------------------------------------------------------------------------
    def url(self, verb: str) -> str:
        return self.url_prefix.rstrip("/") + "/" + verb

    def send(self, verb: str, args, spec, call: Call):
        """POST args as JSON; the decoded result, or ExtenderError. Fills call's response."""
        import urllib.error
        import urllib.request
        from http.client import HTTPException

        from .transport import excerpt, transport_error
        url = call.url
        request = urllib.request.Request(url, data=encode(args), method="POST",
                                         headers={"Content-Type": "application/json"})
        start = time.perf_counter()
        status, data, failure = 0, b"", None
        try:
            with self._opener.open(request, timeout=self.timeout) as resp:
                status, data = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
            exc.close()
        except (urllib.error.URLError, HTTPException, OSError) as exc:
            failure = exc
        elapsed = time.perf_counter() - start
        call.latency_ms = round(elapsed * 1000, 1)
        if failure is None and self.timeout is not None and elapsed > self.timeout:
            # Client.Timeout bounds the whole exchange, not each socket read.
            failure = TimeoutError()
        if failure is not None:
            if isinstance(failure, TimeoutError):
                call.response = f"no complete response within {self.timeout:g}s (httpTimeout)"
            raise ExtenderError(transport_error(url, failure))
        call.response = f"HTTP {status}, {len(data)} bytes"
        if status != 200:
            call.response += f": {excerpt(data)}" if data else ""
            raise ExtenderError(f"failed {verb} with extender at URL {url}, code {status}")
        try:
            return decode(decode_json(data), spec)
        except ExtenderError:
            call.response += f": {excerpt(data)}"
            raise

    def new_call(self, verb: str, request: str) -> Call:
        return Call(verb, self.url(verb), request)

    # Verbs ----------------------------------------------------------------------------------
    def filter(self, pod, node_infos: list, call: Call):
        """(passing NodeInfos in the extender's order, failed, failed and unresolvable)."""
        args = node_args(self.config, pod, node_infos)
        result = self.send(self.config.filter_verb, args, FILTER_RESULT, call) or {}
        if result.get("Error"):
            call.response += f": Error {result['Error']!r}"
            raise ExtenderError(result["Error"])
        by_name = {ni.name: ni for ni in node_infos}
        names = result.get("NodeNames")
        if not (self.config.node_cache_capable and names is not None):
            items = (result.get("Nodes") or {}).get("items")
            names = None if items is None else [
                ((item or {}).get("metadata") or {}).get("name", "") for item in items]
        passed = []
        for name in names or []:
            if name not in by_name:
                # Go would take a returned node object as it is; a node outside the snapshot
                # cannot be scheduled to here, so both shapes fail as NodeNames does in Go.
                raise ExtenderError(f"extender {json.dumps(self.url_prefix)} claims a filtered "
                                    f"node {json.dumps(name)} which is not found in the input "
                                    "node list")
            passed.append(by_name[name])
        failed = result.get("FailedNodes") or {}
        unresolvable = result.get("FailedAndUnresolvableNodes") or {}
        call.response += (f": {len(passed)} passed, {len(failed)} failed, "
                          f"{len(unresolvable)} failed and unresolvable")
        return passed, failed, unresolvable

    def prioritize(self, pod, node_infos: list, call: Call) -> list[tuple[str, int]]:
        """[(host, score 0..10)] as the extender returned them."""
        args = node_args(self.config, pod, node_infos)
        result = self.send(self.config.prioritize_verb, args, HOST_PRIORITY_LIST, call) or []
        call.response += f": {len(result)} host priorities"
        return [((hp or {}).get("Host", ""), (hp or {}).get("Score", 0)) for hp in result]

    def bind(self, pod, node_name: str, call: Call) -> None:
        args = {"PodName": pod.name, "PodNamespace": pod.namespace, "PodUID": str(pod.uid),
                "Node": node_name}
        result = self.send(self.config.bind_verb, args, BINDING_RESULT, call)
        if result and result.get("Error"):
            call.response += f": Error {result['Error']!r}"
            raise ExtenderError(result["Error"])

    def process_preemption(self, pod, victims_by_node: dict, node_infos=None) -> dict:
        """ProcessPreemption: {node name: Victims} the extender keeps; ExtenderError on failure.

        victims_by_node maps node names to objects with `pods` (PodInfos) and
        `num_pdb_violations`. The extender answers with pod UIDs, turned back into the pods on
        that node of node_infos (an object with get(name) -> NodeInfo; the cycle's snapshot by
        default).
        """
        if not self.supports_preemption():
            raise ExtenderError(f"preempt verb is not defined for extender {self.url_prefix} "
                                "but run into ProcessPreemption")
        if self.config.node_cache_capable:
            meta = {node: {"Pods": [{"UID": str(p.uid)} for p in v.pods],
                           "NumPDBViolations": v.num_pdb_violations}
                    for node, v in victims_by_node.items()}
            args = {"Pod": pod_json(pod), "NodeNameToVictims": None,
                    "NodeNameToMetaVictims": meta}
        else:
            full = {node: {"Pods": [pod_json(p) for p in v.pods],
                           "NumPDBViolations": v.num_pdb_violations}
                    for node, v in victims_by_node.items()}
            args = {"Pod": pod_json(pod), "NodeNameToVictims": full,
                    "NodeNameToMetaVictims": None}
        call = self.new_call(self.config.preempt_verb,
                             f"pod {pod.key}, victims on {len(victims_by_node)} nodes")
        result = self.send(self.config.preempt_verb, args, PREEMPTION_RESULT, call) or {}
        return self._convert_to_victims(result.get("NodeNameToMetaVictims") or {},
                                        victims_by_node, node_infos)

    def _convert_to_victims(self, meta_victims: dict, offered: dict, node_infos) -> dict:
        """convertToVictims: UIDs back to the pods on each node."""
        if node_infos is None and self._node_infos is not None:
            node_infos = self._node_infos()
        out = {}
        for node_name, meta in meta_victims.items():
            if node_infos is not None:
                node_info = node_infos.get(node_name)
                if node_info is None:
                    raise ExtenderError(f'nodeinfo not found for node name "{node_name}"')
                pods = node_info.pods
            else:
                pods = offered[node_name].pods if node_name in offered else []
            by_uid = {str(p.uid): p for p in pods}
            victims = Victims([], (meta or {}).get("NumPDBViolations", 0))
            for meta_pod in (meta or {}).get("Pods") or []:
                uid = (meta_pod or {}).get("UID", "")
                if uid not in by_uid:
                    raise ExtenderError(f"extender: {self.url_prefix} claims to preempt pod "
                                        f"(UID: &{{{uid}}}) on node: {node_name}, but the pod "
                                        "is not found on that node")
                victims.pods.append(by_uid[uid])
            out[node_name] = victims
        return out


# --- building ----------------------------------------------------------------------------------
def build_extenders(configs: list[dict], node_infos=None) -> list[Extender]:
    """buildExtenders: one HTTPExtender per entry, the ignorable ones moved to the end.

    node_infos: () -> the current Snapshot, for process_preemption. Raises ConfigError when
    an entry is invalid or its TLS settings cannot be loaded (kube-scheduler fails to start).
    """
    regular, ignorable = [], []
    errors: list[str] = []
    for i, raw in enumerate(configs):
        path = f"extenders[{i}]"
        config = decode_extender(raw, path, errors)
        if config is None:
            continue
        try:
            extender = Extender(config, node_infos)
        except (ValueError, OSError) as exc:
            errors.append(f"{path}.tlsConfig: {exc}")
            continue
        (ignorable if config.ignorable else regular).append(extender)
    if errors:
        raise ConfigError(errors)
    return regular + ignorable
