"""A bounded schemathesis run over /api/schema/ with every check schemathesis has: no server
error, every status code, content type and body as documented, auth enforced, schema-valid
requests accepted unless a documented rule refuses them.

Every operation gets generated requests twice: once with random ids (mostly 404s, and the
validation paths), once with the ids of real objects the user owns (the success and
validation paths of a real cluster and run). DELETE operations go last so that the others
still find their objects. Bounded to about a minute and a half on one core.
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import CHECKS
from schemathesis.config import PositiveDataAcceptanceConfig
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.core.media_types import YAML_MEDIA_TYPES

from playground.clusters.models import ExtraObject
from playground.runs.models import CycleRecord
from playground.runs.services import run_create
from scheduler_core.safe_read import read_yaml
from tests.api.conftest import finish_run, import_fixture

RANDOM_EXAMPLES = 5
REAL_EXAMPLES = 8
OBJECT_SEGMENTS = {"nodes", "pods", "namespaces", "priorityclasses", "pdbs", "pvs", "pvcs",
                   "storageclasses", "objects"}


FAILURES = (Failure, FailureGroup, AssertionError)


@schemathesis.deserializer(*YAML_MEDIA_TYPES)
def _yaml_documents(ctx, response):
    """The export endpoints answer a YAML stream (documented as an array of its documents)."""
    return read_yaml(response.content.decode("utf-8"), source="response")


def _summary(exc: BaseException) -> str:
    """One line per failed check: its title (the check's name and what it saw)."""
    found = exc.exceptions if isinstance(exc, FailureGroup) else [exc]
    return "; ".join(getattr(f, "title", None) or str(f).splitlines()[0] for f in found)


def _real_ids(alice):
    cluster = import_fixture(alice, "storage-lesson.yaml", cluster_name="fuzz")
    ExtraObject.objects.create(cluster=cluster, manifest={
        "kind": "PodGroup", "metadata": {"name": "g", "namespace": "default"}})
    run = run_create(cluster=cluster, seed=1, owner=alice)
    finish_run(run)
    assert CycleRecord.objects.filter(run=run).exists()
    objects = {}
    for segment in OBJECT_SEGMENTS:
        from playground.clusters.objects_api import OBJECT_ENDPOINTS
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
            params["id"] = objects.get(parts[3], 1)
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
    cluster_id, run_id, objects = _real_ids(alice)
    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    # A request the schema allows may still be refused by the rules the schema cannot say:
    # the Kubernetes validation (400), a read-only cluster or a quota (403), an id that does
    # not exist (404), a busy run (409), a size limit (413). Anything else is a finding.
    schema.config.checks.positive_data_acceptance = PositiveDataAcceptanceConfig(
        expected_statuses=["2XX", "400", "401", "403", "404", "409", "413"])

    @schema.auth()
    class TokenAuth:
        """The user's token, known to schemathesis as real: its auth checks take it out and
        put a wrong one in, and expect 401 for both."""

        def get(self, case, context):
            return token

        def set(self, case, data, context):
            case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}

    operations = sorted((r.ok() for r in schema.get_all_operations()),
                        key=lambda op: (op.method.upper() == "DELETE", op.path, op.method))
    assert len(operations) > 60
    checks = CHECKS.get_all()
    assert len(checks) > 10
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
                response = case.call()
                try:
                    case.validate_response(response, checks=checks)
                except FAILURES as exc:
                    failures.append(f"{case.method} {case.operation.path} -> "
                                    f"{response.status_code}: {_summary(exc)}")

            check()
    assert not failures, "\n".join(sorted(set(failures)))
