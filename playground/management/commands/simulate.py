"""python manage.py simulate: the engine's simulate command, with the settings' plugins."""
import sys

from django.core.management.base import BaseCommand

from playground.engine import out_of_tree_plugins
from scheduler_core.cli import main


def plugin_flags() -> list[str]:
    """settings.SCHEDULER_OUT_OF_TREE_PLUGINS as the engine's --plugin flags."""
    return [f"--plugin={name}={path}" for name, path in out_of_tree_plugins().items()]


class Command(BaseCommand):
    help = "Run the scheduling framework over a cluster (see SIMULATE_CONTRACT.md)."

    def run_from_argv(self, argv):
        # The engine parses its own arguments, so both commands take exactly the same ones.
        sys.exit(main(["simulate", *argv[2:], *plugin_flags()]))
