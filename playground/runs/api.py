"""/api/runs/: runs created, renamed, deleted and driven (start, step, pause, resume, reset),
their cycles, state and exports; and the run page's reads: its first view in one response,
its objects described, its cycles in a few fields, and two runs of one cluster side by side.

Thin: runs.selectors and runs.state read, runs.services and runs.export write and export
(raising ServiceError subclasses, answered with field paths); nothing here runs the engine
itself. A run the user may not see is 404; one they may see but not change is 403.
"""
from __future__ import annotations

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from playground.api import serializers as s
from playground.api.base import (
    READ_ERRORS,
    WRITE_ERRORS,
    YAML_DOCUMENTS,
    IgnoreFormatNegotiation,
    PlaygroundMixin,
    errors,
)
from playground.clusters.selectors import clusters_visible_to
from playground.clusters.services import INT64_MAX
from playground.errors import InvalidInput
from playground.runs import services as runs
from playground.runs.export import (
    run_export_annotated,
    run_export_json_chunks,
    run_export_simulator_json,
)
from playground.runs.models import Run
from playground.runs.selectors import (
    compare_runs,
    cycle_rows,
    cycles_of,
    run_objects,
    run_writable_by,
    runs_visible_to,
)
from playground.runs.services import run_create
from playground.runs.state import run_state, snapshot
from scheduler_core.errors import InputError

OBJECTS = OpenApiResponse(OpenApiTypes.OBJECT, description=(
    "{nodes: {name: {labels, taints, unschedulable, allocatable, volumes}}, pods: "
    "{namespace/name: {requests, priority, node, grace, gates, constraints...}}, weights: "
    "{schedulerName: {plugin: Score weight}}}"))
ROWS = OpenApiResponse(OpenApiTypes.OBJECT, description=(
    "{cycles: [[index, time, pod, outcome, node, preemption or null], ...]}"))


def _objects(run) -> dict:
    try:
        return run_objects(run)
    except InputError as exc:  # documents stored before a loader check that now refuses them
        raise InvalidInput({"detail": [str(exc)]}) from exc


class RunObjectsView(PlaygroundMixin, APIView):
    @extend_schema(summary="The run's nodes and pods described, and each profile's Score "
                           "weights (for tooltips and the history)",
                   responses={200: OBJECTS, **errors(*READ_ERRORS)})
    def get(self, request, pk):
        return Response(_objects(self.visible_run(pk)))


class RunViewView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="What the run page shows first, in one response",
        description="The socket's snapshot with every node of the engine state and whether "
                    "the user may drive the run (`run.canControl`), the run's `objects` and "
                    "its stored cycles (`timeline`, as /history/ gives them). With "
                    "`?part=state`: the snapshot alone (a refresh).",
        parameters=[OpenApiParameter("part", OpenApiTypes.STR, enum=["state"],
                                     description="state: the snapshot alone")],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description=(
            "{run, state, cycles, objects, timeline}")), **errors(*READ_ERRORS)})
    def get(self, request, pk):
        run = self.visible_run(pk)
        view = snapshot(run.pk, max_nodes=None)
        view["run"]["canControl"] = run_writable_by(run, request.user)
        if request.query_params.get("part") != "state":
            view["objects"] = _objects(run)
            view["timeline"] = cycle_rows(run)
        return Response(view)


class RunHistoryView(PlaygroundMixin, APIView):
    @extend_schema(summary="Every stored cycle in a few fields: what the history slider and "
                           "\"why pending\" walk",
                   responses={200: ROWS, **errors(*READ_ERRORS)})
    def get(self, request, pk):
        return Response({"cycles": cycle_rows(self.visible_run(pk))})


class RunCompareView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="Two stored runs of one cluster, each where it stands",
        parameters=[OpenApiParameter(side, OpenApiTypes.INT, required=True,
                                     description=f"run {side}'s id") for side in ("a", "b")],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description=(
            "{a: {bindings, pending, usage, cycles, time, run: {id, name, status, profile}}, "
            "b: {...}}")), **errors(*READ_ERRORS)})
    def get(self, request):
        ids = {}
        for side in ("a", "b"):
            raw = request.query_params.get(side, "")
            if not raw.isdigit():
                raise InvalidInput({side: ["compare needs two run ids: ?a=<id>&b=<id>"]})
            ids[side] = int(raw)
        a, b = (self.visible_run(ids[side]) for side in ("a", "b"))
        try:
            return Response(compare_runs(a, b))
        except InputError as exc:
            raise InvalidInput({"detail": [str(exc)]}) from exc


