"""Extenders over real HTTP: the sample extender runs in a thread on a loopback port and the
scheduler talks to it as kube-scheduler's HTTPExtender would (schedule_one_test.go and
extender_test.go cover the same ground with fake extenders)."""
from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from pathlib import Path

import pytest

from scheduler_core.config import API_VERSION, parse_configuration
from scheduler_core.extenders.client import build_extenders
from scheduler_core.extenders.decoding import (
    FILTER_RESULT,
    HOST_PRIORITY_LIST,
    PREEMPTION_RESULT,
    ExtenderError,
    decode,
)
from scheduler_core.extenders.dispatch import filter_with_extenders
from scheduler_core.extenders.sample import ExtenderServer, Rules
from scheduler_core.framework.diagnosis import Diagnosis
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo, Victims
from scheduler_core.loader import Cluster
from scheduler_core.observe import TraceObserver
from scheduler_core.scheduler import Scheduler
from scheduler_core.simulate import load_scheduler
from scheduler_core.testing import make_node, make_pod, pod_info

REPO = Path(__file__).resolve().parents[2]
MINIMAL_PLUGINS = {"multiPoint": {"enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}],
                                  "disabled": [{"name": "*"}]}}
GPU = "example.com/gpu"


@pytest.fixture
def start():
    """start(**rules) -> a running sample extender on 127.0.0.1, stopped after the test."""
    servers = []

    def start_server(nodes=(), **rules) -> ExtenderServer:
        server = ExtenderServer(Rules(**rules), port=0, nodes=nodes, quiet=True)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server

    yield start_server
    for server in servers:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ext(url: str, **fields) -> dict:
    return {"urlPrefix": url + "/scheduler", **fields}


def run(nodes, pods, extenders, plugins=None, plugin_config=None):
    """Schedule every pod once (or until bound); (scheduler, trace cycles)."""
    profile = {"schedulerName": "default-scheduler", "plugins": plugins or MINIMAL_PLUGINS}
    if plugin_config:
        profile["pluginConfig"] = plugin_config
    config = parse_configuration({"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration",
                                  "profiles": [profile], "extenders": extenders})
    trace = TraceObserver()
    scheduler = Scheduler(Cluster(nodes=nodes, pods=pods), config, observer=trace)
    scheduler.run(max_cycles=len(pods))
    return scheduler, trace.to_list()


NODES = [make_node("node-a", labels={"approved": "yes"}),
         make_node("node-b", labels={"approved": "yes", "fast": "true"}),
         make_node("node-c")]


def entry(cycle, node, plugin):
    return next(e for e in cycle["filter"][node] if e["plugin"] == plugin)


# --- filter ------------------------------------------------------------------------------------
def test_filter_failed_nodes_are_unschedulable_with_the_extenders_reason(start):
    server = start(require_label="approved")
    e = ext(server.url, filterVerb="filter")
    s, cycles = run(NODES, [make_pod("web")], [e])
    plugin = "extender:" + e["urlPrefix"]
    assert s.bindings["default/web"] in ("node-a", "node-b")
    rejected = entry(cycles[0], "node-c", plugin)
    assert rejected["code"] == "Unschedulable"
    assert rejected["reasons"] == ["node(s) didn't have label approved"]
    assert rejected["detail"]["url"] == e["urlPrefix"] + "/filter"
    assert rejected["detail"]["request"] == "pod default/web, 3 nodes (Nodes)"
    assert "2 passed, 1 failed" in rejected["detail"]["response"]
    assert entry(cycles[0], "node-a", plugin)["code"] == "Success"
    verb, body = server.requests[0]
    assert verb == "filter"
    assert set(body) == {"Pod", "Nodes", "NodeNames"} and body["NodeNames"] is None
    assert [n["metadata"]["name"] for n in body["Nodes"]["items"]] == ["node-a", "node-b", "node-c"]
    assert body["Pod"]["metadata"]["uid"] == "default/web"


def test_filter_rejecting_every_node_gives_kube_schedulers_message(start):
    server = start(require_label="gpu")
    s, cycles = run(NODES, [make_pod("web")], [ext(server.url, filterVerb="filter")])
    assert cycles[0]["outcome"] == "Unschedulable"
    assert cycles[0]["message"] == "0/3 nodes are available: 3 node(s) didn't have label gpu."
    assert s.queue.pending()[0].unschedulable_plugins == {"Extender"}


