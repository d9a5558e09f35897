"""A sample scheduler extender, to run beside the playground and watch it in the trace.

    python -m scheduler_core.extenders.sample --port 8888 [--require-label KEY]
        [--prefer-label KEY] [--unresolvable] [--nodes FILE] [--mode MODE] [--delay SECONDS]

It listens on 127.0.0.1 and answers every verb of the extender v1 protocol under any URL
prefix (POST .../filter, .../prioritize, .../bind, .../preempt), so a configuration with
`urlPrefix: http://127.0.0.1:8888/scheduler` reaches it. The rules are the `Rules` methods
below; edit them to teach something else:

- filter: a node must carry the label --require-label (any value); the others fail with
  "node(s) didn't have label KEY", in FailedNodes, or FailedAndUnresolvableNodes with
  --unresolvable (then preemption will not try them);
- prioritize: 10 for a node with the label --prefer-label, else 0;
- bind: accepted and remembered (a real extender would create the Binding);
- preempt: keeps the victims on nodes that pass the filter rule, drops the others.

--mode shows what the scheduler does when an extender misbehaves: `slow` waits --delay
seconds before answering (a timeout once that exceeds httpTimeout), `fail` answers HTTP 500,
`malformed` answers 200 with a body that is not JSON, `error` answers with the result's Error
field set. A node-cache-capable configuration sends node names only: the extender then judges
the nodes it has seen in earlier requests or loaded with --nodes.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = ("normal", "slow", "fail", "malformed", "error")
MAX_EXTENDER_PRIORITY = 10


@dataclass
class Rules:
    require_label: str = ""
    prefer_label: str = ""
    unresolvable: bool = False
    mode: str = "normal"
    delay: float = 5.0

    # The rules themselves ------------------------------------------------------------------
    def reject_reason(self, pod: dict, node: dict) -> str:
        """Why the pod may not run on the node ("" when it may)."""
        labels = (node.get("metadata") or {}).get("labels") or {}
        if self.require_label and self.require_label not in labels:
            return f"node(s) didn't have label {self.require_label}"
        return ""

    def score(self, pod: dict, node: dict) -> int:
        """0..10: how much the extender likes the node for the pod."""
        labels = (node.get("metadata") or {}).get("labels") or {}
        return MAX_EXTENDER_PRIORITY if self.prefer_label and self.prefer_label in labels else 0


def _name(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name", "")


class ExtenderServer(ThreadingHTTPServer):
    """The HTTP server: its rules, the nodes it knows, and what it was asked (for tests)."""

    daemon_threads = True

    def __init__(self, rules: Rules, port: int = 0, host: str = "127.0.0.1",
                 nodes=(), quiet: bool = False):
        super().__init__((host, port), _Handler)
        self.rules = rules
        self.quiet = quiet
        self.node_cache: dict[str, dict] = {_name(n): n for n in nodes}
        self.requests: list[tuple[str, object]] = []
        self.bindings: list[dict] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    # Verbs ----------------------------------------------------------------------------------
    def _nodes(self, args: dict) -> tuple[list[dict], bool]:
        """The candidate nodes, and whether the scheduler sent names only."""
        names = args.get("NodeNames")
        if names is not None:
            return [self.node_cache.get(n) or {"metadata": {"name": n}} for n in names], True
        nodes = (args.get("Nodes") or {}).get("items") or []
        with self.lock:
            self.node_cache.update({_name(n): n for n in nodes})
        return nodes, False

    def filter(self, args: dict) -> dict:
        pod = args.get("Pod") or {}
        nodes, names_only = self._nodes(args)
        passed, failed = [], {}
        for node in nodes:
            name = _name(node)
            if names_only and name not in self.node_cache:
                reason = "node unknown to the extender's cache (start it with --nodes)"
            else:
                reason = self.rules.reject_reason(pod, node)
            if reason:
                failed[name] = reason
            else:
                passed.append(node)
        unresolvable = failed if self.rules.unresolvable else {}
        return {
            "Nodes": None if names_only else {"metadata": {}, "items": passed},
            "NodeNames": [_name(n) for n in passed] if names_only else None,
            "FailedNodes": {} if self.rules.unresolvable else failed,
            "FailedAndUnresolvableNodes": unresolvable,
            "Error": "",
        }

    def prioritize(self, args: dict) -> list:
        pod = args.get("Pod") or {}
        nodes, _ = self._nodes(args)
        return [{"Host": _name(n), "Score": self.rules.score(pod, n)} for n in nodes]

    def bind(self, args: dict) -> dict:
        with self.lock:
            self.bindings.append(dict(args))
        return {"Error": ""}

    def preempt(self, args: dict) -> dict:
        pod = args.get("Pod") or {}
        out = {}
        if args.get("NodeNameToMetaVictims") is not None:
            offered = {node: [p.get("UID", "") for p in (v or {}).get("Pods") or []]
                       for node, v in args["NodeNameToMetaVictims"].items()}
            victims = args["NodeNameToMetaVictims"]
        else:
            victims = args.get("NodeNameToVictims") or {}
            offered = {node: [(p.get("metadata") or {}).get("uid", "")
                              for p in (v or {}).get("Pods") or []]
                       for node, v in victims.items()}
        for node_name, uids in offered.items():
            node = self.node_cache.get(node_name)
            if node is not None and self.rules.reject_reason(pod, node):
                continue  # the pod could not run there anyway: no point evicting anyone
            out[node_name] = {"Pods": [{"UID": uid} for uid in uids],
                              "NumPDBViolations": (victims[node_name] or {}).get(
                                  "NumPDBViolations", 0)}
        return {"NodeNameToMetaVictims": out}


class _Handler(BaseHTTPRequestHandler):
    server: ExtenderServer
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802 - the name BaseHTTPRequestHandler dispatches to
        start = time.perf_counter()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        verb = self.path.rstrip("/").rsplit("/", 1)[-1]
        try:
            args = json.loads(raw or b"null")
        except json.JSONDecodeError:
            args = None
        with self.server.lock:
            self.server.requests.append((verb, args))
        rules = self.server.rules
        handler = {"filter": self.server.filter, "prioritize": self.server.prioritize,
                   "bind": self.server.bind, "preempt": self.server.preempt}.get(verb)
        if rules.mode == "slow":
            time.sleep(rules.delay)
        if handler is None:
            status, body = 404, f"unknown verb {verb!r}\n".encode()
        elif not isinstance(args, dict):
            status, body = 400, b"the request body is not a JSON object\n"
        elif rules.mode == "fail":
            status, body = 500, b"sample extender: failing on purpose (--mode fail)\n"
        elif rules.mode == "malformed":
            status, body = 200, b"this is not JSON"
        elif rules.mode == "error" and verb != "prioritize":
            status, body = 200, json.dumps({"Error": "sample extender: --mode error"}).encode()
        else:
            status, body = 200, json.dumps(handler(args)).encode()
        self._reply(status, body)
        if not self.server.quiet:
            took = (time.perf_counter() - start) * 1000
            print(f"{verb:<10} {status} {_summary(verb, args)} ({took:.1f} ms)", file=sys.stderr)

    def _reply(self, status: int, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the scheduler gave up waiting (httpTimeout): nobody is listening any more

    def log_message(self, format, *args):  # noqa: A002 - BaseHTTPRequestHandler's signature
        pass  # do_POST prints one line of its own


def _summary(verb: str, args) -> str:
    if not isinstance(args, dict):
        return "-"
    pod = (args.get("Pod") or {}).get("metadata") or {}
    who = f"{pod.get('namespace', '')}/{pod.get('name', '')}" if pod else args.get("PodName")
    if verb in ("filter", "prioritize"):
        names = args.get("NodeNames")
        count = len(names) if names is not None else len((args.get("Nodes") or {})
                                                          .get("items") or [])
        return f"pod {who}, {count} nodes"
    if verb == "bind":
        return f"pod {args.get('PodNamespace')}/{args.get('PodName')} -> {args.get('Node')}"
    return f"pod {who}"


def _load_nodes(paths: list[str]) -> list[dict]:
    from ..loader import load_files
    return load_files(paths).nodes if paths else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduler_core.extenders.sample",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8888)
    parser.add_argument("--require-label", default="", metavar="KEY",
                        help="filter: nodes must have this label")
    parser.add_argument("--prefer-label", default="", metavar="KEY",
                        help="prioritize: 10 for nodes with this label, else 0")
    parser.add_argument("--unresolvable", action="store_true",
                        help="report filtered nodes as FailedAndUnresolvableNodes")
    parser.add_argument("--nodes", action="append", default=[], metavar="FILE",
                        help="YAML with the cluster's nodes, for nodeCacheCapable requests")
    parser.add_argument("--mode", choices=MODES, default="normal")
    parser.add_argument("--delay", type=float, default=5.0,
                        help="seconds the slow mode waits before answering")
    args = parser.parse_args(argv)
    rules = Rules(args.require_label, args.prefer_label, args.unresolvable, args.mode,
                  args.delay)
    server = ExtenderServer(rules, args.port, nodes=_load_nodes(args.nodes))
    print(f"sample extender on {server.url} ({rules})", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
