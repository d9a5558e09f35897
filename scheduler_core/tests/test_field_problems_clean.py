"""field_problems' shortcut (openapi._certainly_clean) says "clean" only where the walk finds
nothing, on objects with unknown fields and out-of-range integers put anywhere in them."""
from __future__ import annotations

import copy
import random

from scheduler_core import openapi
from scheduler_core.testing import make_node, make_pod

RELEASE = openapi.DEFAULT_RELEASE


def _pod() -> dict:
    pod = make_pod("p", cpu="1", node_name="n", priority=5,
                   tolerations=[{"key": "k", "operator": "Exists", "tolerationSeconds": 3}],
                   topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone",
                                               "whenUnsatisfiable": "DoNotSchedule"}])
    pod["metadata"]["labels"] = {"app": "web"}
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 80}]
    return pod


def _places(value, out):
    """Every dict and list of the object, where a field or an integer can be put."""
    if isinstance(value, dict):
        out.append(value)
        for child in value.values():
            _places(child, out)
    elif isinstance(value, list):
        out.append(value)
        for child in value:
            _places(child, out)
    return out


def _spoiled(obj: dict, rng: random.Random) -> dict:
    obj = copy.deepcopy(obj)
    places = _places(obj, [])
    integers = [(p, k) for p in places if isinstance(p, dict)
                for k, v in p.items() if type(v) is int]
    if integers and rng.random() < 0.3:      # an integer of the object out of its range, or not
        place, key = rng.choice(integers)
        place[key] = rng.choice((2**31, -(2**31) - 1, 2**63, 2**31 - 1))
        return obj
    place = rng.choice(places)
    bad = rng.choice(("unknown", 2**40, -(2**70), 7))
    if isinstance(place, dict):
        key = rng.choice(["notAField", *place]) if place else "notAField"
        place[key] = bad if bad != "unknown" else {"x": 1}
    else:
        place.append(bad if bad != "unknown" else {"notAField": 1})
    return obj


def test_the_shortcut_agrees_with_the_walk_on_spoiled_objects():
    rng = random.Random(3)
    kinds = {"Pod": (_pod(), "io.k8s.api.core.v1.Pod"),
             "Node": (make_node("n", labels={"zone": "a"}), "io.k8s.api.core.v1.Node")}
    told_apart = 0
    for obj, definition in kinds.values():
        assert openapi._certainly_clean(obj, definition, RELEASE)
        for _ in range(300):
            spoiled = _spoiled(obj, rng)
            clean = openapi._certainly_clean(spoiled, definition, RELEASE)
            problems = openapi.walk_field_problems(copy.deepcopy(spoiled), definition, RELEASE)
            if clean:
                assert not problems.unknown and not problems.out_of_range, spoiled
            else:
                told_apart += 1
    assert told_apart > 100
