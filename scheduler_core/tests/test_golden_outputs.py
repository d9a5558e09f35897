"""`simulate --output json --seed 1` on every fixture stays byte-identical to its golden file.

Refactors must not change what the engine prints. Each fixture runs through the real command
line in a subprocess, with the --plugin flags its header asks for. The extender lesson runs
against the sample extender started the way its header says, on a free port whose URL is put
back to the lesson's 127.0.0.1:8888 in the output, and each call's measured latencyMs (wall
clock, the one figure that differs between runs) put to 0. Outputs too large to keep in git (the
500-node fixture prints about 260 MB) are kept as a SHA-256 digest instead.

Regenerate after a deliberate change of behaviour with
SCHEDULER_GOLDEN_UPDATE=1 .venv/bin/python -m pytest scheduler_core/tests/test_golden_outputs.py
and say why in the commit message.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from scheduler_core.extenders.sample import ExtenderServer, Rules

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURES = sorted(path.stem for path in (REPO / "fixtures").glob("*.yaml"))
UPDATE = os.environ.get("SCHEDULER_GOLDEN_UPDATE") == "1"

COSCHEDULING = ["--plugin", "Coscheduling=scheduler_core.outoftree.coscheduling"]
FLAGS = {
    "gang-lesson": COSCHEDULING,
    "gang-lesson-fits": COSCHEDULING,
    "storage-revert-lesson": COSCHEDULING,
    "gpu-lesson": ["--plugin", "GPUScorer=scheduler_core.outoftree.gpu_scorer"],
    "capacity-lesson": ["--plugin",
                        "CapacityScheduling=scheduler_core.outoftree.capacity_scheduling"],
    "postbind-lesson": ["--plugin", "BindAudit=scheduler_core.outoftree.bind_audit"],
}
DIGEST_ONLY = {"scale-500"}
# Lessons that compare releases: also kept as an older release runs them (<name>.release-X.json).
OLDER_RELEASES = [("dra-releases-lesson", "1.34")]
LESSON_EXTENDER = "http://127.0.0.1:8888"
LATENCY = re.compile(rb'"latencyMs": [-+.eE0-9]+')


def simulate(path: Path, flags: list[str]) -> bytes:
    # Relative to the repository (the command runs there): warnings name the file, and the
    # golden files must not depend on where the repository is checked out.
    name = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    command = [sys.executable, "-m", "scheduler_core", "simulate", str(name),
               "--output", "json", "--seed", "1", *flags]
    done = subprocess.run(command, cwd=REPO, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def extender_lesson_output(tmp_path: Path) -> bytes:
    """The lesson against the sample extender its header starts (labels approved, fast)."""
    server = ExtenderServer(Rules(require_label="extender.example.com/approved",
                                  prefer_label="extender.example.com/fast"), port=0, quiet=True)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        text = (REPO / "fixtures" / "extender-lesson.yaml").read_text(encoding="utf-8")
        copy = tmp_path / "extender-lesson.yaml"
        copy.write_text(text.replace(LESSON_EXTENDER, server.url), encoding="utf-8")
        output = simulate(copy, [])
    finally:
        server.shutdown()
        server.server_close()
    output = output.replace(server.url.encode(), LESSON_EXTENDER.encode())
    return LATENCY.sub(b'"latencyMs": 0', output)


def output_of(name: str, tmp_path: Path) -> bytes:
    if name == "extender-lesson":
        return extender_lesson_output(tmp_path)
    return simulate(REPO / "fixtures" / f"{name}.yaml", FLAGS.get(name, []))


def test_every_fixture_has_a_golden_file():
    kept = {path.name.split(".")[0] for path in GOLDEN.iterdir()} if GOLDEN.exists() else set()
    assert kept == set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_simulate_json_matches_the_golden_file(name, tmp_path):
    output = output_of(name, tmp_path)
    if name in DIGEST_ONLY:
        golden = GOLDEN / f"{name}.json.sha256"
        output = f"{hashlib.sha256(output).hexdigest()}  {len(output)}\n".encode()
    else:
        golden = GOLDEN / f"{name}.json"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_bytes(output)
    assert output == golden.read_bytes()


@pytest.mark.parametrize(("name", "release"), OLDER_RELEASES)
def test_simulate_json_under_an_older_release_matches_its_golden_file(name, release):
    output = simulate(REPO / "fixtures" / f"{name}.yaml", ["--release", release])
    golden = GOLDEN / f"{name}.release-{release}.json"
    if UPDATE:
        golden.write_bytes(output)
    assert output == golden.read_bytes()
