"""A bounded hypothesis fuzz of the import endpoint with the loader fuzz's documents, as YAML
and as JSON files: every answer is a 201 or a JSON 4xx, never a 500 or a traceback."""

import json

import pytest
import yaml
from django.core.cache import cache
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.clusters.models import Cluster
from scheduler_core.tests.test_loader_fuzz import mutated_documents

pytestmark = pytest.mark.django_db


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(docs=mutated_documents(), form=st.sampled_from(["yaml", "json"]))
def test_imports_answer_201_or_a_json_4xx(api, alice, docs, form):
    cache.clear()
    text = yaml.safe_dump_all(docs) if form == "yaml" else json.dumps(docs)
    before = Cluster.objects.filter(owner=alice).count()
    response = api.post("/api/clusters/import/", {
        "name": f"fuzz-{before}", "files": [{"name": f"f.{form}", "text": text}]},
        format="json")
    assert response.status_code in (201, 400, 403, 413), response.content[:500]
    assert b"Traceback" not in response.content
    body = response.json()
    if response.status_code != 201:
        assert Cluster.objects.filter(owner=alice).count() == before
        assert all(isinstance(v, list) for v in body.values())
