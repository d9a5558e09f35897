"""The what-if pages of a cluster: capacity planning (/clusters/<id>/plan/, its data from
/api/clusters/<id>/plans/ and /api/plans/<id>/) and sweeps (/clusters/<id>/sweep/, from
/api/clusters/<id>/sweeps/ and /api/sweeps/<id>/)."""
from __future__ import annotations

from django.shortcuts import get_object_or_404, render
from django.urls import path

from playground.clusters.selectors import clusters_visible_to
from playground.site.pages import page
from playground.whatif.sweeps import max_variants
from scheduler_core.whatif.plan import DEFAULT_MAX_NODES

TEMPLATE_EXAMPLE = """apiVersion: v1
kind: Node
metadata:
  name: extra
  labels: {topology.kubernetes.io/zone: zone-a}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
"""


@page
def plan_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "whatif/plan.html", {
        "page": "plan", "cluster": cluster, "example": TEMPLATE_EXAMPLE,
        "max_nodes": DEFAULT_MAX_NODES})


GRID_EXAMPLE = """strategies: [LeastAllocated, MostAllocated, RequestedToCapacityRatio]
weights: {NodeResourcesFit: [1, 5]}
percentageOfNodesToScore: [0, 50]
releases: ["1.36", "1.37"]
"""


@page
def sweep_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "whatif/sweep.html", {
        "page": "sweep", "cluster": cluster, "example": GRID_EXAMPLE,
        "max_variants": max_variants()})


urlpatterns = [path("clusters/<int:pk>/plan/", plan_page, name="page-plan"),
               path("clusters/<int:pk>/sweep/", sweep_page, name="page-sweep")]