# --- runs and their cycles ----------------------------------------------------------------

CYCLE_OUTCOMES = ("Bound", "Unschedulable", "Rejected", "Error")


@extend_schema_view(
    get=extend_schema(
        summary="Runs you can see",
        parameters=[OpenApiParameter("cluster", OpenApiTypes.INT),
                    OpenApiParameter("status", OpenApiTypes.STR,
                                     enum=[c for c, _ in Run.STATUS_CHOICES])],
        responses={200: s.RunSerializer(many=True), **errors(400, 401, 403, 404)},
    ),
    post=extend_schema(
        summary="Create a run over a snapshot of a cluster's objects and profile",
        description="The run copies the cluster's objects and KubeSchedulerConfiguration now; "
                    "later edits to the cluster do not change it. Any visible cluster will do.",
        request=s.RunCreateSerializer,
        responses={201: s.RunSerializer, **errors(400, 401, 403)},
    ),
)
class RunListView(PlaygroundMixin, generics.ListCreateAPIView):
    serializer_class = s.RunSerializer

    def get_queryset(self):
        runs = runs_visible_to(self.request.user).select_related("cluster", "owner")
        cluster = self.request.query_params.get("cluster")
        if cluster:
            if not cluster.isdigit() or int(cluster) > INT64_MAX:
                raise InvalidInput({"cluster": ["must be a cluster id"]})
            runs = runs.filter(cluster_id=int(cluster))
        run_status = self.request.query_params.get("status")
        if run_status:
            runs = runs.filter(status=run_status)
        return runs.order_by("-id")

    def create(self, request, *args, **kwargs):
        data = self.validated(s.RunCreateSerializer)
        cluster = clusters_visible_to(request.user).filter(pk=data["cluster"]).first()
        if cluster is None:
            raise InvalidInput({"cluster": [f"no cluster {data['cluster']} that you "
                                                     "can see"]})
        run = run_create(cluster=cluster, seed=data["seed"], name=data["name"],
                         owner=request.user, release=data["release"],
                         feature_gates=data["feature_gates"])
        return Response(s.RunSerializer(run).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(summary="A run", responses={200: s.RunSerializer, **errors(*READ_ERRORS)}),
    patch=extend_schema(summary="Rename a run", request=s.RunPatchSerializer,
                        responses={200: s.RunSerializer, **errors(*WRITE_ERRORS)}),
    delete=extend_schema(summary="Delete a run and its cycles",
                         responses={204: None, **errors(*READ_ERRORS)}),
)
class RunDetailView(PlaygroundMixin, generics.RetrieveUpdateDestroyAPIView):
    serializer_class = s.RunSerializer
    http_method_names = ["get", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return runs_visible_to(self.request.user).select_related("cluster", "owner")

    def update(self, request, *args, **kwargs):
        run = self.writable_run(kwargs["pk"])
        run.name = self.validated(s.RunPatchSerializer)["name"]
        run.save(update_fields=["name", "updated"])
        return Response(s.RunSerializer(run).data)

    def destroy(self, request, *args, **kwargs):
        self.writable_run(kwargs["pk"]).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class _RunActionView(PlaygroundMixin, APIView):
    action = ""

    def post(self, request, pk):
        run = self.writable_run(pk)
        kwargs = {"run": run, "user": request.user}
        if self.action == "step":
            kwargs["cycles"] = self.validated(s.RunStepSerializer)["cycles"]
        getattr(runs, f"run_{self.action}")(**kwargs)
        run.refresh_from_db()
        return Response(s.RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


_ACTION_HELP = {
    "start": "Run to the end in the background",
    "step": "Run the next `cycles` scheduling cycles (default 1)",
    "pause": "Stop after the cycle in progress",
    "resume": "Go on running to the end",
    "reset": "Back to the start: cycles dropped, the snapshot restored",
}


def _action_view(action: str):
    return extend_schema(
        summary=_ACTION_HELP[action],
        request=s.RunStepSerializer if action == "step" else None,
        responses={202: s.RunSerializer,
                   **errors(*WRITE_ERRORS, 409, *((429,) if action == "start" else ()))},
    )(type(f"Run{action.title()}View", (_RunActionView,), {"action": action, **(
        {"throttle_classes": [ScopedRateThrottle], "throttle_scope": "run_start"}
        if action == "start" else {})}))


RUN_ACTION_VIEWS = {action: _action_view(action) for action in _ACTION_HELP}


@extend_schema_view(get=extend_schema(
    summary="A run's cycles (summaries; the full trace is at /cycles/{index}/)",
    parameters=[OpenApiParameter("pod", OpenApiTypes.STR, description="namespace/name"),
                OpenApiParameter("outcome", OpenApiTypes.STR, enum=list(CYCLE_OUTCOMES)),
                OpenApiParameter("node", OpenApiTypes.STR)],
    responses={200: s.CycleSummarySerializer(many=True), **errors(*READ_ERRORS)},
))
class RunCyclesView(PlaygroundMixin, generics.ListAPIView):
    serializer_class = s.CycleSummarySerializer

    def get_queryset(self):
        run = self.visible_run(self.kwargs["pk"])
        params = self.request.query_params
        return cycles_of(run, pod=params.get("pod"), outcome=params.get("outcome"),
                                   node=params.get("node"))


class RunCycleDetailView(PlaygroundMixin, APIView):
    @extend_schema(summary="One cycle's full trace, in the simulate contract's CYCLE form",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ_ERRORS)})
    def get(self, request, pk, index):
        run = self.visible_run(pk)
        cycle = get_object_or_404(cycles_of(run), index=index)
        return Response(cycle.trace)


