"""NodeInfo.clone shares its pod list with the source (framework/types.go's Clone copies it):
whatever either side does afterwards, each sees its own pods, as with a copy."""
from __future__ import annotations

import random

from ..framework.types import NodeInfo, PodInfo


def _pod(name: str, cpu: str = "100m") -> PodInfo:
    return PodInfo({"metadata": {"name": name, "uid": name},
                    "spec": {"nodeName": "n", "containers": [
                        {"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})


def _node(*pods: PodInfo) -> NodeInfo:
    ni = NodeInfo({"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "100"}}})
    for pi in pods:
        ni.add_pod(pi)
    return ni


def _names(ni: NodeInfo) -> list[str]:
    return [p.name for p in ni.pods]


def test_a_copy_keeps_its_pods_when_the_source_adds_one():
    a, b = _pod("a"), _pod("b")
    source = _node(a)
    copy = source.clone()
    source.add_pod(b)
    assert _names(copy) == ["a"] and _names(source) == ["a", "b"]
    assert copy.requested.milli_cpu == 100 and source.requested.milli_cpu == 200


def test_a_copy_keeps_its_pods_when_the_source_removes_one():
    a, b = _pod("a"), _pod("b")
    source = _node(a, b)
    copy = source.clone()
    assert source.remove_pod(a)
    assert _names(copy) == ["a", "b"] and _names(source) == ["b"]


def test_the_source_keeps_its_pods_when_a_copy_adds_or_removes_one():
    a, b, c = _pod("a"), _pod("b"), _pod("c")
    source = _node(a, b)
    copy = source.clone()
    copy.add_pod(c)
    assert _names(source) == ["a", "b"]
    other = source.clone()
    assert other.remove_pod(b)
    assert _names(source) == ["a", "b"] and _names(other) == ["a"]
    assert _names(copy) == ["a", "b", "c"]


def test_a_copy_made_before_the_source_grew_and_a_copy_of_it_see_the_same_pods():
    a, b, c = _pod("a"), _pod("b"), _pod("c")
    source = _node(a)
    first = source.clone()
    source.add_pod(b)
    second = first.clone()
    second.add_pod(c)
    assert _names(first) == ["a"] and _names(second) == ["a", "c"]
    assert _names(source) == ["a", "b"]


def test_copies_and_changes_in_any_order_match_lists_copied_each_time():
    rng = random.Random(7)
    pods = [_pod(f"p{i}") for i in range(40)]
    nodes, expected = [_node()], [[]]
    for _ in range(400):
        i = rng.randrange(len(nodes))
        action = rng.choice(("add", "remove", "clone"))
        if action == "add":
            pi = rng.choice(pods)
            if pi.name not in expected[i]:
                nodes[i].add_pod(pi)
                expected[i].append(pi.name)
        elif action == "remove" and expected[i]:
            name = rng.choice(expected[i])
            assert nodes[i].remove_pod(next(p for p in pods if p.name == name))
            expected[i].remove(name)
        elif action == "clone":
            nodes.append(nodes[i].clone())
            expected.append(list(expected[i]))
        for ni, names in zip(nodes, expected):
            assert _names(ni) == names and len(ni.pods) == len(names)
            assert ni.requested.milli_cpu == 100 * len(names)
