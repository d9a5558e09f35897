"""Scheduler extenders over real HTTP: kube-scheduler's HTTPExtender and the code that calls it.

extender.go gives the client (JSON bodies exactly as k8s.io/kube-scheduler/extender/v1, POSTed
to urlPrefix + "/" + verb with an overall deadline of httpTimeout); schedule_one.go gives
findNodesThatPassExtenders (filter_with_extenders), the extender part of prioritizeNodes
(prioritize_with_extenders) and extendersBinding (bind_with_extender); scheduler.go's
buildExtenders gives build_extenders. DefaultPreemption calls Extender.process_preemption.

Every call shows in the cycle's trace under the plugin name `extender:<urlPrefix>`, with a
`detail` holding the URL, what was sent and received, the latency (wall clock) or the error.
"""
from __future__ import annotations

import ipaddress
import json
import os
import socket
import ssl
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, date, datetime
from http.client import HTTPException, RemoteDisconnected
from urllib.parse import urlsplit

from ..errors import ConfigError, SchedulingError, is_int, json_kind
from ..framework.interfaces import MAX_NODE_SCORE
from ..framework.status import Code, Status
from ..plugins.defaultpreemption.preemption import Victims
from .config import ExtenderConfig, TLSConfig, decode_extender

MAX_EXTENDER_PRIORITY = 10
# The factor prioritizeNodes scales an extender's 0..10 scores by (int64 division in Go).
SCORE_SCALE = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
PLUGIN_PREFIX = "extender:"
# How much of an unexpected response body the trace quotes.
BODY_EXCERPT = 200


class ExtenderError(OSError):
    """A failed call: no connection, timeout, HTTP status, undecodable body or result.Error.

    An OSError so that DefaultPreemption's seam (which catches OSError and ValueError) and the
    scheduler treat every failure alike; str() is the message kube-scheduler would log.
    """


# --- JSON in Go's shape ------------------------------------------------------------------------
def _json_default(value):
    """YAML timestamps back to the RFC 3339 text Go's metav1.Time marshals."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _encode(args) -> bytes:
    return json.dumps(args, default=_json_default, separators=(",", ":")).encode()


class _Number(float):
    """A JSON number with a fraction or exponent, remembering its text for Go's messages."""

    text = ""


def _parse_float(text: str) -> _Number:
    number = _Number(text)
    number.text = text
    return number


_DECODER = json.JSONDecoder(parse_float=_parse_float)


def _go_quote_char(ch: str) -> str:
    return "'\\''" if ch == "'" else f"'{ch}'"


def _go_value_error(text: str, pos: int) -> str:
    """The scanner error Go gives where Python expected a value."""
    if pos >= len(text):
        return "unexpected EOF"
    literal = {"t": "true", "f": "false", "n": "null"}.get(text[pos])
    if literal is None:
        return f"invalid character {_go_quote_char(text[pos])} looking for beginning of value"
    for i, want in enumerate(literal):
        if pos + i >= len(text):
            return "unexpected EOF"
        if text[pos + i] != want:
            return (f"invalid character {_go_quote_char(text[pos + i])} in literal {literal} "
                    f"(expecting {_go_quote_char(want)})")
    return f"invalid character {_go_quote_char(text[pos])} looking for beginning of value"


