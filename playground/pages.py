"""The browser pages and the few JSON helpers only they need.

Pages are Django templates that load plain ES modules from frontend/js/; every piece of data
they show comes from the REST API, the run websocket, or the helpers below. The helpers are
not REST resources: they convert YAML for the profile editor, expand a profile into the
plugins each extension point runs (the engine's own expansion, so the preview never
disagrees with a run), describe a run's objects for tooltips and history, list a run's
cycles compactly for the history slider, give the run page its first view in one response,
and run the engine twice for the compare view.
"""

from __future__ import annotations

import copy
from functools import wraps

import yaml
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from playground.clusters.object_detail import local_volumes, pod_constraints
from playground.clusters.selectors import clusters_visible_to
from playground.clusters.services import cluster_manifests
from playground.engine import out_of_tree_plugins
from playground.models import CycleRecord, stored_trace
from playground.profiles.selectors import profile_label
from playground.runs.memo import documents_key, objects_memo
from playground.runs.selectors import run_writable_by, runs_visible_to
from playground.runs.state import snapshot
from playground.workshops.lessons import lesson_text
from scheduler_core.build import build_scheduler
from scheduler_core.config import parse_configuration
from scheduler_core.errors import ConfigError, InputError
from scheduler_core.framework.runtime import FrameworkError, expand_plugins
from scheduler_core.framework.types import Resource
from scheduler_core.loader import load_documents
from scheduler_core.plugins.registry import default_registry
from scheduler_core.safe_read import read_json, read_yaml
from scheduler_core.session import node_usage

# The app's own sign-in page (playground.workshops.pages.SignInView).
LOGIN_URL = "/login/"
# The compare view runs the engine twice inside the request, without a trace (the path of
# `simulate --output summary`): 5,000 nodes is what a workshop cluster reaches.
COMPARE_MAX_NODES = 5000
COMPARE_MAX_PODS = 3000
DEFAULT_GRACE_PERIOD = 30.0

page = login_required(login_url=LOGIN_URL)


def json_login_required(view):
    """Like login_required, but answers a fetch() with 403 JSON instead of a login redirect."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return JsonResponse({"detail": "Authentication credentials were not provided."},
                                status=403)
        return view(request, *args, **kwargs)

    return wrapper


def _body(request) -> dict:
    try:
        data = read_json(request.body.decode("utf-8") or "{}", source="request body")
    except (InputError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


# --- pages ------------------------------------------------------------------------------


@page
def clusters_page(request):
    return render(request, "playground/pages/clusters.html", {"page": "clusters"})


@page
def cluster_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "playground/pages/cluster.html",
                  {"page": "cluster", "cluster": cluster})


@page
def profile_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "playground/pages/profile.html",
                  {"page": "profile", "cluster": cluster})


@page
def compare_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "playground/pages/compare.html",
                  {"page": "compare", "cluster": cluster})


@page
def run_page(request, pk: int):
    run = get_object_or_404(runs_visible_to(request.user).select_related("cluster"), pk=pk)
    return render(request, "playground/pages/run.html",
                  {"page": "run", "run": run, "cluster": run.cluster,
                   "lesson_text": lesson_text(run.cluster, spoilers=True)})


# --- helpers ------------------------------------------------------------------------------


class _ConfigDumper(yaml.SafeDumper):
    """Block style, keys in the given order: reads like a hand-written configuration."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


@require_POST
@json_login_required
def yaml_convert(request):
    """{"data": {...}} -> {"text": "..."}; {"text": "..."} -> {"data": {...}} or {"error"}.

    Half-typed YAML is the normal state of an editor, not a failed request: a parse error is
    an answer (200 with "error" and "line"), so typing does not fill the console with 400s.
    """
    body = _body(request)
    if "data" in body:
        text = yaml.dump(body["data"], Dumper=_ConfigDumper, sort_keys=False,
                         default_flow_style=False, allow_unicode=True)
        return JsonResponse({"text": text})
    try:
        docs = read_yaml(body.get("text") or "", source="text")
    except InputError as exc:
        # The parser's own error (exc.__cause__) knows the line; a limit names none.
        mark = getattr(exc.__cause__, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc.__cause__, "problem", None) or str(exc)
        return JsonResponse({"error": f"line {line}: {problem}" if line else problem,
                             "line": line})
    data = (docs[0] if len(docs) == 1 else docs) or {}
    if not isinstance(data, dict):
        return JsonResponse({"error": "a KubeSchedulerConfiguration must be a mapping",
                             "line": 1})
    return JsonResponse({"data": data})