@pytest.mark.parametrize("unresolvable,code", [
    (False, Code.UNSCHEDULABLE), (True, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)],
    ids=["FailedNodes are Unschedulable (preemption may help)",
         "FailedAndUnresolvableNodes are UnschedulableAndUnresolvable (preemption skips them)"])
def test_failed_node_statuses(start, unresolvable, code):
    server = start(require_label="approved", unresolvable=unresolvable)
    extenders = build_extenders([ext(server.url, filterVerb="filter")])
    diagnosis = Diagnosis()
    passed = filter_with_extenders(extenders, pod_info(make_pod("web")),
                                   [NodeInfo(n) for n in NODES], diagnosis, None)
    assert [ni.name for ni in passed] == ["node-a", "node-b"]
    assert diagnosis.node_to_status.get("node-c") == \
        Status(code, "node(s) didn't have label approved")
    assert len(diagnosis.node_to_status) == 1


def test_extenders_filter_in_order_and_a_removed_node_is_not_sent_on(start):
    first, second = start(require_label="approved"), start(require_label="fast")
    s, cycles = run(NODES, [make_pod("web")],
                    [ext(first.url, filterVerb="filter"), ext(second.url, filterVerb="filter")])
    assert s.bindings["default/web"] == "node-b"
    sent = [n["metadata"]["name"] for n in second.requests[0][1]["Nodes"]["items"]]
    assert sent == ["node-a", "node-b"]
    assert [e["plugin"].split("/")[2] for e in cycles[0]["filter"]["node-a"]] == \
        [first.url.split("/")[2], second.url.split("/")[2]]
    assert [e["code"] for e in cycles[0]["filter"]["node-c"]] == ["Unschedulable"]


# --- prioritize --------------------------------------------------------------------------------
def test_prioritize_scales_scores_by_weight_and_max_node_score(start):
    server = start(prefer_label="fast")
    e = ext(server.url, prioritizeVerb="prioritize", weight=3)
    s, cycles = run(NODES, [make_pod("web")], [e])
    plugin = "extender:" + e["urlPrefix"]
    assert s.bindings["default/web"] == "node-b"
    scores = cycles[0]["score"][plugin]
    assert {n: (v["raw"], v["normalized"], v["weighted"]) for n, v in scores.items()} == {
        "node-a": (0, 0, 0), "node-b": (10, 100, 300), "node-c": (0, 0, 0)}
    assert cycles[0]["totalScore"] == {"node-a": 0, "node-b": 300, "node-c": 0}
    assert scores["node-b"]["detail"]["verb"] == "prioritize"


def test_prioritize_adds_to_the_score_plugins(start):
    server = start(prefer_label="fast")
    plugins = {"multiPoint": {"enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"},
                                          {"name": "NodeResourcesFit", "weight": 1}],
                              "disabled": [{"name": "*"}]}}
    nodes = [make_node("node-a", cpu="8"), make_node("node-b", cpu="4", labels={"fast": "1"})]
    s, cycles = run(nodes, [make_pod("web", cpu="2")],
                    [ext(server.url, prioritizeVerb="prioritize", weight=1)], plugins=plugins)
    fit = cycles[0]["score"]["NodeResourcesFit"]
    assert cycles[0]["totalScore"]["node-b"] == fit["node-b"]["weighted"] + 100
    assert s.bindings["default/web"] == "node-b"


# --- bind --------------------------------------------------------------------------------------
def test_bind_is_delegated_to_the_binding_extender(start):
    server = start()
    e = ext(server.url, bindVerb="bind")
    s, cycles = run(NODES[:1], [make_pod("web")], [e])
    assert s.bindings["default/web"] == "node-a"
    assert server.bindings == [{"PodName": "web", "PodNamespace": "default",
                                "PodUID": "default/web", "Node": "node-a"}]
    assert [(b["plugin"], b["code"]) for b in cycles[0]["bind"]] == \
        [("extender:" + e["urlPrefix"], "Success")]


def test_an_extender_not_interested_in_the_pod_leaves_binding_to_default_binder(start):
    server = start()
    e = ext(server.url, bindVerb="bind", managedResources=[{"name": GPU}])
    s, cycles = run(NODES[:1], [make_pod("web")], [e])
    assert s.bindings["default/web"] == "node-a"
    assert server.requests == []
    assert [b["plugin"] for b in cycles[0]["bind"]] == ["DefaultBinder"]


