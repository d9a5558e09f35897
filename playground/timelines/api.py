"""/api/ endpoints for timelines: a cluster's timelines, a run's recorded timeline, and steps
taken on a paused run. Thin: the services check and write, the selectors read."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.base import READ_ERRORS, WRITE_ERRORS, PlaygroundMixin, errors
from playground.api.serializers import RunSerializer
from playground.errors import InvalidInput
from playground.timelines import services
from playground.timelines.recording import run_timeline
from playground.timelines.selectors import timeline_data, timelines_of
from scheduler_core.errors import InputError
from scheduler_core.safe_read import read_documents


def _steps_of(data) -> list:
    """`steps` as a list, or `text`: the steps as YAML or JSON (what the editor sends)."""
    if "steps" in data:
        return data["steps"]
    text = data.get("text")
    if not isinstance(text, str):
        raise InvalidInput({"steps": ["give `steps` (a list) or `text` (YAML of the list)"]})
    try:
        docs = read_documents(text, source="steps")
    except InputError as exc:
        raise InvalidInput({"text": [str(exc)]}) from exc
    if len(docs) == 1 and isinstance(docs[0], list):
        return docs[0]
    return [] if not docs else docs


class ClusterTimelinesView(PlaygroundMixin, APIView):
    @extend_schema(summary="The cluster's timelines (docs/TIMELINE.md)",
                   operation_id="clusters_timelines_list",
                   responses={200: {"type": "array", "items": {"type": "object"}},
                              **errors(*READ_ERRORS)})
    def get(self, request, cluster_id):
        cluster = self.visible_cluster(cluster_id)
        return Response([timeline_data(t) for t in timelines_of(cluster)])

    @extend_schema(summary="Add a timeline: {name, steps} or {name, text}",
                   description="Every step is checked against the cluster: a 400 names the "
                               "step's index and field, and nothing is stored.",
                   request=OpenApiTypes.OBJECT,
                   responses={201: OpenApiTypes.OBJECT, **errors(*WRITE_ERRORS)})
    def post(self, request, cluster_id):
        cluster = self.writable_cluster(cluster_id)
        timeline = services.timeline_save(cluster=cluster, name=request.data.get("name"),
                                          steps=_steps_of(request.data))
        return Response(timeline_data(timeline), status=status.HTTP_201_CREATED)


class TimelineDetailView(PlaygroundMixin, APIView):
    def _timeline(self, cluster, pk):
        return get_object_or_404(timelines_of(cluster), pk=pk)

    @extend_schema(summary="One timeline", responses={200: OpenApiTypes.OBJECT,
                                                      **errors(*READ_ERRORS)})
    def get(self, request, cluster_id, pk):
        return Response(timeline_data(self._timeline(self.visible_cluster(cluster_id), pk)))

    @extend_schema(summary="Replace a timeline's name and steps", request=OpenApiTypes.OBJECT,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE_ERRORS)})
    def put(self, request, cluster_id, pk):
        cluster = self.writable_cluster(cluster_id)
        timeline = services.timeline_save(
            cluster=cluster, name=request.data.get("name"), steps=_steps_of(request.data),
            instance=self._timeline(cluster, pk))
        return Response(timeline_data(timeline))

    @extend_schema(summary="Delete a timeline", responses={204: None, **errors(*WRITE_ERRORS)})
    def delete(self, request, cluster_id, pk):
        cluster = self.writable_cluster(cluster_id)
        services.timeline_delete(timeline=self._timeline(cluster, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class RunTimelineView(PlaygroundMixin, APIView):
    @extend_schema(summary="What the run's timeline recorded: steps, pod events, queue moves "
                           "with their events, node samples and plugin timings",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ_ERRORS)})
    def get(self, request, pk):
        return Response(run_timeline(self.visible_run(pk)))


class RunActionsView(PlaygroundMixin, APIView):
    @extend_schema(summary="Change a paused run's cluster: {step: {action, ...}}",
                   description="Recorded in the run's own timeline with the run's virtual time "
                               "and cycle count, so replays apply it at the same point.",
                   request=OpenApiTypes.OBJECT,
                   responses={201: RunSerializer, **errors(*WRITE_ERRORS, 409)})
    def post(self, request, pk):
        run = self.writable_run(pk)
        run = services.run_action(run=run, user=request.user, step=request.data.get("step"))
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)
