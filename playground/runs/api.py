"""/api/ endpoints of the run page: its first view in one response, its objects described, its
cycles in a few fields, and two runs of one cluster side by side.

Thin: runs.selectors and runs.state read; nothing here runs the engine itself.
"""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.base import READ_ERRORS, PlaygroundMixin, errors
from playground.errors import InvalidInput
from playground.runs.selectors import compare_runs, cycle_rows, run_objects, run_writable_by
from playground.runs.state import snapshot
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
