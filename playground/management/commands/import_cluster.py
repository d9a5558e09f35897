"""python manage.py import_cluster: the engine's import-cluster command (same arguments)."""
import sys

from django.core.management.base import BaseCommand

from scheduler_core.cli import main


class Command(BaseCommand):
    help = ("Read a live cluster once through a kubeconfig and print it as a v1 List "
            "(python -m scheduler_core import-cluster --help).")

    def run_from_argv(self, argv):
        # The engine parses its own arguments, so both commands take exactly the same ones.
        sys.exit(main(["import-cluster", *argv[2:]]))