def test_a_failing_binder_fails_the_binding_cycle(start):
    server = start(mode="error")
    s, cycles = run(NODES[:1], [make_pod("web")], [ext(server.url, bindVerb="bind")])
    assert s.bindings["default/web"] is None
    assert cycles[0]["outcome"] == "Error"
    assert cycles[0]["message"] == "sample extender: --mode error"
    assert cycles[0]["bind"][0]["code"] == "Error"


def test_an_ignorable_failing_binder_falls_back_to_the_bind_plugins(start):
    server = start(mode="fail")
    e = ext(server.url, bindVerb="bind", ignorable=True)
    s, cycles = run(NODES[:1], [make_pod("web")], [e])
    assert s.bindings["default/web"] == "node-a"
    assert [(b["plugin"], b["code"]) for b in cycles[0]["bind"]] == [
        ("extender:" + e["urlPrefix"], "Skip"), ("DefaultBinder", "Success")]
    assert cycles[0]["bind"][0]["reasons"] == [
        f"failed bind with extender at URL {e['urlPrefix']}/bind, code 500"]


# --- nodeCacheCapable --------------------------------------------------------------------------
def test_node_cache_capable_extenders_get_node_names_only(start):
    server = start(nodes=NODES, require_label="approved", prefer_label="fast")
    e = ext(server.url, filterVerb="filter", prioritizeVerb="prioritize", weight=1,
            nodeCacheCapable=True)
    s, cycles = run(NODES, [make_pod("web")], [e])
    assert s.bindings["default/web"] == "node-b"
    (_, filter_args), (_, prioritize_args) = server.requests
    assert filter_args["Nodes"] is None
    assert filter_args["NodeNames"] == ["node-a", "node-b", "node-c"]
    assert prioritize_args["NodeNames"] == ["node-a", "node-b"]
    assert entry(cycles[0], "node-c", "extender:" + e["urlPrefix"])["detail"]["request"] == \
        "pod default/web, 3 node names (NodeNames)"


def test_a_node_name_outside_the_input_list_is_an_error(monkeypatch):
    extender, = build_extenders([{"urlPrefix": "http://127.0.0.1:1", "filterVerb": "filter",
                                  "nodeCacheCapable": True}])
    monkeypatch.setattr(extender, "send", lambda *args: {"NodeNames": ["node-a", "node-z"]})
    with pytest.raises(ExtenderError) as err:
        extender.filter(pod_info(make_pod("web")), [NodeInfo(NODES[0])],
                        extender.new_call("filter", ""))
    assert str(err.value) == ('extender "http://127.0.0.1:1" claims a filtered node "node-z" '
                              "which is not found in the input node list")


# --- managedResources --------------------------------------------------------------------------
def gpu_pod(name: str, where: str) -> dict:
    resources = {"limits": {GPU: "1"}} if where == "limits" else {"requests": {GPU: "1"}}
    container = {"name": "c", "image": "pause", "resources": resources}
    plain = {"name": "c", "image": "pause"}
    if where == "initContainers":
        return make_pod(name, containers=[plain], initContainers=[container])
    return make_pod(name, containers=[container])


@pytest.mark.parametrize("where", ["requests", "limits", "initContainers"])
def test_a_pod_requesting_a_managed_resource_is_sent_to_the_extender(start, where):
    server = start(require_label="approved")
    e = ext(server.url, filterVerb="filter", managedResources=[{"name": GPU}])
    s, _ = run(NODES, [gpu_pod("trainer", where)], [e])
    assert [verb for verb, _ in server.requests] == ["filter"]
    assert s.bindings["default/trainer"] in ("node-a", "node-b")


def test_a_pod_without_managed_resources_is_not_sent(start):
    server = start(require_label="approved")
    e = ext(server.url, filterVerb="filter", managedResources=[{"name": GPU}])
    s, cycles = run(NODES, [make_pod("web")], [e])
    assert server.requests == []
    assert cycles[0]["filter"] == {}


