"""manage.py load_demo: the demo user and every fixture as a shared cluster, idempotently."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from playground.clusters.models import Cluster
from playground.clusters.services import cluster_import, fixture_description
from playground.errors import ServiceError

DEMO_USER = "demo"
DEMO_PASSWORD = "demo"


def fixture_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.yaml") if p.is_file())


def describe(text: str) -> str:
    """The `# description:` header, else the first comment line of the file."""
    described = fixture_description(text)
    if described:
        return described
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and stripped.lstrip("#").strip():
            return stripped.lstrip("#").strip()
        if stripped and not stripped.startswith("#"):
            break
    return ""


class Command(BaseCommand):
    help = ("Create the demo user (password demo) if missing and import each fixtures/*.yaml "
            "as a shared cluster named after the file, unless it is already there.")

    def add_arguments(self, parser):
        parser.add_argument("--fixtures", default=str(Path(settings.BASE_DIR) / "fixtures"),
                            help="directory of YAML fixtures (default: fixtures/)")

    def handle(self, *args, fixtures, **options):
        directory = Path(fixtures)
        if not directory.is_dir():
            raise CommandError(f"no fixtures directory {directory}")
        user_model = get_user_model()
        with transaction.atomic():
            user, created = user_model.objects.get_or_create(username=DEMO_USER)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
                self.stdout.write(f"created user {DEMO_USER!r} (password {DEMO_PASSWORD!r})")
        for path in fixture_files(directory):
            name = path.stem
            if Cluster.objects.filter(owner=user, name=name).exists():
                self.stdout.write(f"  {name}: already there")
                continue
            text = path.read_text(encoding="utf-8")
            try:
                cluster, warnings = cluster_import(
                    owner=user, name=name, files=[(path.name, text)],
                    description=describe(text), shared=True)
            except ServiceError as exc:
                raise CommandError(f"{path}: {exc}") from exc
            counts = f"{cluster.node_set.count()} nodes, {cluster.pod_set.count()} pods"
            self.stdout.write(f"  {name}: imported ({counts}) - {cluster.description}")
            for warning in warnings:
                self.stdout.write(f"    warning: {warning}")
