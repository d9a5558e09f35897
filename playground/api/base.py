"""What every /api/ view shares: the documented error answers and PlaygroundMixin (a
ServiceError becomes its status with field paths; the user's visible and writable clusters
and runs; NUL characters refused in query parameters), a boolean query parameter, the YAML
stream response.

The feature folders' API views (`<feature>/api.py`) build on this module.
"""

from __future__ import annotations

from django.db import DataError
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.response import Response

from playground.api import serializers as s
from playground.clusters.models import Cluster
from playground.clusters.selectors import cluster_writable_by, clusters_visible_to
from playground.errors import InvalidInput, ServiceError
from playground.runs.models import Run
from playground.runs.selectors import run_writable_by, runs_visible_to

VALIDATION_HELP = ("{field path: [messages]}: the field is config, files, name, "
                   "manifest.spec.containers[0].resources.requests.cpu, ...; the loader's and "
                   "kube-scheduler's messages name the file, the object and the field themselves")
VALIDATION_EXAMPLE = OpenApiExample("invalid configuration", status_codes=["400"], value={
    "config": ['profiles[0].plugins.score.enabled[0].weight: Invalid value: -1: '
               'must be an integer']})

ERRORS = {
    400: OpenApiResponse(OpenApiTypes.OBJECT, description="invalid input: " + VALIDATION_HELP,
                         examples=[VALIDATION_EXAMPLE]),
    401: OpenApiResponse(s.DetailSerializer, description="bad or missing token "
                                                         "(Authorization: Token ...)"),
    403: OpenApiResponse(OpenApiTypes.OBJECT, description="not logged in, or read-only to you "
                                                          "(a shared cluster of another user): "
                                                          "{detail}; or over a quota "
                                                          "(PLAYGROUND_QUOTA_*): "
                                                          + VALIDATION_HELP),
    404: OpenApiResponse(s.DetailSerializer, description="no such object, or not visible to "
                                                         "you; or a page past the last"),
    409: OpenApiResponse(OpenApiTypes.OBJECT, description="the run cannot do that now (busy, "
                                                          "finished): " + VALIDATION_HELP),
    413: OpenApiResponse(OpenApiTypes.OBJECT, description="over a size limit "
                                                          "(PLAYGROUND_MAX_UPLOAD_BYTES, "
                                                          "PLAYGROUND_MAX_NODES, "
                                                          "PLAYGROUND_MAX_PODS): "
                                                          + VALIDATION_HELP),
    429: OpenApiResponse(s.DetailSerializer, description="too many requests (failed sign-ins, "
                                                         "run starts): see Retry-After"),
}


def errors(*codes: int) -> dict:
    return {code: ERRORS[code] for code in codes}


# A read answers 400 too: every view refuses a query parameter with a NUL character
# (PlaygroundMixin.initial), whatever parameters it documents.
READ_ERRORS = (400, 401, 403, 404)
WRITE_ERRORS = READ_ERRORS

# A YAML response is a stream of documents, each a Kubernetes object (the cluster export has
# many, separated by ---; the annotated run export one v1 List).
YAML_DOCUMENTS = OpenApiResponse(
    {"type": "array", "items": {"type": "object", "additionalProperties": True}},
    description="a YAML stream: one Kubernetes object (or List) per document")


def bool_param(request, name: str) -> bool | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return None
    if value.lower() in ("true", "1", "yes"):
        return True
    if value.lower() in ("false", "0", "no"):
        return False
    raise InvalidInput({name: [f"must be true or false, not {value!r}"]})


class IgnoreFormatNegotiation(DefaultContentNegotiation):
    """For views whose `format` query parameter picks the content, not a DRF renderer."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class PlaygroundMixin:
    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        for name, value in request.query_params.items():
            if "\x00" in name or "\x00" in value:
                raise InvalidInput({name: ["NUL characters are not allowed"]})

    def handle_exception(self, exc):
        if isinstance(exc, ServiceError):
            return Response(exc.errors, status=exc.status_code)
        if isinstance(exc, DataError | OverflowError):
            # A value the database cannot hold (an over-long string; an integer out of range,
            # which SQLite's driver reports as OverflowError) that no check caught first: the
            # request is at fault, not the server.
            return Response({"non_field_errors": [f"a value does not fit the database: {exc}"]},
                            status=status.HTTP_400_BAD_REQUEST)
        return super().handle_exception(exc)

    # -- permissions
    def visible_cluster(self, cluster_id) -> Cluster:
        return get_object_or_404(clusters_visible_to(self.request.user), pk=cluster_id)

    def writable_cluster(self, cluster_id) -> Cluster:
        cluster = self.visible_cluster(cluster_id)
        if not cluster_writable_by(cluster, self.request.user):
            raise PermissionDenied("this cluster is shared read-only: clone it to change it")
        return cluster

    def visible_run(self, run_id) -> Run:
        # The documents (the whole cluster: megabytes of JSON at 5,000 nodes) load only if used.
        runs = runs_visible_to(self.request.user).select_related("cluster", "owner")
        return get_object_or_404(runs, pk=run_id)

    def writable_run(self, run_id) -> Run:
        run = self.visible_run(run_id)
        if not run_writable_by(run, self.request.user):
            raise PermissionDenied("only the run's owner or the cluster's owner may change it")
        return run

    def validated(self, serializer_class, data=None, **kwargs) -> dict:
        serializer = serializer_class(data=self.request.data if data is None else data,
                                      context={"request": self.request}, **kwargs)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data