def expand_profiles(config: dict | None) -> dict:
    """What each profile runs at each extension point, or kube-scheduler's messages."""
    registry = default_registry(out_of_tree_plugins())
    try:
        cfg = parse_configuration(config, registry)
    except ConfigError as exc:
        return {"ok": False, "errors": exc.errors}
    except InputError as exc:
        return {"ok": False, "errors": [str(exc)]}
    profiles = []
    for i, profile in enumerate(cfg.profiles):
        try:
            points, weights = expand_plugins(profile, registry)
        except FrameworkError as exc:
            return {"ok": False, "errors": [f"profiles[{i}]: {exc}"]}
        profiles.append({"schedulerName": profile.scheduler_name, "points": points,
                         "weights": weights, "pluginConfig": profile.plugin_config})
    return {"ok": True, "errors": [], "profiles": profiles}


@require_POST
@json_login_required
def profile_check(request):
    return JsonResponse(expand_profiles(_body(request).get("config")))


def _resources(res) -> dict:
    out = {"cpu": res.milli_cpu, "memory": res.memory}
    if res.ephemeral_storage:
        out["ephemeral-storage"] = res.ephemeral_storage
    out.update(res.scalar)
    return out


def describe_objects(documents: list) -> dict:
    """Nodes (labels, taints, allocatable, local volumes) and pods (requests, priority,
    grace, scheduling constraints) of a run (its documents were checked when stored)."""
    cluster = load_documents([("run", documents)], checked=True)
    volumes = local_volumes(cluster.objects.pvs.values())
    nodes = {}
    for manifest in cluster.nodes:
        meta, spec = manifest.get("metadata") or {}, manifest.get("spec") or {}
        alloc = Resource.from_list((manifest.get("status") or {}).get("allocatable") or {})
        nodes[meta.get("name", "")] = {
            "labels": meta.get("labels") or {},
            "taints": spec.get("taints") or [],
            "unschedulable": bool(spec.get("unschedulable")),
            "allocatable": _resources(alloc) | {"pods": alloc.allowed_pod_number},
            "volumes": volumes.get(meta.get("name", ""), []),
        }
    pods = {}
    for pi in cluster.pod_infos():
        grace = pi.spec.get("terminationGracePeriodSeconds")
        pods[pi.key] = {
            "requests": _resources(pi.requests),
            "priority": pi.priority,
            "node": pi.node_name or None,
            "grace": DEFAULT_GRACE_PERIOD if grace is None else float(grace),
            "gates": pi.scheduling_gates,
            **pod_constraints(pi.spec),
        }
    return {"nodes": nodes, "pods": pods}


def _visible_run(request, pk: int):
    # The documents load only when the objects memo has to be filled.
    return get_object_or_404(runs_visible_to(request.user).select_related("cluster"), pk=pk)


def _run_objects(run) -> dict:
    """The run's described objects and Score weights (InputError: documents it cannot read)."""
    # A copy of the memo's dict: the weights below are added to this response only.
    objects = dict(objects_memo.get(documents_key(run), lambda: describe_objects(run.documents)))
    # Score weights as the framework runs them, so the Score table can say "×1" for a plugin
    # whose scores were all 0 (the trace's arithmetic cannot show its weight then).
    expanded = expand_profiles(run.config)
    objects["weights"] = {p["schedulerName"]: p["weights"] for p in expanded.get("profiles", [])}
    return objects


@require_GET
@json_login_required
def run_objects(request, pk: int):
    try:
        return JsonResponse(_run_objects(_visible_run(request, pk)))
    except InputError as exc:
        return JsonResponse({"detail": str(exc)}, status=400)


@require_GET
@json_login_required
def run_view(request, pk: int):
    """What the run page shows first, in one response (one read of the run): the socket's
    snapshot with every node of the engine state and whether the user may drive the run, the
    run's objects and its stored cycles. ?part=state: the snapshot alone (a refresh)."""
    run = _visible_run(request, pk)
    view = snapshot(run.pk, max_nodes=None)
    view["run"]["canControl"] = run_writable_by(run, request.user)
    if request.GET.get("part") != "state":
        try:
            view["objects"] = _run_objects(run)
        except InputError as exc:
            return JsonResponse({"detail": str(exc)}, status=400)
        view["timeline"] = _cycle_rows(run)
    return JsonResponse(view)


@require_GET
@json_login_required
def run_timeline(request, pk: int):
    """Every stored cycle in a few fields: what the history slider and "why pending" walk."""
    return JsonResponse({"cycles": _cycle_rows(_visible_run(request, pk))})


def _cycle_rows(run) -> list:
    cycles = CycleRecord.objects.filter(run=run).order_by("index")
    # Only the few cycles that preempted are read whole.
    preempting = {index: stored_trace(legacy, packed)["preemption"]
                  for index, legacy, packed in cycles.filter(preempted=True).values_list(
                      "index", "legacy_trace", "packed")}
    rows = cycles.values_list("index", "time", "pod", "outcome", "node")
    return [[*r, preempting.get(r[0])] for r in rows]


