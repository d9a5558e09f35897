#!/usr/bin/env python3
"""Time and peak memory of importing (and exporting) a large cluster through the services.

    python scripts/bench_import.py [--nodes 10000] [--pods 30000] [--database-url URL]

Generates the cluster with scripts/make_scale_fixture.py (as one YAML file,
like `kubectl get nodes,pods -o yaml` output), then runs playground.services.cluster_import
on a scratch database (a fresh SQLite file unless --database-url or DATABASE_URL points
elsewhere; that database is migrated and the benchmark's user and cluster are deleted
afterwards), and cluster_export. Prints wall time per phase and the process's peak resident
memory before and after the import.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _peak_rss_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--pods", type=int, default=30_000)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args(argv)

    scratch = None
    if not args.database_url:
        scratch = tempfile.NamedTemporaryFile(suffix=".sqlite3", delete=False)
        args.database_url = f"sqlite:///{scratch.name}"
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    sys.path.insert(0, str(ROOT))

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from playground.clusters.services import cluster_export, cluster_import

    call_command("migrate", verbosity=0)
    settings.PLAYGROUND_MAX_NODES = max(settings.PLAYGROUND_MAX_NODES, args.nodes)
    settings.PLAYGROUND_MAX_PODS = max(settings.PLAYGROUND_MAX_PODS, args.pods)

    # Generated in another process, so its memory does not count as the import's.
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_scale_fixture.py"),
                        "--nodes", str(args.nodes), "--pods", str(args.pods),
                        "--output", str(path)], check=True)
        text = path.read_text(encoding="utf-8")
    generated = time.perf_counter() - started
    size_mib = len(text.encode()) / 2**20
    settings.PLAYGROUND_MAX_UPLOAD_BYTES = max(settings.PLAYGROUND_MAX_UPLOAD_BYTES,
                                               len(text.encode()))
    before = _peak_rss_mib()

    user, _ = get_user_model().objects.get_or_create(username="bench-import")
    user.clusters.all().delete()
    try:
        started = time.perf_counter()
        cluster, _ = cluster_import(owner=user, name="bench", files=[("bench.yaml",
                                                                              text)])
        imported = time.perf_counter() - started
        after_import = _peak_rss_mib()
        started = time.perf_counter()
        exported = cluster_export(cluster=cluster)
        export_time = time.perf_counter() - started
        nodes, pods = cluster.node_set.count(), cluster.pod_set.count()
    finally:
        user.delete()
        if scratch is not None:
            os.unlink(scratch.name)

    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"database:        {engine}")
    print(f"objects:         {nodes} nodes, {pods} pods ({size_mib:.1f} MiB of YAML, "
          f"generated in {generated:.1f}s)")
    print(f"import:          {imported:.1f}s (parse, validate with the loader, store)")
    print(f"export:          {export_time:.1f}s ({len(exported.encode()) / 2**20:.1f} MiB)")
    print(f"peak RSS:        {before:.0f} MiB before the import, {after_import:.0f} MiB after "
          f"(+{after_import - before:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
