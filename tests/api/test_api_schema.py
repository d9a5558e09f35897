"""/api/schema/: every data-layer endpoint is documented with its error responses."""

import pytest
import yaml


@pytest.fixture
def schema(client, db):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if path.startswith(("/api/clusters", "/api/runs", "/api/plugins", "/api/profiles")):
                yield path, method, operation


def test_every_endpoint_documents_who_may_call_it(schema):
    undocumented = [f"{m.upper()} {p}" for p, m, op in _operations(schema)
                    if not {"401", "403"} <= set(op["responses"])]
    assert undocumented == []


def test_every_endpoint_with_an_id_documents_404(schema):
    missing = [f"{m.upper()} {p}" for p, m, op in _operations(schema)
               if "{" in p and "404" not in op["responses"]]
    assert missing == []


def test_every_endpoint_that_takes_input_documents_400(schema):
    missing = [f"{m.upper()} {p}" for p, m, op in _operations(schema)
               if m in ("post", "put", "patch") and "400" not in op["responses"]
               and not p.endswith(("/start/", "/pause/", "/resume/", "/reset/"))]
    assert missing == []


def test_imports_document_413(schema):
    for path in ("/api/clusters/import/", "/api/clusters/{id}/import/"):
        assert "413" in schema["paths"][path]["post"]["responses"]
        content = schema["paths"][path]["post"]["requestBody"]["content"]
        assert {"application/json", "multipart/form-data"} <= set(content)


def test_the_documented_endpoints_are_the_specs(schema):
    paths = set(schema["paths"])
    for expected in ("/api/clusters/", "/api/clusters/{cluster_id}/nodes/",
                     "/api/clusters/{cluster_id}/pods/", "/api/clusters/{cluster_id}/namespaces/",
                     "/api/clusters/{cluster_id}/priorityclasses/",
                     "/api/clusters/{cluster_id}/pdbs/", "/api/clusters/{cluster_id}/pvs/",
                     "/api/clusters/{cluster_id}/pvcs/",
                     "/api/clusters/{cluster_id}/storageclasses/",
                     "/api/clusters/{cluster_id}/objects/", "/api/clusters/{id}/profile/",
                     "/api/clusters/import/", "/api/clusters/{id}/import/",
                     "/api/clusters/{id}/export/", "/api/clusters/{id}/clone/", "/api/runs/",
                     "/api/runs/{id}/start/", "/api/runs/{id}/step/", "/api/runs/{id}/pause/",
                     "/api/runs/{id}/resume/", "/api/runs/{id}/reset/", "/api/runs/{id}/cycles/",
                     "/api/runs/{id}/cycles/{index}/", "/api/runs/{id}/state/",
                     "/api/runs/{id}/export/", "/api/plugins/", "/api/auth/token/",
                     "/api/profiles/yaml/", "/api/profiles/check/", "/api/clusters/{id}/compare/",
                     "/api/runs/{id}/view/", "/api/runs/{id}/objects/", "/api/runs/{id}/history/",
                     "/api/runs/compare/"):
        assert expected in paths


def test_the_pages_json_is_the_documented_api_and_nothing_answers_under_ui(client, alice):
    """One API: what the pages read is documented under /api/, and the old /ui/ helpers are
    gone rather than answering beside it."""
    client.force_login(alice)
    for url in ("/ui/yaml/", "/ui/profile/check/", "/ui/runs/1/view/", "/ui/runs/compare/"):
        assert client.get(url).status_code == 404, url