def _simulate(documents: list, config: dict | None, seed: int) -> dict:
    # The engine writes into the manifests it loads (spec.nodeName on binding): give it a copy.
    cluster = load_documents([("cluster", copy.deepcopy(documents))])
    sched = build_scheduler(cluster, config, seed=seed, out_of_tree=out_of_tree_plugins())
    sched.run()
    usage = {ni.name: node_usage(ni) for ni in sched.cache.node_infos.values()}
    return {"bindings": dict(sched.bindings), "pending": sched.pending_reasons(),
            "usage": usage, "cycles": sched.cycle_count, "time": sched.clock}


@require_POST
@json_login_required
def compare(request, pk: int):
    """The cluster scheduled under two configurations, same seed: bindings and utilization."""
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    body = _body(request)
    documents = list(cluster_manifests(cluster))
    kinds = [d.get("kind") for d in documents]
    if kinds.count("Node") > COMPARE_MAX_NODES or kinds.count("Pod") > COMPARE_MAX_PODS:
        return JsonResponse({"detail": f"compare runs clusters of up to {COMPARE_MAX_NODES} "
                             f"nodes and {COMPARE_MAX_PODS} pods; start two runs instead"},
                            status=413)
    try:
        seed = int(body.get("seed") or 0)
    except (TypeError, ValueError):
        return JsonResponse({"seed": ["A valid integer is required."]}, status=400)
    errors, results = {}, {}
    for side in ("a", "b"):
        check = expand_profiles(body.get(side))
        if not check["ok"]:
            errors[side] = check["errors"]
            continue
        try:
            results[side] = _simulate(documents, body.get(side), seed)
        except InputError as exc:
            errors[side] = [str(exc)]
    if errors:
        return JsonResponse(errors, status=400)
    return JsonResponse({"seed": seed, **results})


def _run_usage(objects: dict, bindings: dict) -> dict:
    """Each node's cpu, memory and pod count as [requested, allocatable] under `bindings`."""
    usage = {name: {key: [0, node["allocatable"].get(key, 0)] for key in ("cpu", "memory", "pods")}
             for name, node in objects["nodes"].items()}
    for pod, node in bindings.items():
        if node in usage:
            requests = objects["pods"].get(pod, {}).get("requests", {})
            usage[node]["cpu"][0] += requests.get("cpu", 0)
            usage[node]["memory"][0] += requests.get("memory", 0)
            usage[node]["pods"][0] += 1
    return usage


def _run_side(run) -> dict:
    """A stored run where it stands: its bindings, why the others wait, the nodes' usage."""
    objects = describe_objects(run.documents)
    bindings = {key: pod["node"] for key, pod in objects["pods"].items()}
    bindings.update(run.results().get("bindings") or {})
    waiting = [pod for pod, node in bindings.items() if not node]
    # The last message of each waiting pod's cycles: later rows overwrite earlier ones.
    pending = dict(CycleRecord.objects.filter(run=run, pod__in=waiting).exclude(message="")
                   .order_by("index").values_list("pod", "message"))
    return {"bindings": bindings, "pending": pending, "usage": _run_usage(objects, bindings),
            "cycles": run.cycle_count, "time": run.virtual_time,
            "run": {"id": run.pk, "name": run.name or f"run {run.pk}", "status": run.status,
                    "profile": profile_label(run.config)}}


@require_GET
@json_login_required
def compare_runs(request):
    """Two stored runs of one cluster, diffed where each stands: ?a=<run id>&b=<run id>."""
    visible = runs_visible_to(request.user)
    try:
        ids = {side: int(request.GET.get(side, "")) for side in ("a", "b")}
    except ValueError:
        return JsonResponse({"detail": "compare needs two run ids: ?a=<id>&b=<id>"}, status=400)
    runs = {side: get_object_or_404(visible, pk=pk) for side, pk in ids.items()}
    if runs["a"].cluster_id != runs["b"].cluster_id:
        return JsonResponse({"detail": f"run {ids['a']} and run {ids['b']} are of different "
                             "clusters; compare two runs of one cluster"}, status=400)
    try:
        return JsonResponse({side: _run_side(run) for side, run in runs.items()})
    except InputError as exc:
        return JsonResponse({"detail": str(exc)}, status=400)


urlpatterns = [
    path("clusters/", clusters_page, name="page-clusters"),
    path("clusters/<int:pk>/", cluster_page, name="page-cluster"),
    path("clusters/<int:pk>/profile/", profile_page, name="page-profile"),
    path("clusters/<int:pk>/compare/", compare_page, name="page-compare"),
    path("runs/<int:pk>/", run_page, name="page-run"),
    path("ui/yaml/", yaml_convert, name="ui-yaml"),
    path("ui/profile/check/", profile_check, name="ui-profile-check"),
    path("ui/runs/<int:pk>/objects/", run_objects, name="ui-run-objects"),
    path("ui/runs/<int:pk>/view/", run_view, name="ui-run-view"),
    path("ui/runs/<int:pk>/timeline/", run_timeline, name="ui-run-timeline"),
    path("ui/clusters/<int:pk>/compare/", compare, name="ui-compare"),
    path("ui/runs/compare/", compare_runs, name="ui-compare-runs"),
]