class RunStateView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="Engine state where the run is: queues, waiting pods, node usage",
        parameters=[OpenApiParameter("max_nodes", OpenApiTypes.INT,
                                     description="at most this many nodes (default 1000)")],
        responses={200: OpenApiTypes.OBJECT, **errors(400, *READ_ERRORS)},
    )
    def get(self, request, pk):
        run = self.visible_run(pk)
        raw = request.query_params.get("max_nodes", "1000")
        if not raw.isdigit():
            raise InvalidInput({"max_nodes": ["must be a whole number"]})
        return Response(run_state(run, max_nodes=int(raw)))


class RunExportView(PlaygroundMixin, APIView):
    content_negotiation_class = IgnoreFormatNegotiation

    @extend_schema(
        summary="A run's results: the simulate contract's JSON, or the cluster as "
                "kube-scheduler-simulator exports it",
        parameters=[OpenApiParameter("format", OpenApiTypes.STR,
                                     enum=["json", "annotated", "simulator"],
                                     description="json (default): {schemaVersion, bindings, "
                                                 "cycles}; simulator: kube-scheduler-"
                                                 "simulator's /api/v1/export JSON, every pod "
                                                 "with its result annotations; annotated: "
                                                 "those pods as a v1 List in YAML")],
        responses={(200, "application/json"): OpenApiTypes.OBJECT,
                   (200, "application/yaml"): YAML_DOCUMENTS,
                   **errors(400, *READ_ERRORS)},
    )
    def get(self, request, pk):
        run = self.visible_run(pk)
        fmt = request.query_params.get("format", "json")
        if fmt == "json":
            response = StreamingHttpResponse(run_export_json_chunks(run=run),
                                             content_type="application/json")
            extension = "json"
        elif fmt == "annotated":
            response = StreamingHttpResponse([run_export_annotated(run=run)],
                                             content_type="application/yaml; charset=utf-8")
            extension = "yaml"
        elif fmt == "simulator":
            response = StreamingHttpResponse([run_export_simulator_json(run=run)],
                                             content_type="application/json")
            extension = "simulator.json"
        else:
            raise InvalidInput({"format": [f'Unsupported value: "{fmt}": supported '
                                                    'values: "annotated", "json", "simulator"']})
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.{extension}"'
        return response
