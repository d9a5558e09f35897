"""A bounded hypothesis fuzz of the loader: valid objects with one value anywhere replaced by
anything JSON or YAML can hold, known field names added with any value, and raw text. The
loader either builds the cluster or raises InputError, never anything else."""
from __future__ import annotations

import copy
import json

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.config_gotypes import CONFIGURATION
from scheduler_core.errors import InputError
from scheduler_core.loader import load_documents
from scheduler_core.safe_read import read_documents
from scheduler_core.schema import KINDS
from scheduler_core.testing import make_node, make_pod

SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
          "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In",
                                                  "values": ["web"]}]}}
TEMPLATES = [
    make_node("n1", labels={"zone": "a"}, taints=[{"key": "k", "effect": "NoSchedule"}]),
    make_pod("p", cpu="100m", labels={"app": "web"}, topologySpreadConstraints=[SPREAD],
             tolerations=[{"key": "k", "operator": "Exists"}],
             affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                 "nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "zone", "operator": "In", "values": ["a"]}]}]}}}),
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "hi"},
     "value": 100},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"},
     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
     "metadata": {"name": "gpu", "namespace": "default"},
     "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
         "deviceClassName": "gpu.example.com", "count": 1,
         "selectors": [{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]}}],
         "constraints": [{"matchAttribute": "gpu.example.com/pcieRoot"}]}}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
     "spec": {"driver": "gpu.example.com", "nodeName": "n1",
              "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
              "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}},
                           "capacity": {"memory": {"value": "40Gi"}}}]}},
    {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
     "profiles": [{"schedulerName": "default-scheduler", "plugins": {"score": {"enabled": [
         {"name": "NodeResourcesFit", "weight": 2}]}}}]},
]


def _field_names(spec, out: set[str]) -> set[str]:
    """The field names of a schema spec (scheduler_core.schema) or a Go type
    (scheduler_core.config_gotypes)."""
    go_fields = getattr(spec, "fields", None)
    if go_fields is not None:
        for name, sub in go_fields.items():
            out.add(name)
            _field_names(sub, out)
    for sub in (getattr(spec, "item", None), getattr(spec, "value", None)):
        if sub is not None and not isinstance(spec, dict):
            _field_names(sub, out)
    if isinstance(spec, dict):
        for name, sub in spec.get("fields", {}).items():
            out.add(name)
            _field_names(sub, out)
        for key in ("item", "value"):
            _field_names(spec.get(key), out)
    return out


FIELD_NAMES = sorted(_field_names(CONFIGURATION, set().union(
    *(_field_names(spec, set()) for spec in KINDS.values()))))
SCALARS = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.text(max_size=12) | st.sampled_from(["1e400", "-1", "In", "Exists", "12x", ""]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=6),
                                        inner, max_size=3), max_leaves=12)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*path, i))


def _replace(doc, path, value):
    if not path:
        return value
    doc = copy.deepcopy(doc)
    holder = doc
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return doc


@st.composite
def mutated_documents(draw):
    docs = []
    for template in draw(st.lists(st.sampled_from(TEMPLATES), min_size=1, max_size=3)):
        path = draw(st.sampled_from(list(_paths(template))))
        doc = _replace(template, path, draw(VALUES))
        if isinstance(doc, dict) and draw(st.booleans()):
            doc = {**doc, draw(st.sampled_from(FIELD_NAMES)): draw(VALUES)}
        docs.append(doc)
    return docs


def _load(docs) -> None:
    try:
        load_documents([("fuzz.yaml", docs)])
    except InputError as exc:
        assert str(exc).startswith("fuzz.yaml: ")
        assert "\n" not in str(exc)


@settings(max_examples=400, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(mutated_documents())
def test_mutated_objects_load_or_raise_input_error(docs):
    _load(docs)


@settings(max_examples=200, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(mutated_documents(), st.sampled_from(["yaml", "json"]))
def test_the_same_documents_as_text_read_and_load_alike(docs, form):
    text = yaml.safe_dump_all(docs) if form == "yaml" else json.dumps(docs)
    try:
        read = read_documents(text, source="fuzz.yaml")
    except InputError:
        return
    _load(read)


@settings(max_examples=300, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from([*"[]{}:-&*!|>'\"\\,# \n\tab01", "\\uD83D", "kind: Pod\n",
                                 "metadata:\n  name: ", "&a ", "*a", "---\n", "  "]),
               max_size=80).map("".join))
def test_any_text_reads_or_raises_input_error(text):
    try:
        docs = read_documents(text, source="fuzz.yaml")
    except InputError:
        return
    _load(docs)