def _decode_json(data: bytes):
    """json.Decoder.Decode: the first JSON value of the body; trailing bytes are not read."""
    text = data.decode("utf-8", errors="replace").lstrip(" \t\r\n")
    if not text:
        raise ExtenderError("EOF")
    try:
        value, _ = _DECODER.raw_decode(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Expecting value":
            raise ExtenderError(_go_value_error(text, exc.pos)) from None
        raise ExtenderError(f"invalid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})"
                            ) from None
    return value


class _Struct:
    """A Go struct type: its name and its fields (JSON name -> field type)."""

    def __init__(self, go_type: str, fields: dict):
        self.go_type = go_type
        self.name = go_type.rsplit(".", 1)[-1]
        self.fields = fields


class _Slice:
    def __init__(self, elem, go_type: str):
        self.elem, self.go_type = elem, go_type


class _Map:
    def __init__(self, elem, go_type: str):
        self.elem, self.go_type = elem, go_type


_OBJECT_META = _Struct("v1.ObjectMeta", {"name": "string", "uid": "string"})
_NODE = _Struct("v1.Node", {"metadata": _OBJECT_META})
_NODE_LIST = _Struct("v1.NodeList", {"items": _Slice(_NODE, "[]v1.Node")})
_FAILED_NODES = _Map("string", "v1.FailedNodesMap")
FILTER_RESULT = _Struct("v1.ExtenderFilterResult", {
    "Nodes": _NODE_LIST,
    "NodeNames": _Slice("string", "[]string"),
    "FailedNodes": _FAILED_NODES,
    "FailedAndUnresolvableNodes": _FAILED_NODES,
    "Error": "string",
})
HOST_PRIORITY_LIST = _Slice(_Struct("v1.HostPriority", {"Host": "string", "Score": "int64"}),
                            "v1.HostPriorityList")
BINDING_RESULT = _Struct("v1.ExtenderBindingResult", {"Error": "string"})
_META_VICTIMS = _Struct("v1.MetaVictims", {
    "Pods": _Slice(_Struct("v1.MetaPod", {"UID": "string"}), "[]*v1.MetaPod"),
    "NumPDBViolations": "int64",
})
PREEMPTION_RESULT = _Struct("v1.ExtenderPreemptionResult", {
    "NodeNameToMetaVictims": _Map(_META_VICTIMS, "map[string]*v1.MetaVictims"),
})


def decode(value, spec, struct: str = "", path: tuple = ()):
    """encoding/json's Unmarshal into a Go type: field names match case-insensitively, unknown
    fields are dropped, null leaves the zero value (None for slices, maps and pointers), and a
    value of the wrong kind fails with Go's own UnmarshalTypeError text."""
    def mismatch(kind: str, go_type: str):
        if not path:
            return ExtenderError(f"json: cannot unmarshal {kind} into Go value of type {go_type}")
        return ExtenderError(f"json: cannot unmarshal {kind} into Go struct field "
                             f"{struct}.{'.'.join(path)} of type {go_type}")

    if value is None:
        return {"string": "", "int64": 0}.get(spec) if isinstance(spec, str) else None
    if spec == "string":
        if not isinstance(value, str):
            raise mismatch(json_kind(value), "string")
        return value
    if spec == "int64":
        if isinstance(value, _Number):
            raise mismatch(f"number {value.text}", "int64")
        if not is_int(value):
            raise mismatch(json_kind(value), "int64")
        return value
    if isinstance(spec, _Slice):
        if not isinstance(value, list):
            raise mismatch(json_kind(value), spec.go_type)
        return [decode(item, spec.elem, struct, path) for item in value]
    if isinstance(spec, _Map):
        if not isinstance(value, dict):
            raise mismatch(json_kind(value), spec.go_type)
        return {key: decode(item, spec.elem, struct, path) for key, item in value.items()}
    if not isinstance(value, dict):
        raise mismatch(json_kind(value), spec.go_type)
    out: dict = {}
    folded = {name.casefold(): name for name in spec.fields}
    for key, item in value.items():
        name = key if key in spec.fields else folded.get(key.casefold())
        if name is not None:
            out[name] = decode(item, spec.fields[name], spec.name, (*path, name))
    return out


# --- requests ----------------------------------------------------------------------------------
def pod_json(pod) -> dict:
    """The pod as the API server would hold it: its manifest, with a namespace and a UID."""
    obj = dict(pod.obj)
    meta = dict(obj.get("metadata") or {})
    meta.setdefault("namespace", pod.namespace)
    meta.setdefault("uid", str(pod.uid))
    obj["metadata"] = meta
    return obj


def _node_args(ext: ExtenderConfig, pod, node_infos) -> dict:
    """ExtenderArgs: node names to a node-cache-capable extender, else the whole NodeList."""
    if ext.node_cache_capable:
        return {"Pod": pod_json(pod), "Nodes": None, "NodeNames": [ni.name for ni in node_infos]}
    items = [ni.node for ni in node_infos]
    return {"Pod": pod_json(pod), "Nodes": {"metadata": {}, "items": items}, "NodeNames": None}


def _args_summary(ext: ExtenderConfig, pod, node_infos) -> str:
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


# --- transport ---------------------------------------------------------------------------------
def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _ServerNameContext(ssl.SSLContext):
    """tls.Config.ServerName: verify (and send SNI for) a name other than the URL's host."""

    server_name = ""

    def wrap_socket(self, sock, *args, server_hostname=None, **kwargs):
        return super().wrap_socket(sock, *args, server_hostname=self.server_name or
                                   server_hostname, **kwargs)


def _load_cert_chain(ctx: ssl.SSLContext, tls: TLSConfig) -> None:
    """Client certificate from files or from data (ssl wants files: data goes through temp)."""
    paths, temps = [], []
    try:
        for file, data in ((tls.cert_file, tls.cert_data), (tls.key_file, tls.key_data)):
            if data:
                fd, path = tempfile.mkstemp(suffix=".pem")
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                temps.append(path)
                paths.append(path)
            else:
                paths.append(file or None)
        ctx.load_cert_chain(paths[0], paths[1])
    finally:
        for path in temps:
            os.unlink(path)


def ssl_context(ext: ExtenderConfig) -> ssl.SSLContext | None:
    """makeTransport: TLS settings from tlsConfig; enableHTTPS without a CA skips verification."""
    tls = ext.tls or TLSConfig()
    if tls.has_ca() and tls.insecure:
        raise ValueError("specifying a root certificates file with the insecure flag is not "
                         "allowed")
    insecure = tls.insecure or (ext.enable_https and not tls.has_ca())
    has_cert = bool(tls.cert_file or tls.cert_data)
    has_key = bool(tls.key_file or tls.key_data)
    if has_cert != has_key:
        raise ValueError("client certificate and key must be given together "
                         "(certFile/certData with keyFile/keyData)")
    if ext.tls is None and not ext.enable_https:
        return None
    ctx = _ServerNameContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.server_name = tls.server_name
    if insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif tls.has_ca():
        # A configured CA replaces the system roots, as a Go RootCAs pool does.
        ctx.load_verify_locations(cafile=tls.ca_file or None,
                                  cadata=tls.ca_data.decode() if tls.ca_data else None)
    else:
        ctx.load_default_certs()
    if has_cert:
        _load_cert_chain(ctx, tls)
    return ctx


def _opener(ext: ExtenderConfig, ctx: ssl.SSLContext | None):
    handlers = [urllib.request.HTTPSHandler(context=ctx)] if ctx is not None else []
    host = urlsplit(ext.url_prefix).hostname or ""
    if _is_loopback(host):
        # Go's ProxyFromEnvironment never proxies loopback; urllib would, from http_proxy.
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


def _transport_error(url: str, exc: BaseException) -> str:
    """The error text of a failed client.Do, worded as Go's net/http words it."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if isinstance(reason, ConnectionRefusedError):
        return f'Post "{url}": dial tcp {address}: connect: connection refused'
    if isinstance(reason, socket.gaierror):
        return f'Post "{url}": dial tcp: lookup {host}: no such host'
    if isinstance(reason, TimeoutError):
        return (f'Post "{url}": context deadline exceeded (Client.Timeout exceeded while '
                "awaiting headers)")
    if isinstance(reason, RemoteDisconnected):
        return f'Post "{url}": EOF'
    if isinstance(reason, ssl.SSLError):
        return f'Post "{url}": tls: {reason}'
    if isinstance(reason, str) and "unknown url type" in reason:
        return f'Post "{url}": unsupported protocol scheme "{parts.scheme}"'
    return f'Post "{url}": {reason}'


def _excerpt(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= BODY_EXCERPT else text[:BODY_EXCERPT] + "..."


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
        self._opener = _opener(config, ssl_context(config))
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
        url = call.url
        request = urllib.request.Request(url, data=_encode(args), method="POST",
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
            raise ExtenderError(_transport_error(url, failure))
        call.response = f"HTTP {status}, {len(data)} bytes"
        if status != 200:
            call.response += f": {_excerpt(data)}" if data else ""
            raise ExtenderError(f"failed {verb} with extender at URL {url}, code {status}")
        try:
            return decode(_decode_json(data), spec)
        except ExtenderError:
            call.response += f": {_excerpt(data)}"
            raise

    def new_call(self, verb: str, request: str) -> Call:
        return Call(verb, self.url(verb), request)

    # Verbs ----------------------------------------------------------------------------------
    def filter(self, pod, node_infos: list, call: Call):
        """(passing NodeInfos in the extender's order, failed, failed and unresolvable)."""
        args = _node_args(self.config, pod, node_infos)
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
        args = _node_args(self.config, pod, node_infos)
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


# --- the scheduling cycle's calls --------------------------------------------------------------
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
        call = ext.new_call(ext.config.filter_verb, _args_summary(ext.config, pod, feasible))
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
                            _args_summary(ext.config, pod, node_infos))
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