def test_ignored_by_scheduler_resources_are_left_out_of_node_resources_fit(start):
    server = start()
    plugins = {"multiPoint": {"enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"},
                                          {"name": "NodeResourcesFit"}],
                              "disabled": [{"name": "*"}]}}
    managed = [{"name": GPU, "ignoredByScheduler": True}]
    e = ext(server.url, filterVerb="filter", managedResources=managed)
    s, _ = run(NODES[:1], [gpu_pod("trainer", "requests")], [e], plugins=plugins)
    assert s.bindings["default/trainer"] == "node-a"
    e["managedResources"] = [{"name": GPU}]
    s, cycles = run(NODES[:1], [gpu_pod("trainer", "requests")], [e], plugins=plugins)
    assert cycles[0]["message"] == f"0/1 nodes are available: 1 Insufficient {GPU}."


# --- failures: timeouts, unreachable, ignorable, malformed -------------------------------------
def test_a_filter_timeout_fails_the_cycle(start):
    server = start(mode="slow", delay=1.0)
    e = ext(server.url, filterVerb="filter", httpTimeout="200ms")
    s, cycles = run(NODES, [make_pod("web")], [e])
    url = e["urlPrefix"] + "/filter"
    assert cycles[0]["outcome"] == "Error"
    assert cycles[0]["message"] == (f'Post "{url}": context deadline exceeded '
                                    "(Client.Timeout exceeded while awaiting headers)")
    node_a = entry(cycles[0], "node-a", "extender:" + e["urlPrefix"])
    assert node_a["code"] == "Error"
    assert node_a["detail"]["response"] == "no complete response within 0.2s (httpTimeout)"
    assert 150 <= node_a["detail"]["latencyMs"] < 1000
    assert s.bindings["default/web"] is None


def test_a_prioritize_timeout_only_loses_that_extenders_scores(start):
    server = start(mode="slow", delay=1.0, prefer_label="fast")
    e = ext(server.url, prioritizeVerb="prioritize", weight=1, httpTimeout="200ms")
    s, cycles = run(NODES, [make_pod("web")], [e])
    assert cycles[0]["outcome"] == "Bound"
    scores = cycles[0]["score"]["extender:" + e["urlPrefix"]]
    assert {v["weighted"] for v in scores.values()} == {0}
    assert "context deadline exceeded" in scores["node-b"]["detail"]["error"]
    assert "ignored" in scores["node-b"]["detail"]


def test_an_unreachable_extender_fails_the_cycle():
    port = closed_port()
    e = {"urlPrefix": f"http://127.0.0.1:{port}/scheduler", "filterVerb": "filter"}
    s, cycles = run(NODES, [make_pod("web")], [e])
    assert cycles[0]["outcome"] == "Error"
    assert cycles[0]["message"] == (f'Post "http://127.0.0.1:{port}/scheduler/filter": '
                                    f"dial tcp 127.0.0.1:{port}: connect: connection refused")
    assert s.bindings["default/web"] is None


def test_an_unreachable_ignorable_extender_is_skipped():
    port = closed_port()
    e = {"urlPrefix": f"http://127.0.0.1:{port}/scheduler", "filterVerb": "filter",
         "ignorable": True}
    s, cycles = run(NODES, [make_pod("web")], [e])
    assert cycles[0]["outcome"] == "Bound"
    skipped = cycles[0]["filter"]["node-c"][0]
    assert skipped["code"] == "Skip"
    assert "connection refused" in skipped["reasons"][0]
    assert skipped["detail"]["ignored"]


@pytest.mark.parametrize("ignorable,outcome", [(False, "Error"), (True, "Bound")],
                         ids=["a failing extender fails the cycle",
                              "a failing ignorable extender is skipped"])
def test_http_500(start, ignorable, outcome):
    server = start(mode="fail", require_label="approved")
    e = ext(server.url, filterVerb="filter", ignorable=ignorable)
    s, cycles = run(NODES, [make_pod("web")], [e])
    assert cycles[0]["outcome"] == outcome
    if not ignorable:
        assert cycles[0]["message"] == \
            f"failed filter with extender at URL {e['urlPrefix']}/filter, code 500"
    detail = cycles[0]["filter"]["node-a"][0]["detail"]
    assert detail["response"].startswith("HTTP 500")
    assert "failing on purpose" in detail["response"]


def test_ignorable_extenders_filter_after_the_others(start):
    ignorable, regular = start(require_label="approved"), start(require_label="approved")
    run(NODES, [make_pod("web")], [ext(ignorable.url, filterVerb="filter", ignorable=True),
                                   ext(regular.url, filterVerb="filter")])
    assert len(regular.requests[0][1]["Nodes"]["items"]) == 3
    assert len(ignorable.requests[0][1]["Nodes"]["items"]) == 2


