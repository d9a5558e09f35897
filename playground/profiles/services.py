"""Writes of a cluster's profile (its KubeSchedulerConfiguration, validated by the engine's
own `parse_configuration`, so the editor, the API and a run agree on what is valid), and the
comparison of two profiles on a cluster, which runs the engine."""

from __future__ import annotations

import copy
import json

from playground.clusters.models import Cluster
from playground.clusters.services import cluster_manifests
from playground.engine import default_config, out_of_tree_plugins, scheduler_registry
from playground.errors import InvalidInput, TooLarge, has_nul
from playground.profiles.models import SchedulerProfile
from playground.profiles.selectors import expand_profiles
from scheduler_core.build import build_scheduler
from scheduler_core.config import API_VERSION, parse_configuration
from scheduler_core.errors import ConfigError, InputError
from scheduler_core.features import DEFAULT_GATES, FeatureGates
from scheduler_core.loader import CONFIG_KIND, load_documents
from scheduler_core.safe_read import read_documents
from scheduler_core.session import node_usage

# The comparison runs the engine twice inside the request, without a trace: 5,000 nodes is
# what a workshop cluster reaches.
COMPARE_MAX_NODES = 5000
COMPARE_MAX_PODS = 3000


def _validate_config(config, *, file: str = "") -> dict:
    if config is None:
        return default_config()
    if not isinstance(config, dict):
        raise InvalidInput({"config": ["must be a KubeSchedulerConfiguration object"]})
    if has_nul(json.dumps(config)):
        raise InvalidInput({"config": ["NUL characters are not allowed"]})
    config = dict(config)
    config.setdefault("apiVersion", API_VERSION)
    config.setdefault("kind", CONFIG_KIND)
    if config["kind"] != CONFIG_KIND:
        raise InvalidInput({"config": [f'kind: Invalid value: "{config["kind"]}": '
                                       f"must be {CONFIG_KIND}"]})
    try:
        parse_configuration(config, scheduler_registry(), file=file)
    except ConfigError as exc:
        raise InvalidInput({"config": exc.errors}) from exc
    return config


def profile_update(*, cluster: Cluster, config) -> SchedulerProfile:
    """Replace the cluster's KubeSchedulerConfiguration; InvalidInput carries kube-scheduler's
    validation messages (each starting with its field path)."""
    config = _validate_config(config)
    profile, _ = SchedulerProfile.objects.update_or_create(cluster=cluster,
                                                           defaults={"config": config})
    return profile


def profile_config_from_text(text: str) -> dict:
    try:
        docs = read_documents(text, source="config")
    except InputError as exc:
        raise InvalidInput({"text": [str(exc)]}) from exc
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InvalidInput({"text": ["must hold exactly one KubeSchedulerConfiguration document"]})
    return docs[0]


def _schedule(documents: list, config: dict | None, seed: int,
              features: FeatureGates = DEFAULT_GATES) -> dict:
    """The documents scheduled to the end without a trace (the path of `simulate --output
    summary`) under the release and gates `features`: bindings, why the others wait, each
    node's usage, and the warnings of input that release does not honour."""
    # The engine writes into the manifests it loads (spec.nodeName on binding): give it a copy.
    cluster = load_documents([("cluster", copy.deepcopy(documents))], features=features)
    for note in features.notes:   # as simulate's load_scheduler: the gates' warnings
        cluster.warnings.append(note)
    sched = build_scheduler(cluster, config, seed=seed, out_of_tree=out_of_tree_plugins())
    sched.run()
    usage = {ni.name: node_usage(ni) for ni in sched.cache.node_infos.values()}
    return {"release": features.release, "feature_gates": features.flag(),
            "warnings": sched.warnings.to_list(),
            "bindings": dict(sched.bindings), "pending": sched.pending_reasons(),
            "usage": usage, "cycles": sched.cycle_count, "time": sched.clock}


def compare_profiles(*, cluster: Cluster, a, b, seed: int,
                     releases: tuple[FeatureGates, FeatureGates] = (DEFAULT_GATES,
                                                                    DEFAULT_GATES)) -> dict:
    """The cluster scheduled under configurations `a` and `b` with one seed, inside the
    request, each under its release (`releases`: a's and b's gates): TooLarge past
    COMPARE_MAX_NODES or COMPARE_MAX_PODS (two runs compare instead), InvalidInput with each
    side's messages."""
    documents = list(cluster_manifests(cluster))
    kinds = [d.get("kind") for d in documents]
    if kinds.count("Node") > COMPARE_MAX_NODES or kinds.count("Pod") > COMPARE_MAX_PODS:
        raise TooLarge(f"compare runs clusters of up to {COMPARE_MAX_NODES} nodes and "
                       f"{COMPARE_MAX_PODS} pods; start two runs instead", field="detail")
    errors, results = {}, {}
    for side, config, features in (("a", a, releases[0]), ("b", b, releases[1])):
        check = expand_profiles(config, features)
        if not check["ok"]:
            errors[side] = check["errors"]
            continue
        try:
            results[side] = _schedule(documents, config, seed, features)
        except InputError as exc:
            errors[side] = [str(exc)]
    if errors:
        raise InvalidInput(errors)
    return {"seed": seed, **results}
