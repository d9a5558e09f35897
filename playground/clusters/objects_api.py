"""/api/clusters/<id>/<kind>/: a cluster's Kubernetes objects, one list and one detail
endpoint per kind (nodes, pods, namespaces, ...), built from OBJECT_ENDPOINTS.

Thin: clusters.services checks and stores a manifest with the engine's loader.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.response import Response

from playground.api import serializers as s
from playground.api.base import READ_ERRORS, WRITE_ERRORS, PlaygroundMixin, bool_param, errors
from playground.clusters.models import (
    ExtraObject,
    Namespace,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    StorageClass,
)
from playground.clusters.services import object_delete, object_save


class _ObjectListView(PlaygroundMixin, generics.ListCreateAPIView):
    model = None
    filters: dict[str, str] = {}   # query parameter -> model field

    def get_serializer_class(self):
        return self.read_serializer

    def get_queryset(self):
        cluster = self.visible_cluster(self.kwargs["cluster_id"])
        rows = self.model.objects.filter(cluster=cluster)
        for param, field in self.filters.items():
            value = (bool_param(self.request, param) if param in BOOL_FILTERS
                     else self.request.query_params.get(param))
            if value is not None and value != "":
                rows = rows.filter(**{field: value})
        name = self.request.query_params.get("search")
        if name:
            rows = rows.filter(name__icontains=name)
        return rows.order_by("id")

    def create(self, request, *args, **kwargs):
        cluster = self.writable_cluster(kwargs["cluster_id"])
        data = self.validated(s.ManifestWriteSerializer)
        row = object_save(cluster=cluster, model=self.model, manifest=data["manifest"])
        return Response(self.read_serializer(row).data, status=status.HTTP_201_CREATED)


class _ObjectDetailView(PlaygroundMixin, generics.RetrieveUpdateDestroyAPIView):
    model = None
    http_method_names = ["get", "put", "delete", "head", "options"]

    def get_serializer_class(self):
        return self.read_serializer

    def get_queryset(self):
        cluster = self.visible_cluster(self.kwargs["cluster_id"])
        return self.model.objects.filter(cluster=cluster)

    def update(self, request, *args, **kwargs):
        cluster = self.writable_cluster(kwargs["cluster_id"])
        row = get_object_or_404(self.model.objects.filter(cluster=cluster), pk=kwargs["pk"])
        data = self.validated(s.ManifestWriteSerializer)
        row = object_save(cluster=cluster, model=self.model, manifest=data["manifest"],
                                   instance=row)
        return Response(self.read_serializer(row).data)

    def destroy(self, request, *args, **kwargs):
        cluster = self.writable_cluster(kwargs["cluster_id"])
        row = get_object_or_404(self.model.objects.filter(cluster=cluster), pk=kwargs["pk"])
        object_delete(instance=row)
        return Response(status=status.HTTP_204_NO_CONTENT)


OBJECT_ENDPOINTS = [
    # (url segment, model, read serializer, {query parameter: field}, plural noun)
    ("nodes", Node, s.NodeSerializer, {"unschedulable": "unschedulable"}, "Nodes"),
    ("pods", Pod, s.PodSerializer, {"namespace": "namespace", "node": "node_name",
                                    "phase": "phase", "scheduler_name": "scheduler_name"},
     "Pods"),
    ("namespaces", Namespace, s.NamespaceSerializer, {}, "Namespaces"),
    ("priorityclasses", PriorityClass, s.PriorityClassSerializer, {}, "PriorityClasses"),
    ("pdbs", PodDisruptionBudget, s.PodDisruptionBudgetSerializer, {"namespace": "namespace"},
     "PodDisruptionBudgets"),
    ("pvs", PersistentVolume, s.PersistentVolumeSerializer, {}, "PersistentVolumes"),
    ("pvcs", PersistentVolumeClaim, s.PersistentVolumeClaimSerializer,
     {"namespace": "namespace"}, "PersistentVolumeClaims"),
    ("storageclasses", StorageClass, s.StorageClassSerializer, {}, "StorageClasses"),
    ("objects", ExtraObject, s.ExtraObjectSerializer, {"kind": "kind", "namespace": "namespace"},
     "Other objects (CSINode, PodGroup, ...)"),
]

BOOL_FILTERS = {"unschedulable"}
_PARAM_TYPES = {"unschedulable": OpenApiTypes.BOOL}
_PARAM_HELP = {
    "node": "pods on this node (spec.nodeName)",
    "phase": "status.phase (Pending when absent)",
    "kind": "CSINode, PodGroup, Service, ...",
}


def _object_views(segment, model, read_serializer, filters, noun):
    params = [OpenApiParameter(p, _PARAM_TYPES.get(p, OpenApiTypes.STR),
                               description=_PARAM_HELP.get(p, "")) for p in filters]
    params.append(OpenApiParameter("search", OpenApiTypes.STR, description="name contains"))
    list_view = extend_schema_view(
        get=extend_schema(summary=f"{noun} of a cluster", parameters=params,
                          responses={200: read_serializer(many=True), **errors(*READ_ERRORS)}),
        post=extend_schema(summary=f"Add one to a cluster ({noun})",
                           description="Checked by the engine's loader; the listed columns "
                                       "are computed from the manifest.",
                           request=s.ManifestWriteSerializer,
                           responses={201: read_serializer, **errors(*WRITE_ERRORS, 413)}),
    )(type(f"{model.__name__}ListView", (_ObjectListView,),
           {"model": model, "read_serializer": read_serializer, "filters": filters}))
    detail_view = extend_schema_view(
        get=extend_schema(summary=f"One of a cluster's {noun}",
                          responses={200: read_serializer, **errors(*READ_ERRORS)}),
        put=extend_schema(summary=f"Replace the manifest ({noun}); name and namespace are "
                                  "immutable",
                          request=s.ManifestWriteSerializer,
                          responses={200: read_serializer, **errors(*WRITE_ERRORS)}),
        delete=extend_schema(summary=f"Delete one ({noun})",
                             responses={204: None, **errors(*READ_ERRORS)}),
    )(type(f"{model.__name__}DetailView", (_ObjectDetailView,),
           {"model": model, "read_serializer": read_serializer}))
    return segment, list_view, detail_view


OBJECT_VIEWS = [_object_views(*endpoint) for endpoint in OBJECT_ENDPOINTS]
