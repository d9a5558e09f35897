"""fixtures/storage-revert-lesson.yaml: a Permit timeout after Reserve reverts VolumeBinding's
assumption, and the volume is Available again.

Engine only (no Django): the command of the fixture's header through the CLI, and the
scheduler itself to look at VolumeBinding's assume cache at the moment of the timeout.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path

from scheduler_core import cli
from scheduler_core.observe import MultiObserver, Observer, TraceObserver
from scheduler_core.outoftree import PLUGINS
from scheduler_core.simulate import load_scheduler

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "storage-revert-lesson.yaml"
TIMEOUT = ("0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin "
           "Coscheduling.")
NO_VOLUME = "node(s) didn't find available persistent volumes to bind"
LOCAL_1 = {"kind": "PersistentVolume", "name": "local-1", "claim": "default/data-a"}


def header_command() -> list[str]:
    """The `python -m scheduler_core simulate ...` command quoted in the header."""
    lines = [line.lstrip("#").strip() for line in FIXTURE.read_text().splitlines()
             if line.startswith("#")]
    i = next(i for i, line in enumerate(lines) if "python -m scheduler_core simulate" in line)
    command = lines[i][lines[i].index("python -m"):]
    while command.endswith("\\"):
        i += 1
        command = command[:-1] + " " + lines[i]
    return shlex.split(command)[3:]


def simulate_as_documented(capsys) -> dict:
    args = header_command()
    assert args[:2] == ["simulate", "fixtures/storage-revert-lesson.yaml"]
    assert cli.main([args[0], str(FIXTURE), *args[2:], "--output", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def volume_binding(entries: list[dict]) -> dict:
    return next(e for e in entries if e["plugin"] == "VolumeBinding")


def test_the_header_starts_with_a_description():
    first = FIXTURE.read_text().splitlines()[0]
    assert first.startswith("# description: ") and "Unreserve" in first


def test_reserve_assumes_permit_times_out_and_unreserve_reverts(capsys):
    out = simulate_as_documented(capsys)
    cycles = out["cycles"]
    assert len(cycles) == 10
    assert out["bindings"] == {"default/member-a": None, "default/member-b": None}

    first = cycles[0]
    assert (first["pod"], first["node"], first["time"]) == ("default/member-a", "node-1", 0.0)
    # node-2 has no local disk.
    assert first["filter"]["node-2"][-1]["reasons"] == [NO_VOLUME]
    # Reserve assumes local-1 for data-a, in memory only.
    reserve = volume_binding(first["reserve"])
    assert reserve["detail"] == {"assumed": [LOCAL_1], "reverted": [], "bound": [],
                                 "provisioned": []}
    # Permit waits for the sibling...
    assert first["permit"] == [{"plugin": "Coscheduling", "code": "Wait", "reasons": [],
                                "node": "node-1", "timeout": 10.0}]
    # ...which never comes: the timeout rejects member-a.
    assert (first["outcome"], first["message"]) == ("Rejected", TIMEOUT)
    # Unreserve runs in reverse order and VolumeBinding reverts what Reserve assumed.
    assert [(u["plugin"], u["node"]) for u in first["unreserve"]] == [
        ("Coscheduling", "node-1"), ("DynamicResources", "node-1"), ("VolumeBinding", "node-1")]
    unreserve = volume_binding(first["unreserve"])
    assert unreserve["detail"]["assumed"] == [LOCAL_1]
    assert unreserve["detail"]["reverted"] == [LOCAL_1]
    # Nothing was ever written: no PreBind, no binding.
    assert first["preBind"] == [] and first["bind"] == []

    # member-b could not see local-1 while it was assumed for data-a.
    second = cycles[1]
    assert (second["pod"], second["outcome"], second["time"]) == (
        "default/member-b", "Unschedulable", 0.0)
    assert {n: t[-1]["reasons"] for n, t in second["filter"].items()} == {
        "node-1": [NO_VOLUME], "node-2": [NO_VOLUME]}
    assert second["message"].startswith(f"0/2 nodes are available: 2 {NO_VOLUME}.")

    # The flush brings both back at t=330s; member-a comes first and assumes local-1 again.
    third = cycles[2]
    assert (third["pod"], third["time"]) == ("default/member-a", 330.0)
    assert volume_binding(third["reserve"])["detail"]["assumed"] == [LOCAL_1]
    assert (third["outcome"], third["message"]) == ("Rejected", TIMEOUT)
    assert [c["pod"].split("/")[1] for c in cycles] == ["member-a", "member-b"] * 5


class AtTimeout(Observer):
    """Looks at local-1 when member-a leaves Permit (the timeout) and at each cycle's start."""

    def __init__(self):
        self.scheduler = None
        self.seen: list[tuple[float, str, bool, dict]] = []

    def local_1(self, moment: str) -> None:
        fwk = self.scheduler.frameworks["default-scheduler"]
        binder = next(p for p in fwk.reserve_plugins if p.name() == "VolumeBinding").binder
        self.seen.append((self.scheduler.clock, moment, binder.pv_cache.is_assumed("local-1"),
                          binder.pv_cache.get("local-1")))

    def begin_cycle(self, index, time, pod, profile):
        self.local_1(f"cycle {index} starts")

    def queue_event(self, queue, qpi, time):
        if qpi.pod.name == "member-a" and time == 10.0:
            self.local_1(f"member-a to {queue}")


def test_after_the_timeout_the_volume_is_available_again():
    watch = AtTimeout()
    trace = TraceObserver()
    sched = load_scheduler([str(FIXTURE)], seed=1, out_of_tree=PLUGINS,
                            observer=MultiObserver([trace, watch]))
    watch.scheduler = sched
    sched.run(3)
    moments = [(t, m, assumed) for t, m, assumed, _ in watch.seen]
    assert moments == [
        (0.0, "cycle 0 starts", False),
        (0.0, "cycle 1 starts", True),      # member-a holds it at Permit
        (10.0, "member-a to unschedulablePods", False),   # reverted by Unreserve
        (330.0, "cycle 2 starts", False),
    ]
    for _, _, assumed, pv in watch.seen:
        if not assumed:
            assert "claimRef" not in pv["spec"]
            assert pv["status"]["phase"] == "Available"
    # While assumed, the in-memory copy carries the claim; the API object never did.
    assert watch.seen[1][3]["spec"]["claimRef"]["name"] == "data-a"
    assert "claimRef" not in sched.cluster.objects.pvs["local-1"]["spec"]
    cycles = trace.to_list()
    assert [(c["pod"], c["outcome"]) for c in cycles] == [
        ("default/member-a", "Rejected"), ("default/member-b", "Unschedulable"),
        ("default/member-a", None)]   # waiting again when the run stops
