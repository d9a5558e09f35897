"""A bounded schemathesis run over /api/schema/: no request may end in a server error.

Every operation gets generated requests twice: once with random ids (mostly 404s, and the
validation paths), once with the ids of real objects the user owns (the success and
validation paths of a real cluster and run). DELETE operations go last so that the others
still find their objects. Bounded to keep it well under a minute.
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token

from playground import services
from playground.models import CycleRecord, ExtraObject
from tests.api.conftest import finish_run, import_fixture

RANDOM_EXAMPLES = 6
REAL_EXAMPLES = 10
OBJECT_SEGMENTS = {"nodes", "pods", "namespaces", "priorityclasses", "pdbs", "pvs", "pvcs",
                   "storageclasses", "objects"}


def _real_ids(alice):
    cluster = import_fixture(alice, "storage-lesson.yaml", cluster_name="fuzz")
    ExtraObject.objects.create(cluster=cluster, manifest={
        "kind": "PodGroup", "metadata": {"name": "g", "namespace": "default"}})
    run = services.run_create(cluster=cluster, seed=1, owner=alice)
    finish_run(run)
    assert CycleRecord.objects.filter(run=run).exists()
    objects = {}
    for segment in OBJECT_SEGMENTS:
        from playground.api.views import OBJECT_ENDPOINTS
        model = next(m for seg, m, *_ in OBJECT_ENDPOINTS if seg == segment)
        row = model.objects.filter(cluster=cluster).first()
        objects[segment] = row.pk if row else 1
    return cluster.pk, run.pk, objects


def _path_parameters(path: str, cluster_id: int, run_id: int, objects: dict) -> dict:
    parts = path.strip("/").split("/")
    params = {}
    if "{cluster_id}" in path:
        params["cluster_id"] = cluster_id
        if "{id}" in path:
            params["id"] = objects[parts[3]]
    elif path.startswith("/api/clusters/{id}"):
        params["id"] = cluster_id
    elif path.startswith("/api/runs/{id}"):
        params["id"] = run_id
    if "{index}" in path:
        params["index"] = 0
    return params


@pytest.fixture
def keep_the_test_connection():
    """As Django's test client does: a request must not close the test's transaction."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.mark.django_db
@pytest.mark.usefixtures("keep_the_test_connection")
def test_no_generated_request_gets_a_server_error(alice, settings):
    settings.ALLOWED_HOSTS = ["localhost", "testserver"]
    settings.DEBUG_PROPAGATE_EXCEPTIONS = False
    token = Token.objects.create(user=alice).key
    headers = {"Authorization": f"Token {token}"}
    cluster_id, run_id, objects = _real_ids(alice)
    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    operations = sorted((r.ok() for r in schema.get_all_operations()),
                        key=lambda op: (op.method.upper() == "DELETE", op.path, op.method))
    assert len(operations) > 60
    failures = []

    for operation in operations:
        real = _path_parameters(operation.path, cluster_id, run_id, objects)
        rounds = [({}, RANDOM_EXAMPLES)] + ([(real, REAL_EXAMPLES)] if real else [])
        for path_parameters, examples in rounds:
            strategy = operation.as_strategy(path_parameters=path_parameters or None)

            @given(case=strategy)
            @hypothesis_settings(max_examples=examples, deadline=None, database=None,
                                 derandomize=True, phases=[Phase.explicit, Phase.generate],
                                 suppress_health_check=list(HealthCheck))
            def check(case):
                response = case.call(headers=headers)
                if response.status_code >= 500:
                    failures.append(f"{case.method} {case.formatted_path} "
                                    f"{case.query} -> {response.status_code}")

            check()
    assert failures == [], "\n".join(failures[:20])
