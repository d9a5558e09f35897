"""/api/clusters/: clusters you can see, created empty or from kubectl output, changed,
exported, cloned and deleted.

Thin: reads go through clusters.selectors, writes through clusters.services (which raise
ServiceError subclasses, answered as 400, 403, 409 or 413 with field paths). A cluster the
user may not see is 404; one they may see but not change (a shared cluster of another user)
is 403.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api import serializers as s
from playground.api.base import (
    READ_ERRORS,
    WRITE_ERRORS,
    YAML_DOCUMENTS,
    PlaygroundMixin,
    bool_param,
    errors,
)
from playground.api.errors import SafeJSONParser
from playground.clusters.models import Cluster, Node, Pod
from playground.clusters.selectors import clusters_visible_to
from playground.clusters.services import (
    check_upload_size,
    cluster_clone,
    cluster_create,
    cluster_export_chunks,
    cluster_import,
    cluster_update,
)
from playground.errors import InvalidInput
from scheduler_core.errors import unsupported
from scheduler_core.field_validation import FIELD_VALIDATION, WARN


def _count(model) -> Coalesce:
    counts = (model.objects.filter(cluster=OuterRef("pk")).order_by().values("cluster")
              .annotate(n=Count("id")).values("n"))
    return Coalesce(Subquery(counts, output_field=IntegerField()), Value(0))


def _with_counts(clusters):
    return clusters.select_related("owner").annotate(node_count=_count(Node),
                                                     pod_count=_count(Pod))


def _cluster_data(view, cluster: Cluster) -> dict:
    cluster = _with_counts(Cluster.objects.filter(pk=cluster.pk)).get()
    return s.ClusterSerializer(cluster, context={"request": view.request}).data


# --- clusters -----------------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        summary="Clusters you can see (yours and shared ones)",
        parameters=[
            OpenApiParameter("owned", OpenApiTypes.BOOL, description="only yours (true) or "
                             "only other users' shared ones (false)"),
            OpenApiParameter("shared", OpenApiTypes.BOOL),
        ],
        responses={200: s.ClusterSerializer(many=True), **errors(400, 401, 403, 404)},
    ),
    post=extend_schema(summary="Create an empty cluster (default profile)",
                       request=s.ClusterWriteSerializer,
                       responses={201: s.ClusterSerializer, **errors(400, 401, 403)}),
)
class ClusterListView(PlaygroundMixin, generics.ListCreateAPIView):
    serializer_class = s.ClusterSerializer

    def get_queryset(self):
        clusters = clusters_visible_to(self.request.user)
        owned = bool_param(self.request, "owned")
        if owned is not None:
            clusters = clusters.filter(owner=self.request.user) if owned else \
                clusters.exclude(owner=self.request.user)
        shared = bool_param(self.request, "shared")
        if shared is not None:
            clusters = clusters.filter(shared=shared)
        return _with_counts(clusters).order_by("id")

    def create(self, request, *args, **kwargs):
        data = self.validated(s.ClusterWriteSerializer)
        cluster = cluster_create(owner=request.user, **data)
        return Response(_cluster_data(self, cluster), status=status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(summary="A cluster", responses={200: s.ClusterSerializer,
                                                      **errors(*READ_ERRORS)}),
    put=extend_schema(summary="Rename, describe, share or unshare a cluster",
                      request=s.ClusterWriteSerializer,
                      responses={200: s.ClusterSerializer, **errors(*WRITE_ERRORS)}),
    patch=extend_schema(summary="Change some of name, description, shared",
                        request=s.ClusterPatchSerializer,
                        responses={200: s.ClusterSerializer, **errors(*WRITE_ERRORS)}),
    delete=extend_schema(summary="Delete a cluster with its objects and runs",
                         responses={204: None, **errors(*READ_ERRORS)}),
)
class ClusterDetailView(PlaygroundMixin, generics.RetrieveUpdateDestroyAPIView):
    serializer_class = s.ClusterSerializer

    def get_queryset(self):
        return _with_counts(clusters_visible_to(self.request.user))

    def update(self, request, *args, partial=False, **kwargs):
        cluster = self.writable_cluster(kwargs["pk"])
        data = self.validated(s.ClusterPatchSerializer if partial else s.ClusterWriteSerializer)
        cluster_update(cluster=cluster, **data)
        return Response(_cluster_data(self, cluster))

    def destroy(self, request, *args, **kwargs):
        self.writable_cluster(kwargs["pk"]).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class _ImportMixin(PlaygroundMixin):
    parser_classes = [SafeJSONParser, MultiPartParser, FormParser]

    def read_upload(self) -> tuple[dict, list[tuple[str, str]]]:
        length = self.request.META.get("CONTENT_LENGTH") or "0"
        if length.isdigit() and int(length) > (settings.PLAYGROUND_MAX_UPLOAD_BYTES
                                               + settings.UPLOAD_ENVELOPE_BYTES):
            check_upload_size(int(length))
        if self.request.content_type.startswith("multipart/"):
            data = self.validated(s.ImportMultipartSerializer, data=_multipart(self.request))
            check_upload_size(sum(f.size for f in data["files"]))
            files = []
            for upload in data["files"]:
                try:
                    files.append((upload.name, upload.read().decode("utf-8")))
                except UnicodeDecodeError as exc:
                    raise InvalidInput(
                        {"files": [f"{upload.name}: not UTF-8 text ({exc.reason} at byte "
                                   f"{exc.start})"]}) from exc
        else:
            data = self.validated(s.ImportJSONSerializer)
            files = [(f["name"], f["text"]) for f in data["files"]]
        return data, files


def _multipart(request) -> dict:
    data = {k: request.data.get(k) for k in ("name", "description", "shared")
            if request.data.get(k) is not None}
    data["files"] = request.FILES.getlist("files")
    return data


FIELD_VALIDATION_PARAMETER = OpenApiParameter(
    "fieldValidation", str, enum=list(FIELD_VALIDATION), default=WARN,
    description="As the API server's: Warn (default) answers unknown and repeated fields as "
                "warnings and stores the objects without the unknown fields; Strict refuses "
                "the import naming them (400 on files); Ignore drops them silently.")


def field_validation(request) -> str:
    """The fieldValidation query parameter, refused by field when it is none of the API
    server's values."""
    value = request.query_params.get("fieldValidation", WARN)
    if value not in FIELD_VALIDATION:
        raise InvalidInput({"fieldValidation": [unsupported("fieldValidation", value,
                                                            FIELD_VALIDATION)]})
    return value


