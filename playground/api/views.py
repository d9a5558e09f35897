"""The REST API under /api/: clusters and their objects, profiles, runs, cycles, plugins.

Views only translate HTTP: reads go through playground.selectors, writes through
playground.services (which raise ServiceError subclasses, answered as 400, 409 or 413 with
field paths). A cluster or run the user may not see is 404; one they may see but not change
(a shared cluster of another user) is 403.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import generics, status
from rest_framework import serializers as drf_serializers
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from playground.api import serializers as s
from playground.api.base import (
    READ_ERRORS,
    WRITE_ERRORS,
    IgnoreFormatNegotiation,
    PlaygroundMixin,
    errors,
)
from playground.api.errors import SafeJSONParser
from playground.clusters.selectors import clusters_visible_to
from playground.clusters.services import (
    INT64_MAX,
    check_upload_size,
    cluster_clone,
    cluster_create,
    cluster_export_chunks,
    cluster_import,
    cluster_update,
    object_delete,
    object_save,
)
from playground.engine import default_config
from playground.errors import InvalidInput
from playground.models import (
    Cluster,
    ExtraObject,
    Namespace,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Run,
    SchedulerProfile,
    StorageClass,
)
from playground.profiles.selectors import plugin_catalog
from playground.profiles.services import profile_config_from_text, profile_update
from playground.runs import services as runs
from playground.runs.export import (
    run_export_annotated,
    run_export_json_chunks,
    run_export_simulator_json,
)
from playground.runs.selectors import cycles_of, runs_visible_to
from playground.runs.services import run_create
from playground.runs.state import run_state
from playground.site import throttling
from scheduler_core.errors import unsupported
from scheduler_core.field_validation import FIELD_VALIDATION, WARN

# Request envelope (JSON quoting, multipart boundaries) allowed beyond the upload limit itself.
CYCLE_OUTCOMES = ("Bound", "Unschedulable", "Rejected", "Error")

# A YAML response is a stream of documents, each a Kubernetes object (the cluster export has
# many, separated by ---; the annotated run export one v1 List).
YAML_DOCUMENTS = OpenApiResponse(
    {"type": "array", "items": {"type": "object", "additionalProperties": True}},
    description="a YAML stream: one Kubernetes object (or List) per document")


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


def _bool_param(request, name: str) -> bool | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return None
    if value.lower() in ("true", "1", "yes"):
        return True
    if value.lower() in ("false", "0", "no"):
        return False
    raise InvalidInput({name: [f"must be true or false, not {value!r}"]})


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
        owned = _bool_param(self.request, "owned")
        if owned is not None:
            clusters = clusters.filter(owner=self.request.user) if owned else \
                clusters.exclude(owner=self.request.user)
        shared = _bool_param(self.request, "shared")
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
        request=IMPORT_REQUEST, parameters=[FIELD_VALIDATION_PARAMETER],
        responses={201: s.ImportResultSerializer, **errors(400, 401, 403, 413)},
    )
    def post(self, request):
        data, files = self.read_upload()
        if not data.get("name"):
            raise InvalidInput({"name": ["This field is required."]})
        cluster, warnings = cluster_import(
            owner=request.user, name=data["name"], files=files,
            description=data.get("description", ""), shared=data.get("shared", False),
            field_validation=field_validation(request))
        return Response({"cluster": _cluster_data(self, cluster), "warnings": warnings},
                        status=status.HTTP_201_CREATED)


class ClusterReimportView(_ImportMixin, APIView):
    @extend_schema(
        operation_id="clusters_reimport",
        summary="Replace a cluster's objects (and profile, if a file has one) with files",
        description="Same files as creating a cluster by import; name, description and shared "
                    "are ignored. All or nothing.",
        request=IMPORT_REQUEST, parameters=[FIELD_VALIDATION_PARAMETER],
        responses={200: s.ImportResultSerializer, **errors(400, 401, 403, 404, 413)},
    )
    def post(self, request, pk):
        cluster = self.writable_cluster(pk)
        _, files = self.read_upload()
        cluster, warnings = cluster_import(owner=request.user, name=cluster.name,
                                           files=files, cluster=cluster,
                                           field_validation=field_validation(request))
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


class ProfileView(PlaygroundMixin, APIView):
    @extend_schema(summary="The cluster's KubeSchedulerConfiguration",
                   responses={200: s.ProfileSerializer, **errors(*READ_ERRORS)})
    def get(self, request, pk):
        cluster = self.visible_cluster(pk)
        profile, _ = SchedulerProfile.objects.get_or_create(
            cluster=cluster, defaults={"config": default_config()})
        return Response(s.ProfileSerializer(profile).data)

    @extend_schema(
        summary="Replace the cluster's KubeSchedulerConfiguration",
        description="Checked as kube-scheduler checks it: a 400 lists kube-scheduler's "
                    "validation messages under `config`, each starting with its field path "
                    "(e.g. `profiles[0].plugins.score.enabled[0].weight: Invalid value: ...`).",
        request=s.ProfileWriteSerializer,
        responses={200: s.ProfileSerializer, **errors(*WRITE_ERRORS)},
    )
    def put(self, request, pk):
        cluster = self.writable_cluster(pk)
        data = self.validated(s.ProfileWriteSerializer)
        config = data["config"] if "config" in data else \
            profile_config_from_text(data["text"])
        profile = profile_update(cluster=cluster, config=config)
        return Response(s.ProfileSerializer(profile).data)


# --- Kubernetes objects in a cluster ------------------------------------------------------


class _ObjectListView(PlaygroundMixin, generics.ListCreateAPIView):
    model = None
    filters: dict[str, str] = {}   # query parameter -> model field

    def get_serializer_class(self):
        return self.read_serializer

    def get_queryset(self):
        cluster = self.visible_cluster(self.kwargs["cluster_id"])
        rows = self.model.objects.filter(cluster=cluster)
        for param, field in self.filters.items():
            value = (_bool_param(self.request, param) if param in BOOL_FILTERS
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


# --- runs ---------------------------------------------------------------------------------


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
                         owner=request.user, release=data["release"])
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


@extend_schema_view(post=extend_schema(
    summary="A token for scripts: send it as `Authorization: Token <key>`",
    responses={200: inline_serializer("AuthTokenResponse", {"token": drf_serializers.CharField()}),
               **errors(400, 429)},
))
class TokenView(ObtainAuthToken):
    """Locked out (429, Retry-After) after too many failed attempts from one address."""

    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]

    def post(self, request, *args, **kwargs):
        wait = throttling.sign_in_wait(request)
        if wait:
            raise Throttled(wait=wait, detail="too many failed sign-ins")
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            throttling.record_sign_in_failure(request)
            raise


class PluginListView(PlaygroundMixin, APIView):
    @extend_schema(summary="Registered scheduler plugins: extension points, default args, "
                           "default-profile weight",
                   description="A plain list, not paginated: every registered plugin.",
                   responses={200: s.PluginSerializer(many=True), **errors(401, 403)})
    def get(self, request):
        return Response(list(plugin_catalog()))
