"""Resource pools (dynamic-resource-allocation/structured, pools_incubating.go): which devices a
node can reach, gathered from the ResourceSlices, and an index that finds them without reading
every slice for every node.

Go's GatherPools reads the whole slice list on each Allocate call, that is for every node
Filter visits. The outcome only depends on the slices that can target the node, so SliceIndex
reads just those: the slices named after the node, and the few a node name does not decide
(node selectors, allNodes, per-device selection, shared counters), in their list order, so the
pools and their order are the ones GatherPools gives.

`partitionable` is the DRAPartitionableDevices feature (Features.partitionable_devices).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...labels import match_node_selector_terms


@dataclass
class Pool:
    driver: str
    name: str
    slices: list[dict]                 # the newest generation's slices with devices for the node
    incomplete: bool = False
    invalid: bool = False
    all_slices: list[dict] = field(default_factory=list)   # every slice of that generation

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


def node_matches(node: dict, node_name: str, all_nodes: bool, selector: dict | None) -> bool:
    meta = node.get("metadata") or {}
    if node_name:
        return meta.get("name") == node_name
    if all_nodes:
        return True
    if selector is not None:
        return match_node_selector_terms(selector, meta.get("labels") or {}, meta.get("name", ""))
    return False


def targets(node: dict, placement: dict) -> bool:
    """Whether a slice's (or a device's) node selection reaches the node."""
    return node_matches(node, placement.get("nodeName", ""), bool(placement.get("allNodes")),
                        placement.get("nodeSelector"))


def _slice_targets(s: dict, node: dict, partitionable: bool) -> bool:
    """Whether the slice has devices for the node: by its own node selection, or (partitionable
    devices' perDeviceNodeSelection) by any of its devices' selections."""
    spec = s["spec"]
    if spec.get("perDeviceNodeSelection"):
        return partitionable and any(targets(node, d) for d in spec.get("devices") or [])
    return targets(node, spec)


def pool_key(s: dict) -> tuple[str, str]:
    return s["spec"]["driver"], s["spec"]["pool"]["name"]


def gather_pools(slices: list[dict], node: dict, partitionable: bool = True) -> list[Pool]:
    """GatherPools over a whole slice list."""
    return _gather(slices, node, partitionable,
                   lambda key: [s for s in slices if pool_key(s) == key])


def _gather(candidates: list[dict], node: dict, partitionable: bool, same_pool) -> list[Pool]:
    """GatherPools (pools_incubating.go): the pools with devices reachable from the node, in
    order of first slice. Slices with sharedCounters always count (partitionable devices; with
    the feature off they and perDeviceNodeSelection slices are ignored).

    candidates: the slices that may target the node, in list order; same_pool(key): every
    slice of that pool, whichever node it targets, in list order.

    A pool is complete when its slices for the node number resourceSliceCount. Only when they
    do not are the other nodes' slices looked at: a newer generation there makes the pool
    obsolete (ignored), otherwise all slices of the generation decide completeness. A pool
    whose devices repeat a name, or whose counter sets or counter consumption do not add up,
    is invalid."""
    pools: dict[tuple, list[dict]] = {}
    for s in candidates:
        spec = s["spec"]
        counters_slice = bool(spec.get("sharedCounters"))
        if not partitionable and (
                spec.get("perDeviceNodeSelection") is not None or counters_slice):
            continue
        if counters_slice or _slice_targets(s, node, partitionable):
            _add_slice(pools, s)
    out = []
    for (driver, name), targeting in pools.items():
        count = targeting[0]["spec"]["pool"]["resourceSliceCount"]
        all_slices = targeting
        if len(targeting) != count:
            generation = _generation(targeting[0])
            others = same_pool((driver, name))
            if any(_generation(s) > generation for s in others):
                continue   # obsolete: the driver is replacing this generation
            all_slices = [s for s in others if _generation(s) == generation]
            if len(all_slices) != count:
                out.append(Pool(driver, name, [], incomplete=True))
                continue
        out.append(_build_pool(driver, name, targeting, all_slices, partitionable))
    return out


def _add_slice(pools: dict, s: dict) -> None:
    """addSlice: a newer generation replaces the pool's slices, an older one is ignored."""
    key = pool_key(s)
    current = pools.get(key)
    if current is None or _generation(s) > _generation(current[0]):
        pools[key] = [s]
    elif _generation(s) == _generation(current[0]):
        current.append(s)


def _build_pool(driver: str, name: str, targeting: list[dict], all_slices: list[dict],
                partitionable: bool) -> Pool:
    """buildPool: the node's device slices, validated."""
    device_slices = [s for s in targeting
                     if not (partitionable and s["spec"].get("sharedCounters"))]
    pool = Pool(driver, name, device_slices, all_slices=all_slices)
    names = [d["name"] for s in device_slices for d in s["spec"].get("devices") or []]
    pool.invalid = len(names) != len(set(names))
    if partitionable and not pool.invalid:
        counter_sets = _counter_sets(targeting)
        pool.invalid = counter_sets is None or not _consumption_valid(counter_sets, all_slices)
    return pool


def _counter_sets(pool_slices: list[dict]) -> dict[str, set] | None:
    """getAndValidateCounterSets: counter set name -> its counters; None for a name twice."""
    out: dict[str, set] = {}
    for s in pool_slices:
        for counter_set in s["spec"].get("sharedCounters") or []:
            if counter_set.get("name") in out:
                return None
            out[counter_set.get("name")] = set(counter_set.get("counters") or {})
    return out


def _consumption_valid(counter_sets: dict[str, set], pool_slices: list[dict]) -> bool:
    """validateDeviceCounterConsumption: every consumed counter exists in its counter set."""
    for s in pool_slices:
        for device in s["spec"].get("devices") or []:
            for usage in device.get("consumesCounters") or []:
                known = counter_sets.get(usage.get("counterSet"))
                if known is None or not set(usage.get("counters") or {}) <= known:
                    return False
    return True


def _generation(s: dict) -> int:
    return s["spec"]["pool"].get("generation", 0)


def _named_node(spec: dict) -> str:
    """The node a slice can only target, when its own nodeName decides it ('' otherwise)."""
    if spec.get("perDeviceNodeSelection") is not None or spec.get("sharedCounters"):
        return ""
    return spec.get("nodeName") or ""


class SliceIndex:
    """The slices of one tracker state (not to be changed while indexed), by the node they
    name and by pool; the pools gathered per node, kept while no slice's selection depends on
    more than the node's name; and `memo`, where the allocator keeps what is pure per device
    of these slices (selector results, capacity checks)."""

    def __init__(self, slices: list[dict], partitionable: bool = True):
        self.slices, self.partitionable = slices, partitionable
        self._by_node: dict[str, list[int]] = {}
        self._general: list[int] = []      # positions of slices a node name does not decide
        self._by_pool: dict[tuple, list[int]] = {}
        for position, s in enumerate(slices):
            named = _named_node(s["spec"])
            if named:
                self._by_node.setdefault(named, []).append(position)
            else:
                self._general.append(position)
            self._by_pool.setdefault(pool_key(s), []).append(position)
        self._pools: dict[str, list[Pool]] = {}
        self.memo: dict = {}

    def pools(self, node: dict) -> list[Pool]:
        """GatherPools for the node."""
        name = (node.get("metadata") or {}).get("name", "")
        if not self._general:
            pools = self._pools.get(name)
            if pools is None:
                pools = self._pools[name] = self._gather(self._by_node.get(name, []), node)
            return pools
        positions = sorted(self._by_node.get(name, []) + self._general)
        return self._gather(positions, node)

    def _gather(self, positions: list[int], node: dict) -> list[Pool]:
        return _gather([self.slices[p] for p in positions], node, self.partitionable,
                       self.of_pools)

    def of_pools(self, *keys: tuple[str, str]) -> list[dict]:
        """The slices of these pools, in list order."""
        positions = sorted({p for key in keys for p in self._by_pool.get(key, ())})
        return [self.slices[p] for p in positions]
