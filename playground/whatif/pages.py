"""The capacity-planning page of a cluster (/clusters/<id>/plan/); its data comes from
/api/clusters/<id>/plans/ and /api/plans/<id>/."""
from __future__ import annotations

from django.shortcuts import get_object_or_404, render
from django.urls import path

from playground.clusters.selectors import clusters_visible_to
from playground.pages import page
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


urlpatterns = [path("clusters/<int:pk>/plan/", plan_page, name="page-plan")]
