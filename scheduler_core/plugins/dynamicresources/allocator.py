"""The structured-parameters allocator (dynamic-resource-allocation/structured).

Allocate() is an exhaustive, depth-first search: claim after claim, request after request,
device after device, it takes the first device that is free, matches the class's and the
request's CEL selectors and keeps every matchAttribute constraint; the first full solution wins.
A request with `firstAvailable` tries its subrequests in order (DRAPrioritizedList, beta and on
in v1.34). Pools are gathered per node from the ResourceSlices (newest generation only;
incomplete or invalid pools give no devices). Devices are identified as (driver, pool, device).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...labels import match_node_selector_terms
from .cel import CELError, attribute_value, compile_selector, device_variables
from .objects import claim_key

ALLOCATION_RESULTS_MAX_SIZE = 32


class AllocationError(Exception):
    """The claim or class cannot be handled at all: the plugin aborts the cycle with an error."""


@dataclass
class Pool:
    driver: str
    name: str
    slices: list[dict]
    incomplete: bool = False
    invalid: bool = False

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


@dataclass
class _Request:
    """A request, or one subrequest of a firstAvailable request (`parent` names the request)."""
    name: str
    parent: str
    klass: dict
    selectors: list
    mode: str
    admin: bool
    num_devices: int = 0
    all_devices: list = field(default_factory=list)  # (device id, device, slice) for mode All

    @property
    def full_name(self) -> str:
        """requestName(): "<request>/<subrequest>" for a subrequest."""
        return f"{self.parent}/{self.name}" if self.parent else self.name

    @property
    def base_and_sub(self) -> tuple[str, str]:
        return (self.parent, self.name) if self.parent else (self.name, "")


class _MatchAttribute:
    """matchAttributeConstraint: every device of the named requests shares the attribute."""

    def __init__(self, attribute: str, requests):
        self.attribute, self.requests = attribute, set(requests or [])
        self.value, self.count = None, 0

    def _applies(self, base: str, sub: str) -> bool:
        if not self.requests:
            return True
        return base in self.requests or (bool(sub) and f"{base}/{sub}" in self.requests)

    def add(self, base: str, sub: str, device: dict, device_id: tuple) -> bool:
        if not self._applies(base, sub):
            return True
        value = _lookup_attribute(device, device_id[0], self.attribute)
        if value is None:
            return False
        if self.count == 0:
            self.value, self.count = value, 1
            return True
        if value != self.value:
            return False
        self.count += 1
        return True

    def remove(self, base: str, sub: str) -> None:
        if self._applies(base, sub):
            self.count -= 1


def _lookup_attribute(device: dict, driver: str, name: str):
    """The attribute's typed value, by its fully qualified name or by id in the driver's domain."""
    attributes = device.get("attributes") or {}
    if name in attributes:
        return _typed(attributes[name])
    domain, sep, ident = name.partition("/")
    if not sep or domain != driver or ident not in attributes:
        return None
    return _typed(attributes[ident])


def _typed(attr: dict):
    kind = next((k for k in ("int", "bool", "string", "version") if k in (attr or {})), None)
    return None if kind is None else (kind, str(attr[kind]) if kind == "version"
                                      else attribute_value(attr))


def node_matches(node: dict, node_name: str, all_nodes: bool, selector: dict | None) -> bool:
    meta = node.get("metadata") or {}
    if node_name:
        return meta.get("name") == node_name
    if all_nodes:
        return True
    if selector is not None:
        return match_node_selector_terms(selector, meta.get("labels") or {}, meta.get("name", ""))
    return False


def gather_pools(slices: list[dict], node: dict) -> list[Pool]:
    """GatherPools: the pools with devices reachable from the node, in order of first slice."""
    pools: dict[tuple, Pool] = {}
    for s in slices:
        spec = s["spec"]
        if not node_matches(node, spec.get("nodeName", ""), bool(spec.get("allNodes")),
                            spec.get("nodeSelector")):
            continue
        key = (spec["driver"], spec["pool"]["name"])
        pool = pools.get(key)
        generation = spec["pool"].get("generation", 0)
        if pool is None:
            pools[key] = Pool(spec["driver"], spec["pool"]["name"], [s])
        elif generation > pool.slices[0]["spec"]["pool"].get("generation", 0):
            pool.slices = [s]  # newer: replaces the old slices
        elif generation == pool.slices[0]["spec"]["pool"].get("generation", 0):
            pool.slices.append(s)
    for pool in pools.values():
        pool.incomplete = len(pool.slices) != pool.slices[0]["spec"]["pool"]["resourceSliceCount"]
        names = [d["name"] for s in pool.slices for d in s["spec"].get("devices") or []]
        pool.invalid = len(names) != len(set(names))
    return list(pools.values())


class Allocator:
    """One per scheduling cycle: the classes, the slices and the devices already in use."""

    def __init__(self, *, classes: dict[str, dict], slices: list[dict],
                 allocated: set[tuple]):
        self.classes, self.slices, self.allocated = classes, slices, allocated

    def allocate(self, node: dict, claims: list[dict]) -> list[dict] | None:
        """One AllocationResult per claim, None when the node cannot satisfy them all."""
        return _Run(self, node, claims).run()


class _Run:
    """One Allocate call: the search state for one node."""

    def __init__(self, alloc: Allocator, node: dict, claims: list[dict]):
        self.a, self.node, self.claims = alloc, node, claims
        self.pools = gather_pools(alloc.slices, node)
        # Per claim, per request: its alternatives (one, or the firstAvailable subrequests),
        # and the alternative the solution took.
        self.requests: list[list[list[_Request]]] = []
        self.selected: list[list[int]] = []
        self.constraints: list[list[_MatchAttribute]] = []
        self.allocating: dict[tuple, set[int]] = {}
        self.results: list[list[dict]] = [[] for _ in claims]
        self.matches: dict[tuple, bool] = {}

    def run(self) -> list[dict] | None:
        for index, claim in enumerate(self.claims):
            self._prepare(index, claim)
        if not self._allocate_one(0, 0, 0):
            if any(p.invalid for p in self.pools):
                raise AllocationError("invalid resource pools were encountered")
            return None
        return [self._result(i, claim) for i, claim in enumerate(self.claims)]

    # --- preparation ---------------------------------------------------------------------
    def _prepare(self, index: int, claim: dict) -> None:
        devices = claim["spec"].get("devices") or {}
        requests, minimum = [], 0
        for request in devices.get("requests") or []:
            if request.get("firstAvailable"):
                alternatives = [self._validate_request(index, claim, sub, sub["name"],
                                                       request["name"])
                                for sub in request["firstAvailable"]]
            else:
                alternatives = [self._validate_request(index, claim, request["exactly"],
                                                       request["name"])]
            requests.append(alternatives)
            # Only a lower bound for subrequests: which one is taken is not known yet.
            minimum += min(a.num_devices for a in alternatives)
        if minimum > ALLOCATION_RESULTS_MAX_SIZE:
            raise AllocationError(f"claim {claim_key(claim)}: number of requested devices "
                                  f"{minimum} exceeds the claim limit of "
                                  f"{ALLOCATION_RESULTS_MAX_SIZE}")
        self.requests.append(requests)
        self.selected.append([0] * len(requests))
        self.constraints.append([_MatchAttribute(c["matchAttribute"], c.get("requests"))
                                 for c in devices.get("constraints") or []])

    def _validate_request(self, index: int, claim: dict, exact: dict, name: str,
                          parent: str = "") -> _Request:
        klass = self.a.classes.get(exact["deviceClassName"])
        if klass is None:
            raise AllocationError(
                f"claim {claim_key(claim)}, request {name}: could not retrieve device class "
                f'{exact["deviceClassName"]}: deviceclass.resource.k8s.io '
                f'"{exact["deviceClassName"]}" not found')
        data = _Request(name, parent, klass, exact.get("selectors") or [],
                        exact["allocationMode"], bool(exact.get("adminAccess")))
        if data.mode == "ExactCount":
            data.num_devices = exact["count"]
            return data
        for pool in self.pools:
            state = "being updated" if pool.incomplete else "invalid" if pool.invalid else ""
            if state:
                raise AllocationError(
                    f"claim {claim_key(claim)}, request {name}: asks for all devices, but "
                    f"resource pool {pool.pool_id} is currently {state}")
            for s in pool.slices:
                for device in s["spec"].get("devices") or []:
                    device_id = (pool.driver, pool.name, device["name"])
                    if self._selectable(index, data, device, device_id, claim):
                        data.all_devices.append((device_id, device, s))
        data.num_devices = len(data.all_devices)
        return data

    # --- selection -----------------------------------------------------------------------
    def _selectable(self, index: int, data: _Request, device: dict, device_id: tuple,
                    claim: dict) -> bool:
        key = (device_id, index, data.full_name)
        if key in self.matches:
            return self.matches[key]
        attributes, capacity = device_variables(device, device_id[0])
        match = (self._selectors_match(data.klass.get("spec", {}).get("selectors") or [],
                                       device_id, attributes, capacity,
                                       f"class {data.klass['metadata']['name']}")
                 and self._selectors_match(data.selectors, device_id, attributes, capacity,
                                           f"claim {claim_key(claim)}"))
        self.matches[key] = match
        return match

    @staticmethod
    def _selectors_match(selectors, device_id, attributes, capacity, owner: str) -> bool:
        for i, selector in enumerate(selectors):
            expression = selector["cel"]["expression"]
            try:
                compiled = compile_selector(expression)
            except CELError as exc:
                raise AllocationError(f"{owner}: selector #{i}: CEL compile error: {exc}") from exc
            try:
                if not compiled.matches(device_id[0], attributes, capacity):
                    return False
            except CELError as exc:
                raise AllocationError(f"{owner}: selector #{i} on device {'/'.join(device_id)}: "
                                      f"CEL runtime error: {exc}") from exc
        return True

    def _in_use(self, device_id: tuple, claim_index: int, admin: bool) -> bool:
        if admin:
            return claim_index in self.allocating.get(device_id, ())
        return device_id in self.a.allocated or bool(self.allocating.get(device_id))

    # --- the search ----------------------------------------------------------------------
    def _allocate_one(self, c: int, r: int, d: int, alt: int | None = None) -> bool:
        if c >= len(self.claims):
            return True
        if r >= len(self.requests[c]):
            return self._allocate_one(c + 1, 0, 0)
        alternatives = self.requests[c][r]
        if alt is None:
            # The first alternative (subrequest) that leads to a full solution wins.
            for i in range(len(alternatives)):
                if self._allocate_one(c, r, d, i):
                    self.selected[c][r] = i
                    return True
            return False
        data = alternatives[alt]
        if data.mode == "All" and not data.all_devices:
            return False
        if d >= data.num_devices:
            return self._allocate_one(c, r + 1, 0)
        if len(self.results[c]) + data.num_devices - d > ALLOCATION_RESULTS_MAX_SIZE:
            return False
        if data.mode == "All":
            # Every one of them is needed, in any order: only the next one is tried.
            return self._try(c, r, d, alt, data, *data.all_devices[d], must=True)
        return any(self._try(c, r, d, alt, data, device_id, device, s, must=False)
                   for device_id, device, s in self._candidates(c, data))

    def _candidates(self, c: int, data: _Request):
        """Free devices of the usable pools that match the request's selectors, lazily."""
        for pool in self.pools:
            if pool.incomplete or pool.invalid:
                continue
            for s in pool.slices:
                for device in s["spec"].get("devices") or []:
                    device_id = (pool.driver, pool.name, device["name"])
                    if not self._in_use(device_id, c, data.admin) and self._selectable(
                            c, data, device, device_id, self.claims[c]):
                        yield device_id, device, s

    def _try(self, c, r, d, alt, data, device_id, device, s, must: bool) -> bool:
        """Take the device and go on with the next one; on a dead end, give it back."""
        undo = self._allocate_device(c, data, device_id, device, s, must=must)
        if undo is None:
            return False
        if self._allocate_one(c, r, d + 1, alt):
            return True
        undo()
        return False

    def _allocate_device(self, c: int, data: _Request, device_id, device, s, must: bool):
        """Take the device if free and every constraint allows it; the undo function, or None."""
        if self._in_use(device_id, c, data.admin):
            return None
        constraints = self.constraints[c]
        base, sub = data.base_and_sub
        for i, constraint in enumerate(constraints):
            if not constraint.add(base, sub, device, device_id):
                if must:
                    raise AllocationError(
                        f"claim {claim_key(self.claims[c])}, request {data.name}: cannot add "
                        f"device {'/'.join(device_id)} because a claim constraint would not be "
                        "satisfied")
                for previous in constraints[:i]:
                    previous.remove(base, sub)
                return None
        self.allocating.setdefault(device_id, set()).add(c)
        result = {"request": data.full_name, "driver": device_id[0], "pool": device_id[1],
                  "device": device_id[2]}
        if data.admin:
            result["adminAccess"] = True
        self.results[c].append((result, s))
        size = len(self.results[c]) - 1

        def undo():
            for constraint in constraints:
                constraint.remove(base, sub)
            self.allocating[device_id].discard(c)
            del self.results[c][size:]
        return undo

    # --- results -------------------------------------------------------------------------
    def _result(self, index: int, claim: dict) -> dict:
        devices = {"results": [r for r, _ in self.results[index]]}
        config = self._config(index, claim)
        if config:
            devices["config"] = config
        out = {"devices": devices}
        selector = _node_selector([s for _, s in self.results[index]])
        if selector is not None:
            out["nodeSelector"] = selector
        return out

    def _config(self, index: int, claim: dict) -> list[dict]:
        """Class configs once per class (FromClass), then the claim's own (FromClaim), each
        claim config once per request it names (or once when it names none), as Go adds them."""
        requests = claim["spec"]["devices"].get("requests") or []
        taken = [alts[i] for alts, i in zip(self.requests[index], self.selected[index])]
        config, by_class = [], {}
        for data in taken:
            name = data.klass["metadata"]["name"]
            if name in by_class:
                for entry in by_class[name]:
                    entry["requests"].append(data.full_name)
                continue
            entries = [{"source": "FromClass", "requests": [data.full_name], **_opaque(c)}
                       for c in data.klass.get("spec", {}).get("config") or []]
            by_class[name] = entries
            config += entries
        for c in claim["spec"]["devices"].get("config") or []:
            wanted = c.get("requests") or []
            named = [r for r, data in zip(requests, taken)
                     if r["name"] in wanted or (data.parent and data.full_name in wanted)]
            for _ in named if wanted else [None]:
                config.append({"source": "FromClaim", "requests": list(wanted), **_opaque(c)})
        for entry in config:
            if len(entry["requests"]) == len(requests):
                entry["requests"] = []
        return [{k: v for k, v in e.items() if v != []} for e in config]


