"""Writes of a cluster's profile: its KubeSchedulerConfiguration, validated by the engine's
own `parse_configuration`, so the editor, the API and a run agree on what is valid."""

from __future__ import annotations

import json

from playground.engine import default_config, scheduler_registry
from playground.errors import InvalidInput, has_nul
from playground.models import Cluster, SchedulerProfile
from scheduler_core.config import API_VERSION, parse_configuration
from scheduler_core.errors import ConfigError, InputError
from scheduler_core.loader import CONFIG_KIND
from scheduler_core.safe_read import read_documents


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
