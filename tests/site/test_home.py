"""The home page at /."""

import pytest
from django.contrib.staticfiles import finders


@pytest.fixture
def page(client):
    response = client.get("/")
    assert response.status_code == 200
    return response.content.decode()


def test_it_says_what_the_playground_is(page):
    assert "<title>Scheduling Playground</title>" in page
    assert "Kubernetes Scheduling Playground" in page
    assert "scheduling framework" in page


def test_it_links_to_the_api_documentation(page):
    assert 'href="/api/docs/"' in page
    assert 'href="/api/schema/"' in page
    assert 'href="/api/redoc/"' in page


def test_it_links_to_health_and_admin(page):
    assert 'href="/healthz"' in page
    assert 'href="/admin/"' in page


def test_it_uses_the_stylesheet_from_frontend(page):
    assert 'href="/static/css/playground.css"' in page
    found = finders.find("css/playground.css")
    assert found is not None
    assert found.replace("\\", "/").endswith("frontend/css/playground.css")


def test_it_needs_no_login(client):
    assert client.get("/").status_code == 200
