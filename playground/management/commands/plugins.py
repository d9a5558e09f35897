"""python manage.py plugins: registered plugins and the extension points each implements."""
from django.core.management.base import BaseCommand

from playground.engine import out_of_tree_plugins
from scheduler_core.simulate import list_plugins


class Command(BaseCommand):
    help = "List the in-tree and out-of-tree scheduler plugins with their extension points."

    def handle(self, *args, **options):
        self.stdout.write(list_plugins(out_of_tree_plugins()))
