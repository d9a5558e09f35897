"""The engine as the web app configures it: the plugin registry (in-tree plus the
out-of-tree plugins of settings.SCHEDULER_OUT_OF_TREE_PLUGINS) and the default configuration.

Every check of a profile and every run builds its scheduler from these, so the API, the
pages and a run never disagree about which plugins exist.
"""

from django.conf import settings

from playground.errors import InvalidInput
from scheduler_core.config import API_VERSION
from scheduler_core.errors import InputError, json_kind
from scheduler_core.features import (
    DEFAULT_GATES,
    FeatureGateError,
    FeatureGates,
    feature_gates,
    parse_release,
)
from scheduler_core.framework.registry import Registry
from scheduler_core.loader import CONFIG_KIND
from scheduler_core.plugins.registry import default_registry


def out_of_tree_plugins() -> dict[str, str]:
    """settings.SCHEDULER_OUT_OF_TREE_PLUGINS: what RunSession(out_of_tree=...) takes."""
    return dict(getattr(settings, "SCHEDULER_OUT_OF_TREE_PLUGINS", None) or {})


def scheduler_registry(features: FeatureGates = DEFAULT_GATES) -> Registry:
    """The plugin registry every check and every run uses: the in-tree plugins of the
    release `features` follows, plus the out-of-tree ones."""
    return default_registry(out_of_tree_plugins(), features=features)


def default_config() -> dict:
    return {"apiVersion": API_VERSION, "kind": CONFIG_KIND}


def release_gates(value: str | None, *, field: str = "release") -> FeatureGates:
    """The gates of the kube-scheduler release a run, a check or a comparison follows (None:
    the newest); a release the engine does not follow is a 400 naming `field`."""
    try:
        return feature_gates(parse_release(value, field=field))
    except InputError as exc:
        raise InvalidInput({field: [str(exc).removeprefix(f"{field}: ")]}) from exc


def run_gates(release: str | None, gates: str | dict | None, *,
              field: str = "feature_gates", release_field: str = "release") -> FeatureGates:
    """The release's gates with the user's `gates` on top, as kube-scheduler's --feature-gates
    takes them ("A=true,B=false") or as its configuration's featureGates map ({"A": true}),
    refused as `simulate --feature-gates` refuses them (scheduler_core.features): an unknown
    gate, a locked gate set to the other value, a gate on whose dependency is off. A refusal
    is a 400 under `field`, in component-base's words, which name the gate."""
    features = release_gates(release, field=release_field)
    if isinstance(gates, dict):
        for name, value in gates.items():
            if not isinstance(value, bool):
                raise InvalidInput({field: [f"{name}: must be true or false, not a "
                                            f"{json_kind(value)}"]})
    elif gates is not None and not isinstance(gates, str):
        raise InvalidInput({field: ['must be "NAME=BOOL,..." or a map of gate names to '
                                    'true or false']})
    try:
        return feature_gates(features.release, gates or None)
    except FeatureGateError as exc:
        raise InvalidInput({field: [exc.detail]}) from exc
