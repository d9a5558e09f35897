"""Request and response shapes of the REST API (documented by drf-spectacular)."""

from __future__ import annotations

from rest_framework import serializers

from playground.clusters.models import (
    Cluster,
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
from playground.profiles.selectors import profile_label
from playground.runs.models import CycleRecord, Run
from scheduler_core.features import DEFAULT_RELEASE, RELEASES

MAX_SEED = 2**63 - 1


# --- errors (documentation only) ----------------------------------------------------------


class DetailSerializer(serializers.Serializer):
    """403, 404, 401 and 503 bodies."""

    detail = serializers.CharField()


# --- clusters -----------------------------------------------------------------------------


class ClusterSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    writable = serializers.SerializerMethodField(help_text="whether you may change it")
    node_count = serializers.IntegerField(read_only=True)
    pod_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Cluster
        fields = ["id", "name", "description", "shared", "owner", "writable", "node_count",
                  "pod_count", "created", "updated"]
        read_only_fields = ["id", "owner", "writable", "node_count", "pod_count", "created",
                            "updated"]

    def get_writable(self, obj) -> bool:
        request = self.context.get("request")
        return bool(request and request.user.is_authenticated and obj.owner_id == request.user.pk)


class ClusterWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    shared = serializers.BooleanField(required=False, default=False)


class ClusterPatchSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    shared = serializers.BooleanField(required=False)


class ImportFileSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=500, help_text="file name, used in error messages")
    text = serializers.CharField(allow_blank=True, trim_whitespace=False,
                                 help_text="YAML (one or many documents) or JSON")


class ImportJSONSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False,
                                 help_text="the new cluster's name (creating only)")
    description = serializers.CharField(required=False, allow_blank=True, default="")
    shared = serializers.BooleanField(required=False, default=False)
    files = ImportFileSerializer(many=True, allow_empty=False)


class ImportMultipartSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    shared = serializers.BooleanField(required=False, default=False)
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)


class ImportResultSerializer(serializers.Serializer):
    cluster = ClusterSerializer()
    warnings = serializers.ListField(child=serializers.CharField())


class CloneSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    description = serializers.CharField(required=False, allow_blank=True, allow_null=True,
                                        default=None)
    shared = serializers.BooleanField(required=False, default=False)


class ProfileSerializer(serializers.Serializer):
    config = serializers.JSONField(help_text="the KubeSchedulerConfiguration "
                                             "(kubescheduler.config.k8s.io/v1)")
    updated = serializers.DateTimeField(read_only=True)


class ProfileWriteSerializer(serializers.Serializer):
    config = serializers.JSONField(required=False, help_text="the configuration as an object")
    text = serializers.CharField(required=False, trim_whitespace=False,
                                 help_text="or as YAML text")

    def validate(self, attrs):
        if ("config" in attrs) == ("text" in attrs):
            raise serializers.ValidationError({"config": ["give exactly one of config, text"]})
        return attrs


# --- Kubernetes objects -------------------------------------------------------------------


class ManifestWriteSerializer(serializers.Serializer):
    manifest = serializers.JSONField(help_text="the object as kubectl shows it; kind may be "
                                               "left out; name and namespace are immutable")


class _ObjectSerializer(serializers.ModelSerializer):
    kind = serializers.SerializerMethodField()

    def get_kind(self, obj) -> str:
        return obj.get_kind()


def _object_serializer(model, extra: list[str]):
    meta = type("Meta", (), {"model": model, "fields": ["id", "kind", "name", *extra, "manifest"],
                             "read_only_fields": ["id", "kind", "name", *extra, "manifest"]})
    return type(f"{model.__name__}Serializer", (_ObjectSerializer,), {"Meta": meta})


NodeSerializer = _object_serializer(Node, ["unschedulable", "cpu_milli", "memory_bytes",
                                           "pods_allocatable"])
PodSerializer = _object_serializer(Pod, ["namespace", "node_name", "phase", "priority",
                                         "cpu_request_milli", "memory_request_bytes",
                                         "scheduler_name"])
NamespaceSerializer = _object_serializer(Namespace, [])
PriorityClassSerializer = _object_serializer(PriorityClass, ["value", "global_default"])
PodDisruptionBudgetSerializer = _object_serializer(PodDisruptionBudget, ["namespace"])
PersistentVolumeSerializer = _object_serializer(PersistentVolume, [])
PersistentVolumeClaimSerializer = _object_serializer(PersistentVolumeClaim, ["namespace"])
StorageClassSerializer = _object_serializer(StorageClass, [])


class ExtraObjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = ExtraObject
        fields = ["id", "kind", "name", "namespace", "manifest"]
        read_only_fields = fields


# --- runs ---------------------------------------------------------------------------------


class RunSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    cluster_name = serializers.CharField(source="cluster.name", read_only=True)
    profile = serializers.SerializerMethodField(
        help_text="the run's scheduler names and a digest of its configuration")

    class Meta:
        model = Run
        fields = ["id", "cluster", "cluster_name", "owner", "name", "seed", "release",
                  "feature_gates", "status",
                  "virtual_time", "cycle_count", "pods_bound", "error", "created", "updated",
                  "profile"]
        read_only_fields = fields


    def get_profile(self, run: Run) -> str:
        return profile_label(run.config)


class RunCreateSerializer(serializers.Serializer):
    cluster = serializers.IntegerField(min_value=1, help_text="a cluster id you can see")
    seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, required=False, default=0)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    release = serializers.CharField(
        max_length=16, required=False, allow_blank=True, default=DEFAULT_RELEASE,
        help_text=f"the kube-scheduler release the run follows: {', '.join(RELEASES)}")
    feature_gates = serializers.JSONField(
        required=False, default=dict,
        help_text="feature gates on top of the release's defaults, as kube-scheduler's "
                  '--feature-gates takes them ("GenericWorkload=true,DRAConsumableCapacity='
                  'false") or as a map of gate names to true or false; an unknown gate, a '
                  "locked gate set to the other value or a gate whose dependency is off is "
                  "refused")


class RunPatchSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, allow_blank=True)


class RunStepSerializer(serializers.Serializer):
    cycles = serializers.IntegerField(min_value=1, max_value=1_000_000, required=False,
                                      default=1)


class CycleSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = CycleRecord
        fields = ["index", "time", "pod", "outcome", "node", "message"]
        read_only_fields = fields


class PluginSerializer(serializers.Serializer):
    name = serializers.CharField()
    extension_points = serializers.ListField(child=serializers.CharField())
    default_args = serializers.JSONField()
    enabled_by_default = serializers.BooleanField()
    default_weight = serializers.IntegerField(allow_null=True)
