"""manage.py load_demo: the demo user and every fixture as a shared cluster, idempotently."""

from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from playground.clusters.models import Cluster
from playground.management.commands.load_demo import describe
from tests.api.conftest import FIXTURES

FIXTURE_NAMES = sorted(p.stem for p in FIXTURES.glob("*.yaml"))


def _load(**options) -> str:
    out = StringIO()
    call_command("load_demo", stdout=out, **options)
    return out.getvalue()


@pytest.mark.django_db
def test_it_creates_the_demo_user_and_a_shared_cluster_per_fixture():
    output = _load()
    assert authenticate(username="demo", password="demo") is not None
    clusters = Cluster.objects.filter(owner__username="demo").order_by("name")
    assert [c.name for c in clusters] == FIXTURE_NAMES
    assert all(c.shared for c in clusters)
    assert all(c.description for c in clusters)
    assert "gpu-cluster: imported (15 nodes, 20 pods) - 9 CPU nodes" in output


@pytest.mark.django_db
def test_it_is_idempotent():
    _load()
    counts = Cluster.objects.count()
    output = _load()
    assert Cluster.objects.count() == counts
    assert output.count("already there") == len(FIXTURE_NAMES)


@pytest.mark.django_db
def test_it_keeps_an_existing_demo_password(django_user_model):
    django_user_model.objects.create_user("demo", password="changed-it")
    _load()
    assert authenticate(username="demo", password="changed-it") is not None


@pytest.mark.django_db
def test_a_broken_fixture_stops_it_with_the_loaders_message(tmp_path):
    (tmp_path / "bad.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    from django.core.management import CommandError
    with pytest.raises(CommandError, match="field spec: Required value"):
        _load(fixtures=str(tmp_path))


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_every_fixture_has_a_description(name):
    assert describe((FIXTURES / f"{name}.yaml").read_text())


def test_the_description_header_wins_over_the_first_comment():
    assert describe("# first\n# description: the one\nkind: Node\n") == "the one"
    assert describe("# Lesson: x\n#\n# more\nkind: Node\n") == "Lesson: x"
    assert describe("kind: Node\n# late\n") == ""
