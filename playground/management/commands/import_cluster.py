"""python manage.py import_cluster: the engine's import-cluster command (same arguments), or
with --into NAME --owner USER the live cluster stored as a playground cluster.

Deliberately a command for the operator, not a web endpoint: a kubeconfig can name an exec
credential plugin, a command the client runs, and a server address of the server's network."""
import argparse
import json
import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from playground.clusters.services import cluster_import
from playground.errors import ServiceError
from scheduler_core.cli import main
from scheduler_core.errors import InputError
from scheduler_core.live_import import import_cluster

EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="manage.py import_cluster")
    p.add_argument("--into", required=True, metavar="NAME", help="the new cluster's name")
    p.add_argument("--owner", required=True, metavar="USER", help="its owner's username")
    p.add_argument("--shared", action="store_true", help="share it with every user")
    p.add_argument("--kubeconfig", required=True, help="the kubeconfig file")
    p.add_argument("--context", default=None, help="the kubeconfig context")
    p.add_argument("-n", "--namespace", action="append", default=[], metavar="NAMESPACE",
                   help="only this namespace's namespaced objects (repeatable)")
    p.add_argument("-l", "--selector", default="", metavar="SELECTOR",
                   help="label selector for the namespaced objects")
    return p


def store_live_cluster(args, err=None) -> int:
    err = err or sys.stderr
    owner = get_user_model().objects.filter(username=args.owner).first()
    if owner is None:
        print(f"error: no user {args.owner!r}", file=err)
        return EXIT_BAD_INPUT
    try:
        result = import_cluster(
            args.kubeconfig, context=args.context, namespaces=args.namespace or None,
            label_selector=args.selector,
            progress=lambda kind, n: print(f"imported {n} {kind} object(s)", file=err))
        cluster, warnings = cluster_import(
            owner=owner, name=args.into, shared=args.shared,
            files=[("live-cluster.json", json.dumps(result.as_list()))])
    except (InputError, ServiceError) as exc:
        print(f"error: {exc}", file=err)
        return EXIT_BAD_INPUT
    for line in [*result.warnings, *warnings]:
        print(f"warning: {line}", file=err)
    counts = result.counts()
    print(f"stored cluster {cluster.name!r} (id {cluster.pk}): {counts.get('Node', 0)} nodes, "
          f"{counts.get('Pod', 0)} pods", file=err)
    return 0


class Command(BaseCommand):
    help = ("Read a live cluster once through a kubeconfig: print it as a v1 List, or store it "
            "with --into NAME --owner USER.")

    def run_from_argv(self, argv):
        args = argv[2:]
        if not any(a == "--into" or a.startswith("--into=") for a in args):
            # The engine parses its own arguments, so both commands take the same ones.
            sys.exit(main(["import-cluster", *args]))
        sys.exit(store_live_cluster(_parser().parse_args(args)))
