"""Every answer under /api/ is JSON, whatever failed: size, parsing, middleware (issue 29)."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(alice):
    client = Client(enforce_csrf_checks=False)
    client.force_login(alice)
    return client


def assert_json_error(response, status: int) -> dict:
    assert response.status_code == status
    assert response["Content-Type"].split(";")[0] == "application/json"
    body = response.json()
    assert isinstance(body, dict) and body
    return body


@pytest.mark.parametrize("debug", [True, False])
def test_a_body_over_the_limit_is_a_json_413_naming_the_limit(signed_in, settings, debug):
    settings.DEBUG = debug
    settings.PLAYGROUND_MAX_UPLOAD_BYTES = 100
    body = b'{"name": "' + b"x" * (settings.UPLOAD_ENVELOPE_BYTES + 200) + b'"}'
    response = signed_in.post("/api/clusters/", body, content_type="application/json")
    detail = assert_json_error(response, 413)["detail"]
    assert "PLAYGROUND_MAX_UPLOAD_BYTES" in detail and str(len(body)) in detail


@pytest.mark.parametrize("debug", [True, False])
def test_an_empty_multipart_body_is_a_json_400(signed_in, alice, settings, debug):
    settings.DEBUG = debug
    from tests.helpers import import_cluster

    cluster = import_cluster(alice)
    response = signed_in.generic("POST", f"/api/clusters/{cluster.pk}/import/", b"",
                                 content_type="multipart/form-data; boundary=x")
    assert_json_error(response, 400)


def test_a_content_length_that_is_no_number_is_a_json_400(signed_in):
    response = signed_in.post("/api/clusters/", b"{}", content_type="application/json",
                              CONTENT_LENGTH="lots")
    assert assert_json_error(response, 400) == {"detail": "Content-Length is not a number"}


def test_pages_outside_the_api_keep_their_html(signed_in):
    response = signed_in.get("/clusters/999999/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_cluster_description_over_its_length_is_refused_by_field(signed_in, alice):
    from playground.clusters.models import Cluster

    response = signed_in.post("/api/clusters/", {"name": "c", "description": "x" * 10_001},
                              content_type="application/json")
    body = assert_json_error(response, 400)
    assert body == {"description": ["Ensure this field has no more than 10,000 characters "
                                    "(it has 10,001)."]}
    assert not Cluster.objects.filter(owner=alice).exists()