def test_a_malformed_filter_response_fails_the_cycle(start):
    server = start(mode="malformed")
    e = ext(server.url, filterVerb="filter")
    _, cycles = run(NODES, [make_pod("web")], [e])
    assert cycles[0]["outcome"] == "Error"
    assert cycles[0]["message"] == "invalid character 'h' in literal true (expecting 'r')"
    detail = cycles[0]["filter"]["node-a"][0]["detail"]
    assert detail["response"] == "HTTP 200, 16 bytes: this is not JSON"
    assert detail["error"] == cycles[0]["message"]


def test_a_malformed_prioritize_response_is_ignored(start):
    server = start(mode="malformed")
    e = ext(server.url, prioritizeVerb="prioritize", weight=2)
    s, cycles = run(NODES, [make_pod("web")], [e])
    assert cycles[0]["outcome"] == "Bound"
    detail = cycles[0]["score"]["extender:" + e["urlPrefix"]]["node-a"]["detail"]
    assert detail["error"] == "invalid character 'h' in literal true (expecting 'r')"


def test_a_filter_result_error_fails_the_cycle(start):
    server = start(mode="error")
    _, cycles = run(NODES, [make_pod("web")], [ext(server.url, filterVerb="filter")])
    assert cycles[0]["outcome"] == "Error"
    assert cycles[0]["message"] == "sample extender: --mode error"


@pytest.mark.parametrize("value,spec,message", [
    ([], FILTER_RESULT,
     "json: cannot unmarshal array into Go value of type v1.ExtenderFilterResult"),
    ({"NodeNames": "node-a"}, FILTER_RESULT, "json: cannot unmarshal string into Go struct "
     "field ExtenderFilterResult.NodeNames of type []string"),
    ({"FailedNodes": {"node-a": 1}}, FILTER_RESULT, "json: cannot unmarshal number into Go "
     "struct field ExtenderFilterResult.FailedNodes of type string"),
    ({"Nodes": {"items": [{"metadata": {"name": 7}}]}}, FILTER_RESULT,
     "json: cannot unmarshal number into Go struct field "
     "ObjectMeta.Nodes.items.metadata.name of type string"),
    ({"Host": "a", "Score": 1}, HOST_PRIORITY_LIST,
     "json: cannot unmarshal object into Go value of type v1.HostPriorityList"),
    ([{"Host": "a", "Score": "10"}], HOST_PRIORITY_LIST, "json: cannot unmarshal string into "
     "Go struct field HostPriority.Score of type int64"),
    ({"NodeNameToMetaVictims": []}, PREEMPTION_RESULT, "json: cannot unmarshal array into Go "
     "struct field ExtenderPreemptionResult.NodeNameToMetaVictims of type "
     "map[string]*v1.MetaVictims"),
], ids=["filter result not an object", "node names not a list", "failed node reason not a "
        "string", "node name not a string", "priorities not a list", "score not a number",
        "meta victims not a map"])
def test_results_of_the_wrong_shape_fail_as_go_decodes_them(value, spec, message):
    with pytest.raises(ExtenderError) as err:
        decode(value, spec)
    assert str(err.value) == message


def test_fractional_scores_fail_and_field_names_match_case_insensitively():
    from scheduler_core.extenders.decoding import decode_json as _decode_json
    with pytest.raises(ExtenderError, match=r"cannot unmarshal number 2\.5 into Go struct field "
                                            r"HostPriority\.Score of type int64"):
        decode(_decode_json(b'[{"Host": "a", "Score": 2.5}]'), HOST_PRIORITY_LIST)
    assert decode(_decode_json(b'[{"host": "a", "SCORE": 3}] trailing'), HOST_PRIORITY_LIST) == \
        [{"Host": "a", "Score": 3}]
    assert decode(None, FILTER_RESULT) is None


# --- preemption (DefaultPreemption's seam) ----------------------------------------------------
def preemption_setup(start, node_cache_capable):
    nodes = [make_node("node-a", labels={"approved": "yes"}), make_node("node-c")]
    victims = {"node-a": pod_info(make_pod("low-a", node_name="node-a")),
               "node-c": pod_info(make_pod("low-c", node_name="node-c"))}
    server = start(nodes=nodes, require_label="approved")
    extender, = build_extenders([ext(server.url, preemptVerb="preempt",
                                     nodeCacheCapable=node_cache_capable)])
    snapshot = Snapshot.from_objects(nodes, list(victims.values()))
    offered = {node: Victims([pod], 1) for node, pod in victims.items()}
    return server, extender, snapshot, offered


