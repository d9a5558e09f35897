"""/api/schema/, /api/docs/ and /api/redoc/: served without login and without a CDN."""

import pytest
import yaml

CDN_HOSTS = ("cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com", "fonts.googleapis.com")


def test_the_schema_is_openapi(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Scheduling Playground API"


def test_the_schema_is_available_as_json(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.")


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_the_docs_pages_load_assets_locally(client, path):
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    for host in CDN_HOSTS:
        assert host not in html


def test_the_swagger_assets_are_found_by_staticfiles():
    from django.contrib.staticfiles import finders

    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
