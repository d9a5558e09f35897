"""/api/ endpoints of profiles: a cluster's KubeSchedulerConfiguration (read and replaced), the
registered plugins; the profile editor's and the compare view's: a configuration's YAML and
back, what each profile runs at each extension point, and two profiles run on one cluster.

Thin: the conversion (profiles.text), the expansion (profiles.selectors) and the comparison
(profiles.services, which runs the engine) are where the work is.
"""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api import serializers as s
from playground.api.base import READ_ERRORS, WRITE_ERRORS, PlaygroundMixin, errors
from playground.engine import default_config, run_gates
from playground.profiles import text
from playground.profiles.models import SchedulerProfile
from playground.profiles.selectors import expand_profiles, plugin_catalog
from playground.profiles.services import (
    compare_profiles,
    profile_config_from_text,
    profile_update,
)
from scheduler_core.features import DEFAULT_RELEASE, RELEASES

CONFIG_HELP = "a KubeSchedulerConfiguration (null: kube-scheduler's defaults)"


class YamlSerializer(serializers.Serializer):
    data = serializers.JSONField(required=False, help_text="a configuration to write as YAML")
    text = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False,
                                 help_text="YAML to read (when `data` is absent)")


RELEASE_HELP = f"the kube-scheduler release to follow: {', '.join(RELEASES)}"


def release_field():
    return serializers.CharField(max_length=16, required=False, allow_blank=True,
                                 default=DEFAULT_RELEASE, help_text=RELEASE_HELP)


def gates_field():
    return serializers.JSONField(
        required=False, default="",
        help_text="feature gates on top of the release's defaults, as kube-scheduler's "
                  '--feature-gates takes them ("A=true,B=false") or as a map; refused as a '
                  "run refuses them")


class CheckSerializer(serializers.Serializer):
    config = serializers.JSONField(required=False, allow_null=True, default=None,
                                   help_text=CONFIG_HELP)
    release = release_field()
    feature_gates = gates_field()


class CompareSerializer(serializers.Serializer):
    a = serializers.JSONField(required=False, allow_null=True, default=None, help_text=CONFIG_HELP)
    b = serializers.JSONField(required=False, allow_null=True, default=None, help_text=CONFIG_HELP)
    release_a = release_field()
    release_b = release_field()
    feature_gates_a = gates_field()
    feature_gates_b = gates_field()
    seed = serializers.IntegerField(required=False, default=0, min_value=-(2**63),
                                    max_value=2**63 - 1)


YAML_ANSWER = inline_serializer("ProfileYaml", {
    "text": serializers.CharField(required=False, help_text="the configuration as YAML"),
    "data": serializers.JSONField(required=False, help_text="the configuration the text holds"),
    "error": serializers.CharField(required=False, help_text="why the text is not one "
                                                             "configuration yet"),
    "line": serializers.IntegerField(required=False, allow_null=True)})
CHECK_ANSWER = inline_serializer("ProfileCheck", {
    "ok": serializers.BooleanField(),
    "errors": serializers.ListField(child=serializers.CharField(),
                                    help_text="kube-scheduler's validation messages"),
    "profiles": serializers.ListField(child=serializers.DictField(), required=False,
                                      help_text="schedulerName, points (extension point -> "
                                                "plugins), weights, pluginConfig")})


class ProfileYamlView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="A configuration as hand-written YAML, or YAML back to a configuration",
        description="`data` -> `{text}`; `text` -> `{data}`. Half-typed YAML is the normal "
                    "state of an editor: a parse error is an answer (200 with `error` and "
                    "`line`), not a 400.",
        request=YamlSerializer, responses={200: YAML_ANSWER, **errors(400, 401, 403)})
    def post(self, request):
        data = self.validated(YamlSerializer)
        if "data" in data:
            return Response(text.config_text(data["data"]))
        return Response(text.config_data(data.get("text", "")))


class ProfileCheckView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="What each profile runs at each extension point, or kube-scheduler's messages",
        description="The engine's own expansion (multiPoint, defaults, disabled plugins), so "
                    "the editor's preview never disagrees with a run. An invalid configuration "
                    "is an answer: `ok` false and its `errors`.",
        request=CheckSerializer, responses={200: CHECK_ANSWER, **errors(400, 401, 403)})
    def post(self, request):
        data = self.validated(CheckSerializer)
        return Response(expand_profiles(data["config"],
                                        run_gates(data["release"], data["feature_gates"])))


class ProfileCompareView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="The cluster scheduled under two configurations with one seed",
        description="Runs the engine twice within the request, without a trace: each side's "
                    "bindings, pending reasons and node usage. A 400 lists each side's "
                    "kube-scheduler messages under `a` and `b`; clusters over 5,000 nodes or "
                    "3,000 pods are 413 (start two runs and compare them instead).",
        request=CompareSerializer,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT,
                                        description="{seed, a: {bindings, pending, usage, "
                                                    "cycles, time}, b: {...}}"),
                   **errors(*WRITE_ERRORS, 413)})
    def post(self, request, pk):
        cluster = self.visible_cluster(pk)
        data = self.validated(CompareSerializer)
        return Response(compare_profiles(
            cluster=cluster, a=data["a"], b=data["b"], seed=data["seed"],
            releases=tuple(run_gates(data[f"release_{side}"], data[f"feature_gates_{side}"],
                                     field=f"feature_gates_{side}",
                                     release_field=f"release_{side}") for side in "ab")))


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


class PluginListView(PlaygroundMixin, APIView):
    @extend_schema(summary="Registered scheduler plugins: extension points, default args, "
                           "default-profile weight",
                   description="A plain list, not paginated: every registered plugin.",
                   responses={200: s.PluginSerializer(many=True), **errors(401, 403)})
    def get(self, request):
        return Response(list(plugin_catalog()))
