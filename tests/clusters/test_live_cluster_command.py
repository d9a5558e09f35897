"""manage.py import_cluster --into NAME --owner USER: a live cluster (a local server answering
recorded list responses, as in the engine's test) stored as a playground cluster and run."""
import argparse

from playground.clusters.models import Cluster
from playground.management.commands.import_cluster import _parser, store_live_cluster
from playground.runs.services import run_create
from scheduler_core.tests.test_live_import import api_server, kubeconfig  # noqa: F401
from tests.helpers import finish_run


def _args(*argv) -> argparse.Namespace:
    return _parser().parse_args(list(argv))


def test_the_live_cluster_is_stored_and_runs(alice, kubeconfig, capsys):  # noqa: F811
    code = store_live_cluster(_args("--into", "prod", "--owner", "alice",
                                    "--kubeconfig", kubeconfig, "-n", "shop"))
    err = capsys.readouterr().err
    assert code == 0, err
    assert "imported 2 Node object(s)" in err and "stored cluster 'prod'" in err
    cluster = Cluster.objects.get(owner=alice, name="prod")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    cycles = finish_run(run)
    assert [(c["pod"], c["outcome"]) for c in cycles] == [("shop/web-2", "Bound")]


def test_an_unknown_owner_or_an_unreadable_cluster_is_refused(alice, tmp_path, capsys):
    assert store_live_cluster(_args("--into", "x", "--owner", "nobody",
                                    "--kubeconfig", str(tmp_path / "k"))) == 2
    assert "no user 'nobody'" in capsys.readouterr().err
    assert store_live_cluster(_args("--into", "x", "--owner", "alice",
                                    "--kubeconfig", str(tmp_path / "k"))) == 2
    assert "cannot use the kubeconfig" in capsys.readouterr().err
    assert not Cluster.objects.filter(name="x").exists()
