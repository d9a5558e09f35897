"""Field types of the supported kinds, after the Kubernetes OpenAPI (core/v1, policy/v1,
scheduling.k8s.io/v1, storage.k8s.io/v1, apps/v1, batch/v1, kubescheduler.config.k8s.io/v1).

Only the fields the playground reads are described; others pass, as the API server keeps
unknown fields out of the way instead of failing. A value of the wrong type is reported with
the words of the API server's OpenAPI schema validation, every one of them, before anything
reads the object and trips over it ("spec.containers: Invalid value: \\"number\\":
spec.containers in body must be of type array: \\"number\\"").
"""
from __future__ import annotations

from .errors import json_kind

STRING, INTEGER, BOOLEAN, NUMBER = "string", "integer", "boolean", "number"
QUANTITY = "quantity"          # int-or-string; the quantity syntax is checked by the validators
INT_OR_STRING = "int-or-string"
OBJECT = "object"              # any mapping, its fields not described


def obj(**fields) -> dict:
    return {"type": "object", "fields": fields}


def array(item) -> dict:
    return {"type": "array", "item": item}


def map_of(value) -> dict:
    return {"type": "map", "value": value}


STRINGS = array(STRING)
STRING_MAP = map_of(STRING)
QUANTITY_MAP = map_of(QUANTITY)

OBJECT_META = obj(
    name=STRING, generateName=STRING, namespace=STRING, uid=STRING, resourceVersion=STRING,
    generation=INTEGER, creationTimestamp=STRING, deletionTimestamp=STRING,
    deletionGracePeriodSeconds=INTEGER, labels=STRING_MAP, annotations=STRING_MAP,
    finalizers=STRINGS,
    ownerReferences=array(obj(apiVersion=STRING, kind=STRING, name=STRING, uid=STRING,
                              controller=BOOLEAN, blockOwnerDeletion=BOOLEAN)),
)
REQUIREMENT = obj(key=STRING, operator=STRING, values=STRINGS)
LABEL_SELECTOR = obj(matchLabels=STRING_MAP, matchExpressions=array(REQUIREMENT))
NODE_SELECTOR_TERM = obj(matchExpressions=array(REQUIREMENT), matchFields=array(REQUIREMENT))
NODE_SELECTOR = obj(nodeSelectorTerms=array(NODE_SELECTOR_TERM))
NODE_AFFINITY = obj(
    requiredDuringSchedulingIgnoredDuringExecution=NODE_SELECTOR,
    preferredDuringSchedulingIgnoredDuringExecution=array(
        obj(weight=INTEGER, preference=NODE_SELECTOR_TERM)),
)
POD_AFFINITY_TERM = obj(labelSelector=LABEL_SELECTOR, namespaceSelector=LABEL_SELECTOR,
                        namespaces=STRINGS, topologyKey=STRING, matchLabelKeys=STRINGS,
                        mismatchLabelKeys=STRINGS)
POD_AFFINITY = obj(
    requiredDuringSchedulingIgnoredDuringExecution=array(POD_AFFINITY_TERM),
    preferredDuringSchedulingIgnoredDuringExecution=array(
        obj(weight=INTEGER, podAffinityTerm=POD_AFFINITY_TERM)),
)
TOPOLOGY_SPREAD_CONSTRAINT = obj(
    maxSkew=INTEGER, topologyKey=STRING, whenUnsatisfiable=STRING, labelSelector=LABEL_SELECTOR,
    minDomains=INTEGER, nodeAffinityPolicy=STRING, nodeTaintsPolicy=STRING,
    matchLabelKeys=STRINGS,
)
RESOURCES = obj(requests=QUANTITY_MAP, limits=QUANTITY_MAP,
                claims=array(obj(name=STRING, request=STRING)))