def _opaque(config: dict) -> dict:
    return {"opaque": config["opaque"]} if "opaque" in config else {}


def _node_selector(slices: list[dict]) -> dict | None:
    """createNodeSelector: a device local to a node pins the claim there; selectors add up."""
    fields, expressions = [], []
    for s in slices:
        spec = s["spec"]
        if spec.get("nodeName"):
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [spec["nodeName"]]}]}]}
        terms = (spec.get("nodeSelector") or {}).get("nodeSelectorTerms") or []
        if len(terms) == 1:
            _add_new(terms[0].get("matchFields") or [], fields)
            _add_new(terms[0].get("matchExpressions") or [], expressions)
        elif len(terms) > 1:
            raise AllocationError(f"create NodeSelector: unsupported ResourceSlice.NodeSelector "
                                  f"with {len(terms)} terms")
    if not fields and not expressions:
        return None
    term = {}
    if fields:
        term["matchFields"] = fields
    if expressions:
        term["matchExpressions"] = expressions
    return {"nodeSelectorTerms": [term]}


def _add_new(requirements: list[dict], into: list[dict]) -> None:
    for req in requirements:
        if not any(e.get("key") == req.get("key") and e.get("operator") == req.get("operator")
                   and set(e.get("values") or []) == set(req.get("values") or []) for e in into):
            into.append(req)


def allocated_devices(claims) -> set[tuple]:
    """Devices in use by allocated claims; admin access does not count as use."""
    out = set()
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation")
        for result in ((allocation or {}).get("devices") or {}).get("results") or []:
            if not result.get("adminAccess"):
                out.add((result["driver"], result["pool"], result["device"]))
    return out
