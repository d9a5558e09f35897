"""kube-scheduler-simulator's export (GET /api/v1/export) as ordinary Kubernetes objects.

The simulator answers with one JSON object of lists whose items carry no kind:
{"pods": [...], "nodes": [...], "pvs": [...], "pvcs": [...], "storageClasses": [...],
"priorityClasses": [...], "schedulerConfig": {...}} (simulator/docs/api-samples/v1/
export.md); newer versions add "namespaces". Each list gets its kind back here, and the
scheduler configuration becomes a KubeSchedulerConfiguration document.
"""
from __future__ import annotations

from .features import flag_text

EXPORT_LISTS = {
    "nodes": ("v1", "Node"),
    "namespaces": ("v1", "Namespace"),
    "priorityClasses": ("scheduling.k8s.io/v1", "PriorityClass"),
    "storageClasses": ("storage.k8s.io/v1", "StorageClass"),
    "pvs": ("v1", "PersistentVolume"),
    "pvcs": ("v1", "PersistentVolumeClaim"),
    "pods": ("v1", "Pod"),
}
CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1"
# Top-level fields of the configurations older simulators exported (v1beta2's), which
# kubescheduler.config.k8s.io/v1 no longer has: the simulator's Go decoding drops them, and so
# does the import here, one warning each.
LEGACY_CONFIG_FIELDS = ("healthzBindAddress", "metricsBindAddress")


def is_simulator_export(doc) -> bool:
    """No kind, and the simulator's pods and nodes lists."""
    return (isinstance(doc, dict) and "kind" not in doc
            and isinstance(doc.get("pods"), list) and isinstance(doc.get("nodes"), list))


def exported_gates_note(doc: dict, gates: str) -> str:
    """Why the export's `featureGates` (the --feature-gates of the run that wrote it,
    simulator_snap) is not followed by this load, whose run sets `gates`; '' when they agree.
    Gates are kube-scheduler's flags, decided before any object is read, so a file cannot
    set them."""
    exported = doc.get("featureGates")
    if exported is None:
        return ""
    if isinstance(exported, dict):
        exported = flag_text(exported.items())
    if not isinstance(exported, str):
        return (f"featureGates: {exported!r} is not the --feature-gates text "
                "(\"A=true,B=false\"); ignored")
    if _pairs(exported) == _pairs(gates):
        return ""
    ours = f'"{gates}"' if gates else "none"
    return (f"featureGates: the exported run set --feature-gates \"{exported}\" and this run "
            f"sets {ours}; feature gates are "
            f"kube-scheduler's flags, not objects, so the file's are not followed (run with "
            f"--feature-gates \"{exported}\" to schedule as it did)")


def _pairs(text: str) -> dict[str, str]:
    """NAME=VALUE items by name (the last wins, as featureGate.Set's map), blanks skipped."""
    items = (item.partition("=") for item in text.split(",") if item.strip())
    return {name.strip(): value.strip().lower() for name, _, value in items}


def simulator_export_objects(doc: dict, warnings=None) -> list[tuple[str, dict]]:
    """(where, object) pairs, where naming the export's list and index; warnings.append gets
    a line for each legacy configuration field dropped."""
    out = []
    for field, (api_version, kind) in EXPORT_LISTS.items():
        for i, item in enumerate(doc.get(field) or []):
            if isinstance(item, dict):
                item = {"apiVersion": api_version, "kind": kind, **item}
            out.append((f"{field}[{i}]", item))
    config = doc.get("schedulerConfig")
    if isinstance(config, dict):
        config = {"apiVersion": CONFIG_API_VERSION, "kind": "KubeSchedulerConfiguration",
                  **config}
        for name in LEGACY_CONFIG_FIELDS:
            if name in config:
                del config[name]
                if warnings is not None:
                    warnings.append(f"schedulerConfig: field {name}: not a field of "
                                    f"{CONFIG_API_VERSION}; left out, as "
                                    "kube-scheduler-simulator's import leaves it out")
        out.append(("schedulerConfig", config))
    return out