CONTAINER = obj(
    name=STRING, image=STRING, command=STRINGS, args=STRINGS, resources=RESOURCES,
    restartPolicy=STRING,
    ports=array(obj(name=STRING, containerPort=INTEGER, hostPort=INTEGER, protocol=STRING,
                    hostIP=STRING)),
)
POD_SPEC = obj(
    containers=array(CONTAINER), initContainers=array(CONTAINER), nodeName=STRING,
    nodeSelector=STRING_MAP, schedulerName=STRING, priority=INTEGER,
    priorityClassName=STRING, preemptionPolicy=STRING, restartPolicy=STRING,
    terminationGracePeriodSeconds=INTEGER, overhead=QUANTITY_MAP, resources=RESOURCES,
    hostNetwork=BOOLEAN, runtimeClassName=STRING,
    affinity=obj(nodeAffinity=NODE_AFFINITY, podAffinity=POD_AFFINITY,
                 podAntiAffinity=POD_AFFINITY),
    tolerations=array(obj(key=STRING, operator=STRING, value=STRING, effect=STRING,
                          tolerationSeconds=INTEGER)),
    topologySpreadConstraints=array(TOPOLOGY_SPREAD_CONSTRAINT),
    schedulingGates=array(obj(name=STRING)),
    volumes=array(obj(name=STRING,
                      persistentVolumeClaim=obj(claimName=STRING, readOnly=BOOLEAN),
                      ephemeral=obj(volumeClaimTemplate=OBJECT))),
    resourceClaims=array(obj(name=STRING, resourceClaimName=STRING,
                             resourceClaimTemplateName=STRING)),
)
POD_TEMPLATE = obj(metadata=OBJECT_META, spec=POD_SPEC)
WORKLOAD_SPEC = obj(replicas=INTEGER, selector=LABEL_SELECTOR, template=POD_TEMPLATE,
                    parallelism=INTEGER, completions=INTEGER, serviceName=STRING)

# resource.k8s.io/v1 (DynamicResources).
_SELECTORS = array(obj(cel=obj(expression=STRING)))
_TOLERATIONS = array(obj(key=STRING, operator=STRING, value=STRING, effect=STRING,
                         tolerationSeconds=INTEGER))
_CAPACITY_REQUESTS = obj(requests=map_of(QUANTITY))
_EXACT_REQUEST = obj(deviceClassName=STRING, selectors=_SELECTORS, allocationMode=STRING,
                     count=INTEGER, adminAccess=BOOLEAN, tolerations=_TOLERATIONS,
                     capacity=_CAPACITY_REQUESTS)
DEVICE_CLAIM = obj(
    requests=array(obj(name=STRING, exactly=_EXACT_REQUEST,
                       firstAvailable=array(obj(name=STRING, deviceClassName=STRING,
                                                selectors=_SELECTORS, allocationMode=STRING,
                                                count=INTEGER, tolerations=_TOLERATIONS,
                                                capacity=_CAPACITY_REQUESTS)))),
    constraints=array(obj(requests=STRINGS, matchAttribute=STRING, distinctAttribute=STRING)),
    config=array(obj(requests=STRINGS, opaque=obj(driver=STRING))),
)
# ints, bools, strings and versions: list values (DRAListTypeAttributes, alpha in v1.36).
_DEVICE_ATTRIBUTE = obj(string=STRING, version=STRING, int=INTEGER, bool=BOOLEAN,
                        strings=array(STRING), versions=array(STRING), ints=array(INTEGER),
                        bools=array(BOOLEAN))
_COUNTERS = map_of(obj(value=QUANTITY))
_REQUEST_POLICY = obj(default=QUANTITY, validValues=array(QUANTITY),
                      validRange=obj(min=QUANTITY, max=QUANTITY, step=QUANTITY))
_DEVICE = obj(name=STRING, attributes=map_of(_DEVICE_ATTRIBUTE),
              capacity=map_of(obj(value=QUANTITY, requestPolicy=_REQUEST_POLICY)),
              taints=array(obj(key=STRING, value=STRING, effect=STRING, timeAdded=STRING)),
              consumesCounters=array(obj(counterSet=STRING, counters=_COUNTERS)),
              allowMultipleAllocations=BOOLEAN, bindsToNode=BOOLEAN,
              bindingConditions=STRINGS, bindingFailureConditions=STRINGS,
              nodeName=STRING, allNodes=BOOLEAN, nodeSelector=NODE_SELECTOR)
DRA_KINDS = {
    "DeviceClass": obj(spec=obj(selectors=_SELECTORS, config=array(OBJECT),
                                extendedResourceName=STRING)),
    "ResourceClaim": obj(spec=obj(devices=DEVICE_CLAIM)),
    "ResourceClaimTemplate": obj(spec=obj(metadata=OBJECT_META,
                                          spec=obj(devices=DEVICE_CLAIM))),
    "ResourceSlice": obj(spec=obj(
        driver=STRING, nodeName=STRING, allNodes=BOOLEAN, nodeSelector=NODE_SELECTOR,
        pool=obj(name=STRING, generation=INTEGER, resourceSliceCount=INTEGER),
        perDeviceNodeSelection=BOOLEAN, devices=array(_DEVICE),
        sharedCounters=array(obj(name=STRING, counters=_COUNTERS)))),
}

