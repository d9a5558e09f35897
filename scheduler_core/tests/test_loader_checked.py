"""load_documents(checked=True): documents validated when stored load to the same cluster,
without the per-object validation done again."""
from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.errors import InputError
from scheduler_core.loader import _read_documents, load_documents

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.yaml")))
def test_checked_documents_load_to_the_same_cluster(name):
    path = str(FIXTURES / name)
    checked = load_documents([(path, _read_documents(path, None))], 1, checked=True)
    validated = load_documents([(path, _read_documents(path, None))], 1)
    assert checked.nodes == validated.nodes
    assert checked.pods == validated.pods
    assert [p.key for p in checked.pod_infos()] == [p.key for p in validated.pod_infos()]


def test_only_unchecked_documents_are_validated():
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n", "labels": {"bad key!": "x"}},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}
    with pytest.raises(InputError, match="metadata.labels"):
        load_documents([("f", [node])])
    assert load_documents([("f", [node])], checked=True).nodes == [node]
