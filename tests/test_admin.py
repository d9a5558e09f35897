"""Django admin at /admin/ and the REST framework defaults."""

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils.module_loading import import_string
from rest_framework.authtoken.models import Token
from rest_framework.pagination import PageNumberPagination


def test_the_admin_asks_anonymous_users_to_log_in(client, db):
    response = client.get("/admin/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_the_admin_opens_for_a_superuser(admin_client):
    assert admin_client.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_tokens_can_be_issued():
    user = User.objects.create_user("alice", password="correct horse battery staple")
    token = Token.objects.create(user=user)
    assert len(token.key) == 40


def test_rest_framework_requires_authentication_by_default():
    conf = settings.REST_FRAMEWORK
    assert conf["DEFAULT_PERMISSION_CLASSES"] == ["rest_framework.permissions.IsAuthenticated"]
    assert conf["DEFAULT_AUTHENTICATION_CLASSES"] == [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ]
    # Page-number pagination, with the client's page_size capped (playground.api.pagination).
    paginator = import_string(conf["DEFAULT_PAGINATION_CLASS"])
    assert issubclass(paginator, PageNumberPagination)
    assert (paginator.page_size, paginator.max_page_size) == (50, 1000)
    assert conf["DEFAULT_SCHEMA_CLASS"] == "drf_spectacular.openapi.AutoSchema"


def test_installed_apps_start_with_daphne_and_include_the_stack():
    apps = settings.INSTALLED_APPS
    assert apps[0] == "daphne"
    for app in (
        "channels",
        "rest_framework",
        "rest_framework.authtoken",
        "drf_spectacular",
        "playground",
    ):
        assert app in apps


@pytest.mark.parametrize("path", [
    "/admin/playground/timeline/", "/admin/workshops/workshop/", "/admin/workshops/attendee/",
    "/admin/workshops/question/", "/admin/workshops/prediction/",
    "/admin/workshops/practiceprediction/", "/admin/playground/cyclerecord/"])
def test_the_admin_lists_timelines_workshops_and_cycles(admin_client, path):
    assert admin_client.get(path).status_code == 200


def test_cycle_records_are_read_only_in_the_admin(admin_client):
    from tests.helpers import finish_run, make_user, new_run

    run = new_run(make_user("alice"))
    finish_run(run)
    record = run.cycles.order_by("index").first()
    page = admin_client.get(f"/admin/playground/cyclerecord/{record.pk}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content  # viewed, not edited
    assert admin_client.get("/admin/playground/cyclerecord/add/").status_code == 403
    answer = admin_client.post(f"/admin/playground/cyclerecord/{record.pk}/change/",
                               {"pod": "changed", "outcome": "Bound", "index": 0})
    assert answer.status_code == 403
    record.refresh_from_db()
    assert record.pod != "changed"
