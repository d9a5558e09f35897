"""A live cluster's objects, read once through a kubeconfig with the official Python client.

What kube-scheduler-simulator's one-shot importer reads (simulator/oneshotimporter: namespaces,
priority classes, storage classes, claims, nodes, volumes, pods), plus what else the engine's
plugins read: CSINodes, PodDisruptionBudgets and the resource.k8s.io/v1 objects of
DynamicResources. Each kind is one paginated list call (limit 500, continue tokens), its answer
kept as the API server wrote it (the raw JSON, not the client's models), so the result is the
`*List` documents `simulate` reads.

Filters: `namespaces` limits the namespaced kinds to those namespaces (and the Namespace
objects to them); `label_selector` (the API's syntax, `app=web,tier!=db`) is passed to the
lists of the namespaced kinds. Unlike the simulator's importer, which applies its selector to
every kind, cluster-scoped objects (nodes, volumes, classes) are always read whole: the pods of
one team need the nodes of everyone.

`progress(kind, count)` is called after each kind, for a command line or a task to show.
Errors (an unreadable kubeconfig, a cluster that cannot be reached, a list the credentials may
not read) are InputError naming the kubeconfig and the kind. A kind the cluster does not serve
(404, such as resource.k8s.io/v1 before 1.34) is left out with a warning line.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from .errors import InputError

PAGE_SIZE = 500


@dataclass(frozen=True)
class Kind:
    kind: str
    api_version: str
    path: str            # the collection's path; {ns} for a namespaced one
    namespaced: bool


KINDS = (
    Kind("Namespace", "v1", "/api/v1/namespaces", False),
    Kind("PriorityClass", "scheduling.k8s.io/v1", "/apis/scheduling.k8s.io/v1/priorityclasses",
         False),
    Kind("StorageClass", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/storageclasses", False),
    Kind("CSINode", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csinodes", False),
    Kind("Node", "v1", "/api/v1/nodes", False),
    Kind("PersistentVolume", "v1", "/api/v1/persistentvolumes", False),
    Kind("DeviceClass", "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/deviceclasses", False),
    Kind("ResourceSlice", "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/resourceslices",
         False),
    Kind("PersistentVolumeClaim", "v1", "/api/v1{ns}/persistentvolumeclaims", True),
    Kind("PodDisruptionBudget", "policy/v1", "/apis/policy/v1{ns}/poddisruptionbudgets", True),
    Kind("ResourceClaim", "resource.k8s.io/v1", "/apis/resource.k8s.io/v1{ns}/resourceclaims",
         True),
    Kind("ResourceClaimTemplate", "resource.k8s.io/v1",
         "/apis/resource.k8s.io/v1{ns}/resourceclaimtemplates", True),
    Kind("Pod", "v1", "/api/v1{ns}/pods", True),
)


@dataclass
class ImportResult:
    documents: list[dict] = field(default_factory=list)   # one *List document per kind
    warnings: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {doc["kind"][:-4]: len(doc["items"]) for doc in self.documents}

    def as_list(self) -> dict:
        """One v1 List of every object, each with its apiVersion and kind."""
        return {"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": doc["apiVersion"], "kind": doc["kind"][:-4], **item}
            for doc in self.documents for item in doc["items"]]}


def import_cluster(kubeconfig: str, *, context: str | None = None,
                   namespaces: list[str] | None = None, label_selector: str = "",
                   progress=None) -> ImportResult:
    """Every kind of KINDS, filtered; the documents in the order the simulator imports."""
    api = _client(kubeconfig, context)
    result = ImportResult()
    try:
        for kind in KINDS:
            items = _read_kind(api, kind, namespaces, label_selector, kubeconfig, result)
            if items is None:
                continue
            result.documents.append({"apiVersion": kind.api_version, "kind": kind.kind + "List",
                                     "items": items})
            if progress is not None:
                progress(kind.kind, len(items))
    finally:
        api.close()
    return result


def _client(kubeconfig: str, context: str | None):
    from kubernetes import config
    from kubernetes.config.config_exception import ConfigException
    try:
        return config.new_client_from_config(config_file=kubeconfig, context=context,
                                             persist_config=False)
    except (ConfigException, OSError, ValueError, TypeError, KeyError) as exc:
        raise InputError(f"cannot use the kubeconfig: {exc}", file=kubeconfig) from None


def _read_kind(api, kind: Kind, namespaces, selector: str, kubeconfig: str,
               result: ImportResult) -> list[dict] | None:
    if not kind.namespaced:
        items = _list(api, kind.path, "", kind, kubeconfig, result)
        if items is not None and kind.kind == "Namespace" and namespaces:
            items = [ns for ns in items if ns["metadata"]["name"] in namespaces]
        return items
    scopes = [f"/namespaces/{ns}" for ns in namespaces] if namespaces else [""]
    items: list[dict] = []
    for scope in scopes:
        found = _list(api, kind.path.format(ns=scope), selector, kind, kubeconfig, result)
        if found is None:
            return None
        items += found
    return items


def _list(api, path: str, selector: str, kind: Kind, kubeconfig: str,
          result: ImportResult) -> list[dict] | None:
    """All pages of one list call; None when the cluster does not serve the kind."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError
    items: list[dict] = []
    token = ""
    while True:
        query = [("limit", PAGE_SIZE)] + ([("labelSelector", selector)] if selector else []) \
            + ([("continue", token)] if token else [])
        try:
            answer = api.call_api(path, "GET", query_params=query,
                                  header_params={"Accept": "application/json"},
                                  auth_settings=["BearerToken"], _preload_content=False,
                                  _return_http_data_only=True)
        except ApiException as exc:
            if exc.status == 404:
                result.warnings.append(f"{kubeconfig}: {kind.kind}: the cluster does not serve "
                                       f"{kind.api_version}; none imported")
                return None
            raise InputError(f"listing {path}: {_api_message(exc)}", file=kubeconfig,
                             obj=kind.kind) from None
        except (HTTPError, OSError) as exc:
            raise InputError(f"cannot reach the cluster: {exc}", file=kubeconfig) from None
        body = json.loads(answer.data)
        items += body.get("items") or []
        token = (body.get("metadata") or {}).get("continue") or ""
        if not token:
            return items


def _api_message(exc) -> str:
    """The Status message the API server answered with, else the HTTP status."""
    try:
        return json.loads(exc.body)["message"]
    except (TypeError, ValueError, KeyError):
        return f"HTTP {exc.status} {exc.reason}"