DROP_REMOVED_PLUGINS_PARAMETER = OpenApiParameter(
    "dropRemovedPlugins", bool, default=False,
    description="true: plugins kube-scheduler has removed (EBSLimits, GCEPDLimits, "
                "AzureDiskLimits... as a kube-scheduler-simulator export names them) are left "
                "out of the profile, a warning each; false (default): the import is refused "
                "naming them. Anything else is a 400 on dropRemovedPlugins.")
BOOLEANS = {"true": True, "false": False}


def drop_removed_plugins(request) -> bool:
    """The dropRemovedPlugins query parameter: true or false, refused by field otherwise."""
    value = request.query_params.get("dropRemovedPlugins", "false")
    if value not in BOOLEANS:
        raise InvalidInput({"dropRemovedPlugins": [unsupported("dropRemovedPlugins", value,
                                                               list(BOOLEANS))]})
    return BOOLEANS[value]


IMPORT_PARAMETERS = [FIELD_VALIDATION_PARAMETER, DROP_REMOVED_PLUGINS_PARAMETER]
IMPORT_REQUEST = {"application/json": s.ImportJSONSerializer,
                  "multipart/form-data": s.ImportMultipartSerializer}


class ClusterImportView(_ImportMixin, APIView):
    @extend_schema(
        operation_id="clusters_import",
        summary="Create a cluster from files of kubectl get -o yaml|json output",
        description="Each file holds YAML documents or JSON: Kubernetes objects, List or *List "
                    "kinds, and at most one KubeSchedulerConfiguration (the cluster's profile). "
                    "All or nothing: one bad document rejects the import with a message naming "
                    "the file, the object and the field. Unsupported kinds are skipped with a "
                    "warning.",
        request=IMPORT_REQUEST, parameters=IMPORT_PARAMETERS,
        responses={201: s.ImportResultSerializer, **errors(400, 401, 403, 413)},
    )
    def post(self, request):
        data, files = self.read_upload()
        if not data.get("name"):
            raise InvalidInput({"name": ["This field is required."]})
        cluster, warnings = cluster_import(
            owner=request.user, name=data["name"], files=files,
            description=data.get("description", ""), shared=data.get("shared", False),
            field_validation=field_validation(request),
            drop_removed_plugins=drop_removed_plugins(request))
        return Response({"cluster": _cluster_data(self, cluster), "warnings": warnings},
                        status=status.HTTP_201_CREATED)


class ClusterReimportView(_ImportMixin, APIView):
    @extend_schema(
        operation_id="clusters_reimport",
        summary="Replace a cluster's objects (and profile, if a file has one) with files",
        description="Same files as creating a cluster by import; name, description and shared "
                    "are ignored. All or nothing.",
        request=IMPORT_REQUEST, parameters=IMPORT_PARAMETERS,
        responses={200: s.ImportResultSerializer, **errors(400, 401, 403, 404, 413)},
    )
    def post(self, request, pk):
        cluster = self.writable_cluster(pk)
        _, files = self.read_upload()
        cluster, warnings = cluster_import(owner=request.user, name=cluster.name,
                                           files=files, cluster=cluster,
                                           field_validation=field_validation(request),
                                           drop_removed_plugins=drop_removed_plugins(request))
        return Response({"cluster": _cluster_data(self, cluster), "warnings": warnings})


class ClusterExportView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="The cluster as multi-document YAML (profile first, then every object)",
        description="Importing it gives the same cluster; exporting that gives the same bytes.",
        responses={(200, "application/yaml"): YAML_DOCUMENTS, **errors(*READ_ERRORS)},
    )
    def get(self, request, pk):
        cluster = self.visible_cluster(pk)
        response = StreamingHttpResponse(cluster_export_chunks(cluster=cluster),
                                         content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{_file_name(cluster.name)}.yaml"'
        return response


def _file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name) or "cluster"


class ClusterCloneView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="Copy a cluster you can see (yours or a shared one) into a new one of yours",
        request=s.CloneSerializer,
        responses={201: s.ClusterSerializer, **errors(*WRITE_ERRORS)},
    )
    def post(self, request, pk):
        cluster = self.visible_cluster(pk)
        data = self.validated(s.CloneSerializer)
        clone = cluster_clone(cluster=cluster, owner=request.user, **data)
        return Response(_cluster_data(self, clone), status=status.HTTP_201_CREATED)
