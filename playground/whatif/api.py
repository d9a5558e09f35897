"""/api/ for the what-if answers: a run's global placement beside the scheduler's, and
capacity plans and sweeps of configurations over a cluster (queued as background tasks,
polled for progress)."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.base import READ_ERRORS, WRITE_ERRORS, PlaygroundMixin, errors
from playground.errors import InvalidInput
from playground.whatif.placement import MAX_TIME_LIMIT, global_placement
from playground.whatif.selectors import plan_data, plans_visible_to, sweep_data, sweeps_visible_to
from playground.whatif.services import plan_create
from playground.whatif.sweeps import sweep_cancel, sweep_create


class RunGlobalPlacementView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="The global placement of the run's pending pods beside the scheduler's",
        description="`python -m scheduler_core optimize` on the run's cluster: the scheduler's "
                    "bindings with the pods a pod bound later broke (`scheduler.violations`), "
                    "the solver's (status OPTIMAL, or FEASIBLE when the time limit "
                    "stopped it), the pods the scheduler left pending that it binds with the "
                    "early decision that took their node (`gained`), and the enabled Filter "
                    "plugins it does not model (`unmodelled`). 413 past the solver's limits.",
        parameters=[OpenApiParameter("time_limit", OpenApiTypes.NUMBER,
                                     description=f"seconds, at most {MAX_TIME_LIMIT:g} "
                                                 "(default 10)")],
        responses={200: OpenApiTypes.OBJECT, **errors(*READ_ERRORS, 413)},
    )
    def get(self, request, pk):
        run = self.visible_run(pk)
        raw = request.query_params.get("time_limit", "10")
        try:
            seconds = float(raw)
        except ValueError:
            raise InvalidInput({"time_limit": ["must be a number of seconds"]}) from None
        return Response(global_placement(run, time_limit=seconds))


class ClusterPlansView(PlaygroundMixin, APIView):
    @extend_schema(summary="Your capacity plans of the cluster, newest first",
                   operation_id="clusters_plans_list",
                   responses={200: {"type": "array", "items": {"type": "object"}},
                              **errors(*READ_ERRORS)})
    def get(self, request, cluster_id):
        cluster = self.visible_cluster(cluster_id)
        return Response([plan_data(j) for j in plans_visible_to(request.user)
                         .filter(cluster=cluster)])

    @extend_schema(
        summary="Plan capacity: the fewest copies of a template Node that bind every pod",
        description="`python -m scheduler_core plan` on the cluster, as a background task: "
                    "{template: the Node as YAML or JSON, maxNodes: at most this many copies "
                    "(default 1000)}. Poll /api/plans/{id}/: `progress` lists each trial as "
                    "it ends; `result` is plan's JSON once `status` is done. A template that "
                    "is not one valid Node, or whose copies would take a node's name, is a "
                    "400 naming the field; nothing is stored then.",
        request=OpenApiTypes.OBJECT,
        responses={201: OpenApiTypes.OBJECT, **errors(*WRITE_ERRORS)})
    def post(self, request, cluster_id):
        cluster = self.visible_cluster(cluster_id)
        job = plan_create(cluster=cluster, owner=request.user,
                          template=request.data.get("template"),
                          max_nodes=request.data.get("maxNodes"))
        return Response(plan_data(job), status=status.HTTP_201_CREATED)


class PlanDetailView(PlaygroundMixin, APIView):
    @extend_schema(summary="A capacity plan: its status, its trials so far and its result",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ_ERRORS)})
    def get(self, request, pk):
        return Response(plan_data(get_object_or_404(plans_visible_to(request.user), pk=pk)))


class ClusterSweepsView(PlaygroundMixin, APIView):
    @extend_schema(summary="Your sweeps of the cluster, newest first (without their variants)",
                   operation_id="clusters_sweeps_list",
                   responses={200: {"type": "array", "items": {"type": "object"}},
                              **errors(*READ_ERRORS)})
    def get(self, request, cluster_id):
        cluster = self.visible_cluster(cluster_id)
        return Response([sweep_data(s, variants=False) for s in sweeps_visible_to(request.user)
                         .filter(cluster=cluster)])

    @extend_schema(
        summary="Sweep a grid of configurations over the cluster",
        description="{grid: an object (or its YAML/JSON text) with any of `weights` "
                    "({ScorePlugin: [weights]}), `strategies` (NodeResourcesFit scoring "
                    "strategies), `percentageOfNodesToScore`, `releases`, `disabled` (lists of "
                    "plugins turned off), seed: the runs' seed (default 0)}. The variants are "
                    "the cartesian product, each the cluster's configuration (its first saved "
                    "profile) with the variant's settings, each run as one background task "
                    "(a chord over every worker). Poll /api/sweeps/{id}/ for each variant's "
                    "status and measures (bound, pending, cpuSpread, memorySpread, "
                    "fragmentation, preemptions, placementScore). A grid with a bad field, a "
                    "configuration kube-scheduler refuses, or more variants than "
                    "PLAYGROUND_SWEEP_MAX_VARIANTS (default 500) is a 400 under `grid`; "
                    "nothing is stored then.",
        request=OpenApiTypes.OBJECT,
        responses={201: OpenApiTypes.OBJECT, **errors(*WRITE_ERRORS)})
    def post(self, request, cluster_id):
        cluster = self.visible_cluster(cluster_id)
        sweep = sweep_create(cluster=cluster, owner=request.user,
                             grid=request.data.get("grid"), seed=request.data.get("seed"))
        return Response(sweep_data(sweep), status=status.HTTP_201_CREATED)


class SweepDetailView(PlaygroundMixin, APIView):
    @extend_schema(summary="A sweep: its status, and each variant's configuration, status, "
                           "measures or error",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ_ERRORS)})
    def get(self, request, pk):
        return Response(sweep_data(get_object_or_404(sweeps_visible_to(request.user), pk=pk)))


class SweepCancelView(PlaygroundMixin, APIView):
    @extend_schema(summary="Cancel a sweep: the variants not started are skipped",
                   description="The variants running end as they are; 409 when the sweep "
                               "has ended already.",
                   request=None,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE_ERRORS, 409)})
    def post(self, request, pk):
        sweep = sweep_cancel(get_object_or_404(sweeps_visible_to(request.user), pk=pk))
        return Response(sweep_data(sweep))