KINDS = {
    **DRA_KINDS,
    "Pod": obj(spec=POD_SPEC, status=obj(phase=STRING, nominatedNodeName=STRING)),
    "Node": obj(
        spec=obj(unschedulable=BOOLEAN, podCIDR=STRING, providerID=STRING,
                 taints=array(obj(key=STRING, value=STRING, effect=STRING,
                                  timeAdded=STRING))),
        status=obj(capacity=QUANTITY_MAP, allocatable=QUANTITY_MAP,
                   images=array(obj(names=STRINGS, sizeBytes=INTEGER))),
    ),
    "Namespace": obj(),
    "PriorityClass": obj(value=INTEGER, globalDefault=BOOLEAN, description=STRING,
                         preemptionPolicy=STRING),
    "PodDisruptionBudget": obj(
        spec=obj(minAvailable=INT_OR_STRING, maxUnavailable=INT_OR_STRING,
                 selector=LABEL_SELECTOR, unhealthyPodEvictionPolicy=STRING),
        status=obj(disruptionsAllowed=INTEGER, currentHealthy=INTEGER, desiredHealthy=INTEGER,
                   expectedPods=INTEGER, disruptedPods=OBJECT),
    ),
    "PersistentVolume": obj(
        spec=obj(capacity=QUANTITY_MAP, accessModes=STRINGS, storageClassName=STRING,
                 persistentVolumeReclaimPolicy=STRING, volumeMode=STRING,
                 claimRef=obj(name=STRING, namespace=STRING, uid=STRING),
                 nodeAffinity=obj(required=NODE_SELECTOR),
                 csi=obj(driver=STRING, volumeHandle=STRING)),
        status=obj(phase=STRING),
    ),
    "PersistentVolumeClaim": obj(
        spec=obj(accessModes=STRINGS, resources=obj(requests=QUANTITY_MAP, limits=QUANTITY_MAP),
                 storageClassName=STRING, volumeName=STRING, volumeMode=STRING,
                 selector=LABEL_SELECTOR),
        status=obj(phase=STRING, capacity=QUANTITY_MAP),
    ),
    "StorageClass": obj(
        provisioner=STRING, volumeBindingMode=STRING, reclaimPolicy=STRING,
        allowVolumeExpansion=BOOLEAN, parameters=STRING_MAP,
        allowedTopologies=array(obj(matchLabelExpressions=array(obj(key=STRING,
                                                                    values=STRINGS)))),
    ),
    "CSINode": obj(spec=obj(drivers=array(obj(name=STRING, nodeID=STRING,
                                              topologyKeys=STRINGS,
                                              allocatable=obj(count=INTEGER))))),
    **{kind: obj(spec=WORKLOAD_SPEC)
       for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job")},
    "CronJob": obj(spec=obj(
        schedule=STRING, timeZone=STRING, concurrencyPolicy=STRING, suspend=BOOLEAN,
        startingDeadlineSeconds=INTEGER, successfulJobsHistoryLimit=INTEGER,
        failedJobsHistoryLimit=INTEGER,
        jobTemplate=obj(metadata=OBJECT_META, spec=WORKLOAD_SPEC))),
}

# The kinds of the types JSON and YAML readers give, looked up before the general rules.
_KIND_OF_TYPE = {str: STRING, int: INTEGER, float: NUMBER, bool: "boolean", dict: "object",
                 list: "array", type(None): "null"}


def _type_of(value) -> str:
    """The OpenAPI type name of a value ("integer" apart from "number")."""
    kind = _KIND_OF_TYPE.get(type(value))
    if kind is not None:
        return kind
    if isinstance(value, int) and not isinstance(value, bool):
        return INTEGER
    kind = json_kind(value)
    return "boolean" if kind == "bool" else kind


def _fits(value, spec) -> bool:
    got = _type_of(value)
    if spec in (QUANTITY, INT_OR_STRING):
        return got in (STRING, INTEGER) or (spec == QUANTITY and got == NUMBER)
    if spec == NUMBER:
        return got in (NUMBER, INTEGER)
    if spec == OBJECT:
        return got == "object"
    if isinstance(spec, dict):
        return got == ("array" if spec["type"] == "array" else "object")
    return got == spec


def _expected(spec) -> str:
    if spec in (QUANTITY, INT_OR_STRING):
        return "string or integer"
    if isinstance(spec, dict):
        return "array" if spec["type"] == "array" else "object"
    return spec


def _wrong_type(path: str, value, spec) -> tuple[str, str]:
    got = _type_of(value)
    return path, (f'Invalid value: "{got}": {path} in body must be of type {_expected(spec)}: '
                  f'"{got}"')


def type_errors(value, spec, path: str = "") -> list[tuple[str, str]]:
    """(field path, message) for every value whose type is not the schema's. A null field is
    absent, but a null item of a list or map of objects is refused, as the OpenAPI validation
    refuses a null where an object is required.
    Iterative, so no depth the safe reader lets through can exhaust the stack."""
    if _checker(spec)(value):
        return []   # the common case, decided without building a path
    errors: list[tuple[str, str]] = []
    pending = [(value, spec, path, False)]
    while pending:
        value, spec, path, in_list = pending.pop()
        if value is None and not (in_list and isinstance(spec, dict)):
            continue
        if not _fits(value, spec):
            errors.append(_wrong_type(path or "<root>", value, spec))
            continue
        if not isinstance(spec, dict):
            continue
        if spec["type"] == "object":
            # Only the fields present, visited in the schema's order (as errors are listed).
            fields = spec["fields"]
            present = sorted((_field_order(fields)[name], name) for name, v in value.items()
                             if v is not None and name in fields)
            pending += [(value[name], fields[name], f"{path}.{name}" if path else name, False)
                        for _, name in reversed(present)]
        elif spec["type"] == "map":
            pending += [(v, spec["value"], f"{path}[{k}]", True)
                        for k, v in reversed(value.items())]
        else:
            pending += [(v, spec["item"], f"{path}[{i}]", True)
                        for i, v in reversed(list(enumerate(value)))]
    return errors


# Python types that certainly fit a scalar spec.
_FITTING_TYPES = {STRING: (str,), INTEGER: (int,), BOOLEAN: (bool,), NUMBER: (int, float),
                  QUANTITY: (str, int, float), INT_OR_STRING: (str, int), OBJECT: (dict,)}
_CHECKERS: dict[int, tuple[object, object]] = {}


def _checker(spec):
    """A function telling whether a value certainly has no type error under spec (False
    sends it to type_errors' exact walk), made once per spec. It recurses along the schema,
    whose depth is fixed, never along the value's own depth."""
    key = spec if isinstance(spec, str) else id(spec)
    entry = _CHECKERS.get(key)
    if entry is None or entry[0] is not spec:
        entry = _CHECKERS[key] = (spec, _make_checker(spec))
    return entry[1]


def _make_checker(spec):
    if not isinstance(spec, dict):
        fitting = frozenset(_FITTING_TYPES.get(spec, ()))
        return lambda v: v is None or type(v) in fitting
    kind = spec["type"]
    if kind == "object":
        fields = {name: _checker(sub) for name, sub in spec["fields"].items()}

        def check_object(v):
            if v is None:
                return True
            if type(v) is not dict:
                return False
            for name, child in v.items():
                check = fields.get(name)
                if check is not None and child is not None and not check(child):
                    return False
            return True
        return check_object
    item_spec = spec["value"] if kind == "map" else spec["item"]
    item = _checker(item_spec)
    # A null item of a list or map of objects is refused; of scalars, skipped.
    null_ok = not isinstance(item_spec, dict)

    def check_items(v):
        if v is None:
            return True
        if type(v) is not (dict if kind == "map" else list):
            return False
        for child in (v.values() if kind == "map" else v):
            if child is None:
                if not null_ok:
                    return False
            elif not item(child):
                return False
        return True
    return check_items


_FIELD_ORDERS: dict[int, tuple[dict, dict[str, int]]] = {}


def _field_order(fields: dict) -> dict[str, int]:
    """Each field's position in an object schema, kept with the schema it describes."""
    entry = _FIELD_ORDERS.get(id(fields))
    if entry is None or entry[0] is not fields:
        entry = _FIELD_ORDERS[id(fields)] = (fields, {name: i for i, name in enumerate(fields)})
    return entry[1]


def object_type_errors(obj: dict) -> list[tuple[str, str]]:
    """Type errors of a Kubernetes object of a supported kind (metadata included)."""
    errors = type_errors(obj.get("metadata"), OBJECT_META, "metadata")
    spec = KINDS.get(obj.get("kind") or "")
    return errors + (type_errors(obj, spec) if spec else [])