@pytest.mark.parametrize("node_cache_capable", [False, True],
                         ids=["full victims", "meta victims (nodeCacheCapable)"])
def test_process_preemption_narrows_the_candidates(start, node_cache_capable):
    server, extender, snapshot, offered = preemption_setup(start, node_cache_capable)
    result = extender.process_preemption(pod_info(make_pod("high")), offered, snapshot)
    assert list(result) == ["node-a"]
    assert [p.key for p in result["node-a"].pods] == ["default/low-a"]
    assert result["node-a"].num_pdb_violations == 1
    _, args = server.requests[0]
    if node_cache_capable:
        assert args["NodeNameToVictims"] is None
        assert args["NodeNameToMetaVictims"]["node-a"] == {
            "Pods": [{"UID": "default/low-a"}], "NumPDBViolations": 1}
    else:
        assert args["NodeNameToMetaVictims"] is None
        assert args["NodeNameToVictims"]["node-a"]["Pods"][0]["metadata"]["name"] == "low-a"


def test_process_preemption_rejects_a_victim_that_is_not_on_the_node(start):
    _, extender, snapshot, offered = preemption_setup(start, True)
    offered["node-a"] = Victims([pod_info(make_pod("ghost"))], 0)
    with pytest.raises(ExtenderError) as err:
        extender.process_preemption(pod_info(make_pod("high")), offered, snapshot)
    assert str(err.value) == (f"extender: {extender.name()} claims to preempt pod (UID: "
                              "&{default/ghost}) on node: node-a, but the pod is not found on "
                              "that node")


def test_process_preemption_errors_are_os_errors():
    """DefaultPreemption catches OSError and ValueError from the seam."""
    extender, = build_extenders([{"urlPrefix": f"http://127.0.0.1:{closed_port()}",
                                  "preemptVerb": "preempt"}])
    with pytest.raises(OSError, match="connection refused"):
        extender.process_preemption(pod_info(make_pod("high")), {}, None)


# --- HTTPS -------------------------------------------------------------------------------------
@pytest.fixture
def certificate(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=extender.test", "-addext", "subjectAltName=DNS:extender.test",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def https(start, certificate) -> ExtenderServer:
    server = start(require_label="approved")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(*certificate)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    return server


def test_https_with_a_ca_and_server_name(start, certificate):
    import base64
    server = https(start, certificate)
    url = server.url.replace("http://", "https://")
    ca = base64.b64encode(certificate[0].read_bytes()).decode()
    e = {"urlPrefix": url, "filterVerb": "filter", "enableHTTPS": True,
         "tlsConfig": {"caData": ca, "serverName": "extender.test"}}
    s, _ = run(NODES, [make_pod("web")], [e])
    assert s.bindings["default/web"] in ("node-a", "node-b")
    e["tlsConfig"] = {"caData": ca}  # the certificate does not name 127.0.0.1
    _, cycles = run(NODES, [make_pod("web")], [e])
    assert cycles[0]["outcome"] == "Error"
    assert cycles[0]["message"].startswith(f'Post "{url}/filter": tls: ')


def test_enable_https_without_a_ca_skips_verification(start, certificate):
    server = https(start, certificate)
    e = {"urlPrefix": server.url.replace("http://", "https://"), "filterVerb": "filter",
         "enableHTTPS": True}
    s, _ = run(NODES, [make_pod("web")], [e])
    assert s.bindings["default/web"] in ("node-a", "node-b")


# --- the lesson fixture ------------------------------------------------------------------------
def test_the_extender_lesson_fixture(start):
    server = start(require_label="extender.example.com/approved",
                   prefer_label="extender.example.com/fast")
    path = str(REPO / "fixtures" / "extender-lesson.yaml")
    text = Path(path).read_text().replace("http://127.0.0.1:8888", server.url)
    trace = TraceObserver()
    scheduler = load_scheduler([path], texts={path: text}, observer=trace)
    scheduler.run()
    bound = {pod: node for pod, node in scheduler.bindings.items() if node}
    assert bound and all(node in ("node-1", "node-2") for node in bound.values())
    assert scheduler.bindings["default/web-1"] == "node-2"
