"""Every workshop lesson in fixtures/ does what its header promises (docs/LESSONS.md).

Each fixture is run through the engine exactly as `python -m scheduler_core simulate` runs it
(scheduler_core.simulate.load_scheduler), with the seed the playground's "Start a run" form
proposes (1) unless a test says otherwise, and the outcome its header comment describes is
checked precisely: placements, the plugins that rejected each node and their reasons, the
FailedScheduling messages, scores, preemption, volume decisions, Permit waits, virtual time.
The "Try" variations of the headers and of docs/LESSONS.md are run too, by editing a copy of
the fixture's text. No Django and no database: this runs in the engine suite and the Django
suite alike.
"""
from __future__ import annotations

import collections
import json
import shlex
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from scheduler_core import cli
from scheduler_core.errors import InputError
from scheduler_core.extenders.sample import ExtenderServer, Rules
from scheduler_core.features import DEFAULT_RELEASE, feature_gates
from scheduler_core.observe import MultiObserver, Observer, TraceObserver
from scheduler_core.outoftree import PLUGINS
from scheduler_core.simulate import load_scheduler, simulate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEED = 1  # what the playground's "Start a run" form proposes; the CLI's default is 0
SAMPLE_URL = "http://127.0.0.1:8888"  # where extender-lesson.yaml expects the sample extender

LESSON_FIXTURES = {
    "taints-affinity", "spread-antiaffinity", "preemption-lesson", "storage-lesson",
    "gang-lesson", "gang-lesson-fits", "gpu-lesson", "extender-lesson", "gpu-cluster",
    "scale-500", "storage-revert-lesson", "gpu-dra-lesson", "postbind-lesson", "capacity-lesson",
    "locally-optimal",
    "dra-releases-lesson",
}
# The timeline lessons' outcomes are checked in scheduler_core/timeline/test_lessons.py.
TIMELINE_FIXTURES = {"node-failure-lesson", "scaleup-spread-lesson"}
TIMELINE_TESTS = Path(__file__).resolve().parent.parent / "scheduler_core/timeline/test_lessons.py"


# --- running a lesson ----------------------------------------------------------------------------
class PodEvents(Observer):
    """The scheduler's pod events (preempted, nominated, waiting, deleted, bound) in order."""

    def __init__(self):
        self.events: list[tuple[float, str, str, dict]] = []

    def pod_event(self, event, pod, time, detail=None):
        self.events.append((time, event, pod.key, dict(detail or {})))


@dataclass
class Lesson:
    scheduler: object
    cycles: list[dict]
    events: list[tuple[float, str, str, dict]]

    @property
    def bindings(self) -> dict[str, str | None]:
        return dict(self.scheduler.bindings)

    def of(self, pod: str) -> list[dict]:
        """The cycles of one pod (`name` in the default namespace, or `namespace/name`)."""
        key = pod if "/" in pod else f"default/{pod}"
        return [c for c in self.cycles if c["pod"] == key]

    def first(self, pod: str) -> dict:
        return self.of(pod)[0]


def fixture_text(name: str, edits=()) -> str:
    text = (FIXTURES / f"{name}.yaml").read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, f"{name}.yaml no longer contains {old!r}"
        text = text.replace(old, new)
    return text


def lesson(name: str, *, seed: int = SEED, edits=(), config: str | None = None,
           max_cycles: int | None = None, text: str | None = None,
           release: str = DEFAULT_RELEASE, gates: str | None = None) -> Lesson:
    """Run fixtures/<name>.yaml (its text edited by `edits`, or `text`) to the end, as the
    kube-scheduler `release` would."""
    path = str(FIXTURES / f"{name}.yaml")
    texts = {path: text if text is not None else fixture_text(name, edits)}
    config_file = None
    if config is not None:
        config_file = "lesson-config.yaml"
        texts[config_file] = config
    trace, events = TraceObserver(), PodEvents()
    scheduler = load_scheduler([path], config_file=config_file, seed=seed,
                                observer=MultiObserver([trace, events]), out_of_tree=PLUGINS,
                                texts=texts, features=feature_gates(release, gates))
    scheduler.run(max_cycles)
    return Lesson(scheduler, trace.to_list(), events.events)


def rejections(cycle: dict) -> dict[str, tuple[str, str, list[str]]]:
    """node -> (plugin, code, reasons) of the Filter plugin (or extender) that rejected it."""
    out = {}
    for node, trail in cycle["filter"].items():
        last = trail[-1]
        if last["code"] != "Success":
            out[node] = (last["plugin"], last["code"], last["reasons"])
    return out


def feasible(cycle: dict) -> list[str]:
    return sorted(n for n, trail in cycle["filter"].items() if trail[-1]["code"] == "Success")


def scores(cycle: dict, plugin: str) -> dict[str, tuple[int, int, int]]:
    return {n: (s["raw"], s["normalized"], s["weighted"])
            for n, s in cycle["score"][plugin].items()}


def entry(plugin: str, code: str = "Success", reasons=(), **extra) -> dict:
    return {"plugin": plugin, "code": code, "reasons": list(reasons), **extra}


def config_yaml(profile: str = "", top: str = "") -> str:
    """A KubeSchedulerConfiguration: `profile` is indented under the default profile."""
    text = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + top
    if profile:
        text += "profiles:\n- schedulerName: default-scheduler\n" + profile
    return text


def zone_of(node: str) -> str:
    return node.split("-")[1][0]  # node-a1 -> a


NOT_HELPFUL = "Preemption is not helpful for scheduling."
NOT_HELPFUL_5 = "preemption: 0/5 nodes are available: 5 " + NOT_HELPFUL
NO_VICTIMS = "No preemption victims found for incoming pod."
# DynamicResources (default profile since v1.34) answers PostFilter first for a pod without
# claims; kube-scheduler joins its reason before DefaultPreemption's in the message.


# --- every fixture is a lesson with a test --------------------------------------------------------
def test_every_fixture_is_covered_here_or_by_the_timeline_tests():
    assert {p.stem for p in FIXTURES.glob("*.yaml")} == LESSON_FIXTURES | TIMELINE_FIXTURES
    timeline_tests = TIMELINE_TESTS.read_text(encoding="utf-8")
    assert all(f"{name}.yaml" in timeline_tests for name in TIMELINE_FIXTURES)


@pytest.mark.parametrize("name", sorted(LESSON_FIXTURES | TIMELINE_FIXTURES))
def test_every_fixture_starts_with_a_comment_saying_what_it_teaches(name):
    first = fixture_text(name).splitlines()[0]
    assert first.startswith("# ") and len(first) > 20


def header_commands(text: str, module: str) -> list[list[str]]:
    """The `python -m <module> ...` commands quoted in a fixture's header comment."""
    lines = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    commands = []
    for i, line in enumerate(lines):
        start = line.find(f"python -m {module} ")
        if start < 0:
            continue
        command, following = line[start:], iter(lines[i + 1:])
        while command.endswith("\\"):  # continued on the next comment line
            command = command[:-1] + " " + next(following)
        commands.append(shlex.split(command)[3:])
    return commands


def run_cli(capsys, args: list[str]) -> dict:
    assert cli.main(args + ["--output", "json", "--seed", str(SEED)]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("name", "max_cycles"), [
    ("preemption-lesson", None), ("gang-lesson", 8), ("gang-lesson-fits", None),
    ("gpu-lesson", None), ("storage-revert-lesson", 10), ("postbind-lesson", None),
    ("capacity-lesson", None)])
def test_the_command_in_the_header_runs_the_lesson(name, max_cycles, capsys):
    (command,) = header_commands(fixture_text(name), "scheduler_core")
    assert command[:2] == ["simulate", f"fixtures/{name}.yaml"]
    out = run_cli(capsys, [command[0], str(FIXTURES / f"{name}.yaml"), *command[2:]])
    expected = lesson(name, max_cycles=max_cycles)
    assert out["bindings"] == expected.bindings
    assert out["cycles"] == expected.cycles


# --- taints-affinity ------------------------------------------------------------------------------
AFFINITY = "node(s) didn't match Pod's node affinity/selector"
GPU_TAINT = "node(s) had untolerated taint {dedicated: gpu}"
CORDONED = "node(s) were unschedulable"
NOWHERE = (f"0/5 nodes are available: 1 {GPU_TAINT}, 1 {CORDONED}, 3 {AFFINITY}. "
           f"{NOT_HELPFUL_5}")
TRAINER_TOLERATION = "  tolerations:\n  - {key: dedicated, operator: Equal, value: gpu, " \
                     "effect: NoSchedule}\n"
TAINT_SCORE_OFF = "  plugins:\n    score:\n      disabled:\n      - name: TaintToleration\n"


def test_taints_affinity_places_each_pod_where_its_header_says():
    run = lesson("taints-affinity")
    assert run.bindings == {
        "default/web-ssd": "node-a", "default/trainer": "gpu-1", "default/nowhere": None,
        "default/likes-b": "node-b", "default/anywhere": "node-b",
        "default/tolerates-all": "node-d"}
    uu = "UnschedulableAndUnresolvable"
    taint, cordon = ("TaintToleration", uu, [GPU_TAINT]), ("NodeUnschedulable", uu, [CORDONED])
    affinity = ("NodeAffinity", uu, [AFFINITY])
    # Required node affinity: only node-a has disktype=ssd.
    assert rejections(run.first("web-ssd")) == {
        "node-b": affinity, "node-c": affinity, "gpu-1": taint, "node-d": cordon}
    # The toleration lets trainer past the taint and its nodeSelector leaves only gpu-1.
    assert rejections(run.first("trainer")) == {
        "node-a": affinity, "node-b": affinity, "node-c": affinity, "node-d": cordon}
    # No node is in zone-c; the taint and the cordon are counted in the message too.
    nowhere = run.of("nowhere")
    assert rejections(nowhere[0]) == {
        "node-a": affinity, "node-b": affinity, "node-c": affinity, "gpu-1": taint,
        "node-d": cordon}
    assert [(c["time"], c["outcome"], c["message"]) for c in nowhere] == [
        (0.0, "Unschedulable", NOWHERE), (330.0, "Unschedulable", NOWHERE)]
    assert nowhere[0]["postFilter"] == [
        entry("DynamicResources", "Unschedulable", []),
        entry("DefaultPreemption", "Unschedulable", [NOT_HELPFUL_5])]
    assert run.scheduler.pending_reasons() == {"default/nowhere": NOWHERE}
    # Without tolerations, the taint and the cordon filter gpu-1 and node-d out.
    for pod in ("likes-b", "anywhere"):
        assert rejections(run.first(pod)) == {"gpu-1": taint, "node-d": cordon}
    # tolerates-all tolerates every taint, the cordon's included: every node is feasible.
    assert rejections(run.first("tolerates-all")) == {}
    assert feasible(run.first("tolerates-all")) == sorted(["node-a", "node-b", "node-c",
                                                           "gpu-1", "node-d"])


def test_taints_affinity_preferred_affinity_and_prefer_no_schedule_scores():
    run = lesson("taints-affinity")
    likes_b = run.first("likes-b")
    assert scores(likes_b, "NodeAffinity") == {
        "node-a": (0, 0, 0), "node-b": (80, 100, 200), "node-c": (80, 100, 200)}
    assert scores(likes_b, "TaintToleration") == {
        "node-a": (0, 100, 300), "node-b": (0, 100, 300), "node-c": (1, 0, 0)}
    assert likes_b["totalScore"] == {"node-a": 480, "node-b": 692, "node-c": 392}
    anywhere = run.first("anywhere")
    assert "NodeAffinity" not in anywhere["score"]
    assert anywhere["totalScore"] == {"node-a": 480, "node-b": 486, "node-c": 192}


@pytest.mark.parametrize(("seed", "node"), [(0, "node-c"), (1, "node-d")])
def test_taints_affinity_tolerates_all_ties_and_the_seed_decides(seed, node):
    run = lesson("taints-affinity", seed=seed)
    totals = run.first("tolerates-all")["totalScore"]
    assert totals == {"node-a": 480, "node-b": 480, "gpu-1": 471, "node-c": 492, "node-d": 492}
    assert run.bindings["default/tolerates-all"] == node


def test_taints_affinity_try_removing_the_trainers_toleration():
    run = lesson("taints-affinity", edits=[(TRAINER_TOLERATION, "")])
    trainer = run.first("trainer")
    assert (trainer["outcome"], trainer["message"]) == ("Unschedulable", NOWHERE)
    assert rejections(trainer)["gpu-1"] == ("TaintToleration", "UnschedulableAndUnresolvable",
                                            [GPU_TAINT])
    # gpu-1 is free for the pod that tolerates everything, and it scores best there.
    assert run.bindings["default/tolerates-all"] == "gpu-1"


def test_taints_affinity_try_a_weight_of_zero_and_disabling_the_taint_score():
    # A weight of 0 is not "off": the framework turns it into 1 (300 -> 100 points).
    zero = "  plugins:\n    score:\n      enabled:\n      - name: TaintToleration\n" \
           "        weight: 0\n"
    run = lesson("taints-affinity", config=config_yaml(zero))
    assert scores(run.first("likes-b"), "TaintToleration")["node-b"] == (0, 100, 100)
    assert run.bindings["default/likes-b"] == "node-b"
    # Disabled at Score, PreferNoSchedule no longer counts: node-b and node-c tie for likes-b.
    for seed, likes_b, anywhere in [(0, "node-b", "node-c"), (1, "node-c", "node-b")]:
        run = lesson("taints-affinity", seed=seed, config=config_yaml(TAINT_SCORE_OFF))
        assert "TaintToleration" not in run.first("likes-b")["score"]
        assert run.first("likes-b")["totalScore"] == {"node-a": 180, "node-b": 392,
                                                      "node-c": 392}
        assert (run.bindings["default/likes-b"], run.bindings["default/anywhere"]) == (
            likes_b, anywhere)
        # The taint still filters: NoSchedule is the Filter's business, not the Score's.
        assert run.bindings["default/nowhere"] is None


# --- spread-antiaffinity --------------------------------------------------------------------------
SPREAD = "node(s) didn't match pod topology spread constraints"
ANTI = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI = "node(s) didn't satisfy existing pods anti-affinity rules"
CACHE_6 = (f"0/6 nodes are available: 6 {ANTI}. preemption: 0/6 nodes are available: "
           f"6 {NO_VICTIMS}")
NODES_6 = ["node-a1", "node-a2", "node-b1", "node-b2", "node-c1", "node-c2"]
CACHE_6_REQUIRED = """  name: cache-6
  namespace: default
  labels: {app: cache}
spec:
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels: {app: cache}"""
CACHE_6_PREFERRED = """  name: cache-6
  namespace: default
  labels: {app: cache}
spec:
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels: {app: cache}"""
CACHE_BY_HOST = "      - topologyKey: kubernetes.io/hostname\n        labelSelector:\n" \
                "          matchLabels: {app: cache}"
CACHE_BY_ZONE = CACHE_BY_HOST.replace("kubernetes.io/hostname", "topology.kubernetes.io/zone")


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_spread_web_pods_spread_evenly_over_zones_and_nodes(seed):
    run = lesson("spread-antiaffinity", seed=seed)
    per_zone = collections.Counter()
    for i in range(6):
        cycle = run.first(f"web-{i}")
        node = run.bindings[f"default/web-{i}"]
        assert (cycle["outcome"], cycle["node"]) == ("Bound", node)
        # Filter rejects exactly the nodes of the zones already ahead of the least one.
        least = min(per_zone[z] for z in "abc")
        ahead = {n for n in NODES_6 if per_zone[zone_of(n)] > least}
        assert rejections(cycle) == dict.fromkeys(
            ahead, ("PodTopologySpread", "Unschedulable", [SPREAD]))
        per_zone[zone_of(node)] += 1
        assert max(per_zone.values()) - min(per_zone[z] for z in "abc") <= 1  # max skew 1
    assert per_zone == {"a": 2, "b": 2, "c": 2}
    # The ScheduleAnyway constraint on the hostname: one web pod per node.
    assert sorted(run.bindings[f"default/web-{i}"] for i in range(6)) == NODES_6


def test_spread_the_hostname_constraint_only_scores():
    run = lesson("spread-antiaffinity")
    # What docs/LESSONS.md shows with seed 1.
    assert [run.bindings[f"default/web-{i}"] for i in range(6)] == [
        "node-c2", "node-a1", "node-b1", "node-a2", "node-b2", "node-c1"]
    assert [run.bindings[f"default/cache-{i}"] for i in range(6)] == [
        "node-a2", "node-b2", "node-c2", "node-b1", "node-c1", "node-a1"]
    # web-3 comes after one pod per zone: no zone is ahead, the hostname spread scores the
    # three nodes that hold a web pod 0 (raw 2 = round(1 x ln(6 + 2))) and the others 100.
    web_3 = run.first("web-3")
    assert rejections(web_3) == {}
    taken = {run.bindings[f"default/web-{i}"] for i in range(3)}
    assert scores(web_3, "PodTopologySpread") == {
        n: (2, 0, 0) if n in taken else (0, 100, 200) for n in web_3["score"]["TaintToleration"]}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_spread_cache_pods_one_per_node_and_the_seventh_stays_pending(seed):
    run = lesson("spread-antiaffinity", seed=seed)
    placed = [run.bindings[f"default/cache-{i}"] for i in range(6)]
    assert sorted(placed) == NODES_6
    for i in range(6):
        assert set(rejections(run.first(f"cache-{i}"))) == set(placed[:i])
        assert all(r == ("InterPodAffinity", "Unschedulable", [ANTI])
                   for r in rejections(run.first(f"cache-{i}")).values())
    cache_6 = run.of("cache-6")
    assert [(c["outcome"], c["message"]) for c in cache_6] == [("Unschedulable", CACHE_6)]
    assert rejections(cache_6[0]) == dict.fromkeys(
        NODES_6, ("InterPodAffinity", "Unschedulable", [ANTI]))
    assert run.bindings["default/cache-6"] is None
    assert run.scheduler.pending_reasons() == {"default/cache-6": CACHE_6}


def test_spread_try_a_preferred_anti_affinity_for_cache_6():
    # The six others still require no app=cache pod beside them: anti-affinity is symmetric.
    run = lesson("spread-antiaffinity", edits=[(CACHE_6_REQUIRED, CACHE_6_PREFERRED)])
    cache_6 = run.first("cache-6")
    assert cache_6["message"] == (
        f"0/6 nodes are available: 6 {EXISTING_ANTI}. preemption: 0/6 nodes are "
        f"available: 6 {NO_VICTIMS}")
    assert rejections(cache_6) == dict.fromkeys(
        NODES_6, ("InterPodAffinity", "Unschedulable", [EXISTING_ANTI]))


def test_spread_try_anti_affinity_per_zone():
    run = lesson("spread-antiaffinity", edits=[(CACHE_BY_HOST, CACHE_BY_ZONE)])
    placed = [run.bindings[f"default/cache-{i}"] for i in range(7)]
    assert sorted(zone_of(n) for n in placed[:3]) == ["a", "b", "c"]
    assert placed[3:] == [None] * 4
    assert run.first("cache-3")["message"] == CACHE_6


# --- preemption-lesson ----------------------------------------------------------------------------
INSUFFICIENT_3 = "0/3 nodes are available: 3 Insufficient cpu."
NOT_ELIGIBLE = ("preemption: not eligible due to a terminating pod on the "
                "nominated node.")


def test_preemption_victims_nomination_graceful_deletion_and_binding():
    run = lesson("preemption-lesson")
    first, second = run.cycles
    assert (first["pod"], first["time"], first["outcome"], first["node"], first["message"]) == (
        "default/urgent", 0.0, "Unschedulable", None,
        f"{INSUFFICIENT_3} preemption: found a potential placement for pod on node node-1, "
        "preempting 2 victims")   # v1.37 (PR #140180)
    assert rejections(first) == dict.fromkeys(
        ["node-1", "node-2", "node-3"], ("NodeResourcesFit", "Unschedulable",
                                         ["Insufficient cpu"]))
    assert first["postFilter"] == [entry("DynamicResources", "Unschedulable", []), entry(
        "DefaultPreemption", "Success", ["preemption: found a potential placement for pod on "
                                         "node node-1, preempting 2 victims"])]
    preemption = first["preemption"]
    assert (preemption["nominatedNode"], preemption["victims"]) == (
        "node-1", ["default/batch-1", "default/batch-2"])
    assert preemption["candidates"] == [
        {"node": "node-1", "victims": ["default/batch-1", "default/batch-2"],
         "pdbViolations": 0},
        {"node": "node-2", "victims": ["default/web-1", "default/web-2"], "pdbViolations": 2},
        {"node": "node-3", "victims": ["default/web-3", "default/web-4"], "pdbViolations": 2}]
    assert preemption["decision"] == {
        "node": "node-1", "criterion": "fewest PDB violations", "runnerUp": "node-2",
        "values": {"node-1": 0, "node-2": 2},
        "why": "node-1 beats node-2 on fewest PDB violations: 0 vs 2"}
    # The victims start a 30s graceful deletion on the virtual clock, with their condition.
    assert run.events == [
        (0.0, "preempted", "default/batch-1", {"node": "node-1"}),
        (0.0, "preempted", "default/batch-2", {"node": "node-1"}),
        (0.0, "nominated", "default/urgent", {"node": "node-1"}),
        (30.0, "deleted", "default/batch-1", {"node": "node-1"}),
        (30.0, "deleted", "default/batch-2", {"node": "node-1"}),
        (30.0, "bound", "default/urgent", {"node": "node-1"})]
    victims = [p for p in run.scheduler.pods if p.name in ("batch-1", "batch-2")]
    for victim in victims:
        (condition,) = victim.obj["status"]["conditions"]
        assert (condition["type"], condition["reason"]) == ("DisruptionTarget",
                                                            "PreemptionByScheduler")
        assert victim.deletion_time == 0.0
    # Requeued by the deletions, urgent binds to its nominated node at t=30s.
    assert (second["time"], second["outcome"], second["node"]) == (30.0, "Bound", "node-1")
    assert run.bindings == {"default/urgent": "node-1"}
    assert run.scheduler.clock == 30.0


def test_preemption_a_retry_during_the_grace_period_does_not_preempt_again():
    path = str(FIXTURES / "preemption-lesson.yaml")
    trace = TraceObserver()
    scheduler = load_scheduler([path], seed=SEED, observer=trace)
    assert scheduler.step()  # cycle 0: preemption
    urgent = next(p for p in scheduler.pods if p.name == "urgent")
    assert [p.key for p in scheduler.queue.nominated_pods_for_node("node-1")] == [urgent.key]
    scheduler.activate([urgent])  # something moves urgent back to activeQ at t=0
    assert scheduler.step()
    retry = trace.to_list()[1]
    assert (retry["time"], retry["outcome"]) == (0.0, "Unschedulable")
    assert retry["message"] == f"{INSUFFICIENT_3} {NOT_ELIGIBLE}"
    assert retry["preemption"] is None
    scheduler.run()
    assert scheduler.bindings == {"default/urgent": "node-1"}
    assert scheduler.clock == 30.0


def test_preemption_try_a_pdb_that_allows_two_disruptions():
    run = lesson("preemption-lesson", edits=[("disruptionsAllowed: 0", "disruptionsAllowed: 2")])
    decision = run.first("urgent")["preemption"]["decision"]
    assert [c["pdbViolations"] for c in run.first("urgent")["preemption"]["candidates"]] == [
        0, 0, 0]
    assert (decision["node"], decision["criterion"], decision["runnerUp"]) == (
        "node-1", "latest start time of the highest-priority victims", "node-2")
    assert run.first("urgent")["preemption"]["victims"] == ["default/batch-1",
                                                           "default/batch-2"]
    assert run.bindings == {"default/urgent": "node-1"}


def test_preemption_try_lowering_the_priority_class_to_zero():
    run = lesson("preemption-lesson", edits=[("value: 1000", "value: 0")])
    assert [(c["outcome"], c["message"]) for c in run.cycles] == [
        ("Unschedulable",
         f"{INSUFFICIENT_3} preemption: 0/3 nodes are available: 3 {NO_VICTIMS}")]
    assert run.events == []
    assert run.bindings == {"default/urgent": None}


# --- storage-lesson -------------------------------------------------------------------------------
NO_PV = "node(s) didn't find available persistent volumes to bind"
# VolumeBinding's PreFilter ends the cycle before DynamicResources' PreFilter runs: its
# PostFilter has no state and fails with fwk.ErrNotFound, so DefaultPreemption does not run.
REPORTS = "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"
NOTHING = {"assumed": [], "reverted": [], "bound": [], "provisioned": []}
WFFC_REPORTS = ("provisioner: csi.example.com\nvolumeBindingMode: Immediate",
                "provisioner: csi.example.com\nvolumeBindingMode: WaitForFirstConsumer")


def storage_text(swap_cache_pods: bool = False) -> str:
    text = fixture_text("storage-lesson")
    if swap_cache_pods:
        start = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: "
        big = text.index(start + "cache-big\n")
        small = text.index(start + "cache-small\n")
        scratch = text.index(start + "scratch-0\n")
        text = text[:big] + text[small:scratch] + text[big:small] + text[scratch:]
    return text


def volume_binding(cycle: dict, point: str) -> dict:
    (only,) = [e for e in cycle[point] if e["plugin"] == "VolumeBinding"]
    assert (only["plugin"], only["code"], only["node"]) == ("VolumeBinding", "Success",
                                                            cycle["node"])
    return only["detail"]


def test_storage_volume_decisions_zone_pinning_and_the_pending_claim():
    run = lesson("storage-lesson")
    assert run.bindings == {
        "default/db-0": "node-b1", "default/logs-0": "node-c1", "default/cache-big": "node-a2",
        "default/cache-small": "node-b1", "default/scratch-0": "node-c1",
        "default/reports": None}
    uu = "UnschedulableAndUnresolvable"
    # db-0: its bound disk lives in zone-b (VolumeZone).
    db = run.first("db-0")
    assert rejections(db) == dict.fromkeys(
        ["node-a1", "node-a2", "node-c1"],
        ("VolumeZone", uu, ["node(s) had no available volume zone"]))
    assert volume_binding(db, "reserve") == NOTHING
    # Its claim is bound already: PreBindPreFlight says Skip, so VolumeBinding's PreBind is not
    # called (v1.35+, NominatedNodeNameForExpectation) and the pod gets no nomination.
    assert [e["plugin"] for e in db["preBind"]] == [] and "nominatedNodeName" not in db
    # logs-0: its bound local disk's node affinity names node-c1 (VolumeBinding).
    logs = run.first("logs-0")
    assert rejections(logs) == dict.fromkeys(
        ["node-a1", "node-a2", "node-b1"],
        ("VolumeBinding", uu, ["node(s) had volume node affinity conflict"]))
    # cache-big: only node-a2's 50Gi local disk is big enough; Reserve assumes, PreBind binds.
    big = run.first("cache-big")
    assert rejections(big) == dict.fromkeys(["node-a1", "node-b1", "node-c1"],
                                            ("VolumeBinding", uu, [NO_PV]))
    assumed = [{"kind": "PersistentVolume", "name": "local-a2",
                "claim": "default/cache-big-data"}]
    assert volume_binding(big, "reserve") == {**NOTHING, "assumed": assumed}
    assert volume_binding(big, "preBind") == {
        **NOTHING, "assumed": assumed,
        "bound": [{"pv": "local-a2", "pvc": "default/cache-big-data"}]}
    # cache-small: node-a2's disk is taken, node-c1's too small; VolumeBinding's Score (v1.37,
    # StorageCapacityScoring) prefers local-b1 left 60% free to local-a1 left 20% free.
    small = run.first("cache-small")
    assert rejections(small) == dict.fromkeys(["node-a2", "node-c1"],
                                              ("VolumeBinding", uu, [NO_PV]))
    assert {n: s["raw"] for n, s in small["score"]["VolumeBinding"].items()} == {
        "node-a1": 20, "node-b1": 60}
    assert small["totalScore"] == {"node-a1": 512, "node-b1": 540}
    assert volume_binding(small, "preBind")["bound"] == [
        {"pv": "local-b1", "pvc": "default/cache-small-data"}]
    # scratch-0: zonal-ssd provisions only in zone-b and zone-c; the claim is pinned to node-c1.
    scratch = run.first("scratch-0")
    assert rejections(scratch) == dict.fromkeys(["node-a1", "node-a2"],
                                                ("VolumeBinding", uu, [NO_PV]))
    assert scratch["totalScore"] == {"node-b1": 477, "node-c1": 494}
    selected = [{"kind": "PersistentVolumeClaim", "name": "default/scratch",
                 "selectedNode": "node-c1"}]
    assert volume_binding(scratch, "reserve") == {**NOTHING, "assumed": selected}
    prebind = volume_binding(scratch, "preBind")
    (provisioned,) = prebind["provisioned"]
    assert prebind == {**NOTHING, "assumed": selected, "provisioned": [provisioned]}
    assert provisioned["pv"].startswith("pvc-")
    assert {k: v for k, v in provisioned.items() if k != "pv"} == {
        "pvc": "default/scratch", "node": "node-c1", "provisioner": "csi.example.com"}
    # reports: its Immediate claim is unbound; PreFilter rejects it before any Filter.
    reports = run.of("reports")
    assert [(c["outcome"], c["message"], c["filter"]) for c in reports] == [
        ("Unschedulable", REPORTS, {})]
    assert entry("VolumeBinding", uu, ["pod has unbound immediate PersistentVolumeClaims"]) \
        in reports[0]["preFilter"]
    assert run.scheduler.pending_reasons() == {"default/reports": REPORTS}
    assert run.scheduler.clock == 0.0 and len(run.cycles) == 6

    # What PreBind wrote into the API objects.
    objects = run.scheduler.cluster.objects
    for pv, claim in [("local-a2", "cache-big-data"), ("local-b1", "cache-small-data")]:
        assert objects.pvs[pv]["spec"]["claimRef"]["name"] == claim
        assert objects.pvs[pv]["status"]["phase"] == "Bound"
        assert objects.pvcs[f"default/{claim}"]["spec"]["volumeName"] == pv
        assert objects.pvcs[f"default/{claim}"]["status"]["phase"] == "Bound"
    assert "claimRef" not in objects.pvs["local-a1"]["spec"]
    claim = objects.pvcs["default/scratch"]
    assert claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == "node-c1"
    assert claim["spec"]["volumeName"] == provisioned["pv"]
    new_pv = objects.pvs[provisioned["pv"]]
    assert new_pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                               "values": ["zone-c"]}]}]
    assert objects.pvcs["default/reports-data"]["status"]["phase"] == "Pending"


@pytest.mark.parametrize(("release", "seed", "cache_big", "totals"), [
    ("1.37", 0, None, {"node-a1": 512, "node-b1": 540, "node-a2": 576}),
    ("1.37", 1, None, {"node-a1": 512, "node-b1": 540, "node-a2": 576}),
    ("1.36", 0, "node-a2", {"node-a1": 492, "node-b1": 480, "node-a2": 492}),
    ("1.36", 1, None, {"node-a1": 492, "node-b1": 480, "node-a2": 492}),
])
def test_storage_try_swapping_the_cache_pods(release, seed, cache_big, totals):
    """Volumes are matched one pod at a time: cache-small may take the only disk cache-big fits.
    From v1.37 VolumeBinding's Score sends it to node-a2's roomy disk whatever the seed; as v1.36
    runs it, node-a1 and node-a2 tie and the seed decides."""
    run = lesson("storage-lesson", seed=seed, text=storage_text(swap_cache_pods=True),
                 release=release)
    assert run.bindings["default/cache-big"] == cache_big
    assert run.first("cache-small")["totalScore"] == totals
    if cache_big is None:
        assert run.bindings["default/cache-small"] == "node-a2"
        # Before v1.37 DynamicResources' no-op PostFilter also says so (PR #140222).
        noise = "no new claims to deallocate, " if release == "1.36" else ""
        assert run.first("cache-big")["message"] == (
            f"0/4 nodes are available: 4 {NO_PV}. {noise}preemption: 0/4 nodes are "
            "available: 4 Preemption is not helpful for scheduling.")


def test_storage_try_a_wait_for_first_consumer_class_for_reports():
    run = lesson("storage-lesson", edits=[WFFC_REPORTS])
    reports = run.first("reports")
    assert (reports["outcome"], reports["node"]) == ("Bound", "node-a1")
    (provisioned,) = volume_binding(reports, "preBind")["provisioned"]
    assert provisioned["pvc"] == "default/reports-data"


# --- gang-lesson and gang-lesson-fits -------------------------------------------------------------
TIMEOUT = "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin " \
          "Coscheduling."
WORKER_3 = f"{INSUFFICIENT_3} preemption: 0/3 nodes are available: 3 {NO_VICTIMS}"
GANG_POSTFILTER_OFF = "    postFilter:\n      disabled:\n      - name: Coscheduling\n"
WORKERS = [f"default/worker-{i}" for i in range(4)]


def permit_wait(node: str) -> list[dict]:
    return [entry("Coscheduling", "Wait", node=node, timeout=10.0)]


def test_gang_lesson_waits_times_out_releases_and_repeats():
    run = lesson("gang-lesson", max_cycles=8)
    first = run.cycles[:3]
    assert [c["pod"] for c in first] == WORKERS[:3]
    assert [c["time"] for c in first] == [0.0] * 3
    assert [c["node"] for c in first] == ["node-2", "node-3", "node-1"]  # seed 1
    assert [c["permit"] for c in first] == [permit_wait(c["node"]) for c in first]
    assert [c["bind"] for c in first] == [[], [], []]
    # Waiting at t=0, assumed on their nodes: worker-3 finds no room.
    assert [e[:3] for e in run.events[:3]] == [(0.0, "waiting", w) for w in WORKERS[:3]]
    worker_3 = run.cycles[3]
    assert (worker_3["pod"], worker_3["outcome"], worker_3["message"]) == (
        "default/worker-3", "Unschedulable", WORKER_3)
    # t=10s: the Permit timeout rejects the three and Unreserve frees their nodes.
    assert [(c["outcome"], c["message"]) for c in first] == [("Rejected", TIMEOUT)] * 3
    for c in first:
        assert [(u["plugin"], u["node"]) for u in c["unreserve"]] == [
            ("Coscheduling", c["node"]), ("DynamicResources", c["node"]),
            ("VolumeBinding", c["node"])]
    # The round repeats at t=10s, worker-3 first; the last one fits nowhere.
    assert [(c["pod"], c["time"]) for c in run.cycles[4:8]] == [
        ("default/worker-3", 10.0), ("default/worker-0", 10.0), ("default/worker-1", 10.0),
        ("default/worker-2", 10.0)]
    assert [c["outcome"] for c in run.cycles[4:8]] == [None, None, None, "Unschedulable"]
    assert run.bindings == dict.fromkeys(WORKERS)


def test_gang_lesson_try_coscheduling_postfilter():
    run = lesson("gang-lesson", edits=[(GANG_POSTFILTER_OFF, "")], max_cycles=5)
    rejected = "0/1 nodes are available: 1 optimistic rejection in PostFilter."
    assert [(c["outcome"], c["message"]) for c in run.cycles[:3]] == [("Rejected", rejected)] * 3
    worker_3 = run.cycles[3]
    given_up = ("PodGroup default/training gets rejected due to Pod worker-3 is unschedulable "
                "even after PostFilter")
    assert worker_3["message"] == f"{WORKER_3}, {given_up}"
    assert worker_3["postFilter"][2] == entry("Coscheduling", "Unschedulable", [given_up])
    assert run.scheduler.clock == 0.0  # no timeout: the group is given up at once


def test_gang_lesson_try_min_member_three():
    run = lesson("gang-lesson", edits=[("minMember: 4", "minMember: 3")])
    assert [c["outcome"] for c in run.cycles] == ["Bound", "Bound", "Bound", "Unschedulable"]
    assert run.cycles[3]["message"] == WORKER_3
    assert run.bindings["default/worker-3"] is None
    assert run.scheduler.clock == 0.0


def test_gang_lesson_fits_binds_the_whole_group_at_once():
    run = lesson("gang-lesson-fits")
    assert [(c["pod"], c["time"], c["outcome"]) for c in run.cycles] == [
        (w, 0.0, "Bound") for w in WORKERS]
    assert [c["permit"] for c in run.cycles[:3]] == [permit_wait(c["node"])
                                                     for c in run.cycles[:3]]
    assert run.cycles[3]["permit"] == [entry("Coscheduling", node=run.cycles[3]["node"])]
    assert sorted(run.bindings.values()) == ["node-1", "node-2", "node-3", "node-4"]
    assert [e[1] for e in run.events] == ["waiting"] * 3 + ["bound"] * 4
    assert run.scheduler.clock == 0.0


def fifth_worker(node: bool) -> list[tuple[str, str]]:
    text = fixture_text("gang-lesson-fits")
    worker_3 = text[text.index("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: worker-3"):]
    extra = worker_3.replace("worker-3", "worker-4")
    if node:
        extra = ("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-5\n  labels:\n"
                 "    kubernetes.io/hostname: node-5\nstatus:\n"
                 '  allocatable: {cpu: "2", memory: 8Gi, pods: "110"}\n'
                 '  capacity: {cpu: "2", memory: 8Gi, pods: "110"}\n') + extra
    return [(worker_3, worker_3 + extra)]


def test_gang_lesson_fits_try_a_fifth_worker():
    run = lesson("gang-lesson-fits", edits=fifth_worker(node=False))
    assert [c["outcome"] for c in run.cycles] == ["Bound"] * 4 + ["Unschedulable"]
    assert run.cycles[4]["message"] == (
        f"0/4 nodes are available: 4 Insufficient cpu. preemption: 0/4 nodes are "
        f"available: 4 {NO_VICTIMS}")
    run = lesson("gang-lesson-fits", edits=fifth_worker(node=True))
    assert [c["outcome"] for c in run.cycles] == ["Bound"] * 5
    assert run.cycles[4]["permit"] == [entry("Coscheduling", node=run.cycles[4]["node"])]


# --- storage-revert-lesson ------------------------------------------------------------------------
LOCAL_1_FOR_A = {"kind": "PersistentVolume", "name": "local-1", "claim": "default/data-a"}
MEMBER_B = (f"0/2 nodes are available: 2 {NO_PV}. preemption: 0/2 nodes are "
            "available: 2 Preemption is not helpful for scheduling.")


def second_local_pv() -> list[tuple[str, str]]:
    text = fixture_text("storage-revert-lesson")
    start = text.index("---\napiVersion: v1\nkind: PersistentVolume\n")
    local_1 = text[start:text.index("---", start + 3)]
    local_2 = local_1.replace("local-1", "local-2").replace("[node-1]", "[node-2]")
    return [(local_1, local_1 + local_2)]


def test_storage_revert_unreserve_reverts_the_assumed_volume():
    run = lesson("storage-revert-lesson", max_cycles=10)
    a0, b0, a1, b1 = run.cycles[:4]
    # Cycle 0: member-a finds local-1 on node-1; Reserve assumes it; Permit waits.
    assert (a0["pod"], a0["time"], a0["node"]) == ("default/member-a", 0.0, "node-1")
    assert rejections(a0) == {"node-2": ("VolumeBinding", "UnschedulableAndUnresolvable",
                                         [NO_PV])}
    assert a0["reserve"][0] == entry("VolumeBinding", node="node-1",
                                     detail={**NOTHING, "assumed": [LOCAL_1_FOR_A]})
    assert a0["permit"] == [entry("Coscheduling", "Wait", node="node-1", timeout=10.0)]
    # Cycle 1: to member-b, local-1 is taken; nothing to preempt.
    assert (b0["pod"], b0["outcome"], b0["message"]) == ("default/member-b", "Unschedulable",
                                                         MEMBER_B)
    assert rejections(b0) == dict.fromkeys(
        ["node-1", "node-2"], ("VolumeBinding", "UnschedulableAndUnresolvable", [NO_PV]))
    # t=10s: the Permit timeout; Unreserve runs Coscheduling, then VolumeBinding's revert.
    assert (a0["outcome"], a0["message"]) == ("Rejected", TIMEOUT)
    assert a0["unreserve"] == [
        entry("Coscheduling", node="node-1"), entry("DynamicResources", node="node-1"),
        entry("VolumeBinding", node="node-1",
              detail={**NOTHING, "assumed": [LOCAL_1_FOR_A], "reverted": [LOCAL_1_FOR_A]})]
    assert a0["preBind"] == []
    # Nothing requeues them but the unschedulable pods' flush: t=330s, member-a first, and
    # Reserve assumes local-1 again. The round repeats every 330s.
    assert [(c["pod"], c["time"]) for c in run.cycles] == [
        (f"default/member-{m}", 330.0 * (i // 2)) for i, m in enumerate("abababab" + "ab")]
    assert a1["reserve"][0]["detail"]["assumed"] == [LOCAL_1_FOR_A]
    assert (b1["outcome"], b1["message"]) == ("Unschedulable", MEMBER_B)
    objects = run.scheduler.cluster.objects
    assert "claimRef" not in objects.pvs["local-1"]["spec"]
    assert objects.pvs["local-1"]["status"]["phase"] == "Available"
    assert run.bindings == {"default/member-a": None, "default/member-b": None}


def test_storage_revert_runs_to_the_cycle_limit():
    run = lesson("storage-revert-lesson")
    assert len(run.cycles) == 50 * (2 + 10)
    assert set(run.bindings.values()) == {None}


@pytest.mark.parametrize("seed", [0, 1])
def test_storage_revert_try_a_second_local_volume(seed):
    run = lesson("storage-revert-lesson", seed=seed, edits=second_local_pv())
    a, b = run.cycles
    assert (a["outcome"], b["outcome"]) == ("Bound", "Bound")
    assert a["permit"][0]["code"] == "Wait" and b["permit"][0]["code"] == "Success"
    assert sorted(e["detail"]["bound"][0]["pv"] for c in (a, b) for e in c["preBind"]
                  if e["plugin"] == "VolumeBinding") == [
        "local-1", "local-2"]
    objects = run.scheduler.cluster.objects
    assert {objects.pvcs[f"default/data-{m}"]["status"]["phase"] for m in "ab"} == {"Bound"}


def test_storage_revert_try_min_member_one():
    run = lesson("storage-revert-lesson", edits=[("minMember: 2", "minMember: 1")])
    a, b = run.cycles
    assert (a["outcome"], a["node"]) == ("Bound", "node-1")
    assert a["preBind"][0]["detail"]["bound"] == [{"pv": "local-1", "pvc": "default/data-a"}]
    assert (b["outcome"], b["message"]) == ("Unschedulable", MEMBER_B)


# --- gpu-lesson -----------------------------------------------------------------------------------
GPU_TAINTED = 'spec:\n  taints:\n  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\n'
GPU_TOLERATION = "  tolerations:\n  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n"
GPU_NODES_TAINTED = [
    ('nvidia.com/gpu.memory: "81920"\nstatus:',
     'nvidia.com/gpu.memory: "81920"\n' + GPU_TAINTED + "status:"),
    ('nvidia.com/gpu.memory: "15360"\nstatus:',
     'nvidia.com/gpu.memory: "15360"\n' + GPU_TAINTED + "status:"),
    ("  containers:\n  - name: train", GPU_TOLERATION + "  containers:\n  - name: train"),
    ("  containers:\n  - name: serve", GPU_TOLERATION + "  containers:\n  - name: serve"),
]
PREFERRED_MODELS = """      preferredModels:
      - model: NVIDIA-H100-80GB-HBM3
        weight: 100
      - model: NVIDIA-A100-SXM4-80GB
        weight: 60
"""


def test_gpu_lesson_gpuscorer_prefers_model_and_free_memory():
    run = lesson("gpu-lesson")
    assert run.bindings == {
        "default/train-0": "h100-1", "default/train-1": "h100-1", "default/train-2": "a100-2",
        "default/infer-0": "h100-1", "default/web-0": "cpu-1"}
    train_0 = run.first("train-0")
    assert rejections(train_0) == {
        "a100-1": ("NodeResourcesFit", "Unschedulable", ["Insufficient nvidia.com/gpu"]),
        "cpu-1": ("NodeResourcesFit", "UnschedulableAndUnresolvable",
                  ["Insufficient nvidia.com/gpu"])}
    assert scores(train_0, "GPUScorer") == {
        "a100-2": (440, 52, 260), "h100-1": (840, 100, 500), "t4-1": (60, 7, 35)}
    assert scores(run.first("train-1"), "GPUScorer") == {
        "a100-2": (440, 84, 420), "h100-1": (520, 100, 500), "t4-1": (60, 11, 55)}
    # Free memory outweighs the preferred model: a100-2 wins.
    assert scores(run.first("train-2"), "GPUScorer") == {
        "a100-2": (440, 100, 500), "h100-1": (360, 81, 405), "t4-1": (60, 13, 65)}
    assert scores(run.first("infer-0"), "GPUScorer") == {
        "a100-1": (200, 55, 275), "a100-2": (280, 77, 385), "h100-1": (360, 100, 500),
        "t4-1": (60, 16, 80)}
    web = run.first("web-0")
    assert entry("GPUScorer", "Skip") in web["preScore"]
    assert "GPUScorer" not in web["score"]


@pytest.mark.parametrize(("seed", "node"), [(0, "t4-1"), (1, "cpu-1")])
def test_gpu_lesson_the_web_pod_ties_and_the_seed_decides(seed, node):
    run = lesson("gpu-lesson", seed=seed)
    totals = run.first("web-0")["totalScore"]
    assert totals["t4-1"] == totals["cpu-1"] == 497 == max(totals.values())
    assert run.bindings["default/web-0"] == node


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_gpu_lesson_try_tainting_the_gpu_nodes(seed):
    run = lesson("gpu-lesson", seed=seed, edits=GPU_NODES_TAINTED)
    assert run.bindings["default/web-0"] == "cpu-1"
    taint = ("TaintToleration", "UnschedulableAndUnresolvable",
             ["node(s) had untolerated taint {nvidia.com/gpu: present}"])
    assert rejections(run.first("web-0")) == dict.fromkeys(
        ["a100-1", "a100-2", "h100-1", "t4-1"], taint)
    # The GPU pods tolerate it: they land where they did.
    assert {k: v for k, v in run.bindings.items() if k != "default/web-0"} == {
        "default/train-0": "h100-1", "default/train-1": "h100-1", "default/train-2": "a100-2",
        "default/infer-0": "h100-1"}


def test_gpu_lesson_try_memory_weight_zero_and_no_preferred_models():
    run = lesson("gpu-lesson", edits=[("memoryWeight: 1", "memoryWeight: 0")])
    # Only the model counts: h100-1 while it has GPUs (8 = 4 + 2 + 2), then an A100.
    assert [run.bindings[f"default/{p}"] for p in ("train-0", "train-1", "train-2",
                                                   "infer-0")] == [
        "h100-1", "h100-1", "h100-1", "a100-2"]
    assert scores(run.first("train-0"), "GPUScorer") == {
        "a100-2": (120, 60, 300), "h100-1": (200, 100, 500), "t4-1": (0, 0, 0)}
    run = lesson("gpu-lesson", edits=[(PREFERRED_MODELS, "")])
    # Free GPU memory alone: train-1 finds a100-2 and h100-1 tied at 4 x 80 GiB.
    assert scores(run.first("train-1"), "GPUScorer") == {
        "a100-2": (320, 100, 500), "h100-1": (320, 100, 500), "t4-1": (60, 18, 90)}
    assert [run.bindings[f"default/{p}"] for p in ("train-0", "train-1", "train-2",
                                                   "infer-0")] == [
        "h100-1", "a100-2", "h100-1", "a100-2"]


# --- extender-lesson ------------------------------------------------------------------------------
APPROVED = "extender.example.com/approved"
FAST = "extender.example.com/fast"


@pytest.fixture
def sample_extender():
    """start(**rules) -> the sample extender serving on a free loopback port, in a thread."""
    servers = []

    def start(**rules) -> ExtenderServer:
        server = ExtenderServer(Rules(**rules), port=0, quiet=True)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def extender_copy(tmp_path: Path, url: str, edits=()) -> Path:
    """A temporary copy of the lesson whose urlPrefix points at `url`."""
    text = fixture_text("extender-lesson", edits)
    prefix = f"urlPrefix: {SAMPLE_URL}/scheduler"
    assert text.count(prefix) == 1
    copy = tmp_path / "extender-lesson.yaml"
    copy.write_text(text.replace(prefix, f"urlPrefix: {url}/scheduler"), encoding="utf-8")
    return copy


def extender_lesson(tmp_path, url, *, edits=(), max_cycles=None) -> Lesson:
    copy = extender_copy(tmp_path, url, edits)
    result = simulate([str(copy)], seed=SEED, max_cycles=max_cycles)
    return Lesson(result.scheduler, result.to_json()["cycles"], [])


def header_sample_rules(text: str) -> dict:
    (command,) = header_commands(text, "scheduler_core.extenders.sample")
    flags = dict(zip(command[::2], command[1::2]))
    assert flags == {"--port": "8888", "--require-label": APPROVED, "--prefer-label": FAST}
    return {"require_label": flags["--require-label"], "prefer_label": flags["--prefer-label"]}


def test_extender_lesson_filters_and_scores_over_http(tmp_path, sample_extender, capsys):
    text = fixture_text("extender-lesson")
    server = sample_extender(**header_sample_rules(text))
    plugin = f"extender:{server.url}/scheduler"
    # The header's command, on a copy that points at the running sample.
    (command,) = header_commands(text, "scheduler_core")
    assert command[:2] == ["simulate", "fixtures/extender-lesson.yaml"]
    out = run_cli(capsys, ["simulate", str(extender_copy(tmp_path, server.url)), *command[2:]])
    assert out["bindings"] == {
        "default/web-1": "node-2", "default/web-2": "node-2", "default/web-3": "node-1"}
    web_1, web_2, web_3 = out["cycles"]
    refused = (plugin, "Unschedulable", [f"node(s) didn't have label {APPROVED}"])
    for cycle in (web_1, web_2):
        # The Filter plugins pass all four; the extender filters node-3 and node-4 out.
        assert rejections(cycle) == {"node-3": refused, "node-4": refused}
        assert [e["plugin"] for e in cycle["filter"]["node-4"]][-1] == plugin
        assert scores(cycle, plugin) == {"node-1": (0, 0, 0), "node-2": (10, 100, 500)}
    assert web_1["totalScore"] == {"node-1": 474, "node-2": 949}
    # web-3: node-2 is full before the extender is asked; one node left, so no scoring.
    assert rejections(web_3) == {
        "node-2": ("NodeResourcesFit", "Unschedulable", ["Insufficient cpu"]),
        "node-3": refused, "node-4": refused}
    assert web_3["score"] == {}
    verbs = [verb for verb, _ in server.requests]
    assert verbs == ["filter", "prioritize", "filter", "prioritize", "filter"]
    asked = [n["metadata"]["name"] for n in server.requests[4][1]["Nodes"]["items"]]
    assert asked == ["node-1", "node-3", "node-4"]


def test_extender_lesson_try_unresolvable(tmp_path, sample_extender):
    server = sample_extender(require_label=APPROVED, prefer_label=FAST, unresolvable=True)
    run = extender_lesson(tmp_path, server.url)
    assert rejections(run.first("web-1"))["node-3"] == (
        f"extender:{server.url}/scheduler", "UnschedulableAndUnresolvable",
        [f"node(s) didn't have label {APPROVED}"])
    assert run.bindings["default/web-1"] == "node-2"


def test_extender_lesson_try_a_failing_extender(tmp_path, sample_extender):
    server = sample_extender(require_label=APPROVED, prefer_label=FAST, mode="fail")
    run = extender_lesson(tmp_path, server.url, max_cycles=3)
    message = f"failed filter with extender at URL {server.url}/scheduler/filter, code 500"
    assert [(c["outcome"], c["message"]) for c in run.cycles] == [("Error", message)] * 3


def test_extender_lesson_try_a_slow_extender(tmp_path, sample_extender):
    # --mode slow past httpTimeout, scaled down: 0.1s timeout, answers after 0.5s.
    server = sample_extender(require_label=APPROVED, mode="slow", delay=0.5)
    run = extender_lesson(tmp_path, server.url, edits=[("httpTimeout: 2s", "httpTimeout: 100ms")],
                          max_cycles=1)
    assert (run.cycles[0]["outcome"], run.cycles[0]["message"]) == (
        "Error", f'Post "{server.url}/scheduler/filter": context deadline exceeded '
                 "(Client.Timeout exceeded while awaiting headers)")


def test_extender_lesson_try_stopping_the_extender(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    run = extender_lesson(tmp_path, url)
    message = (f'Post "{url}/scheduler/filter": dial tcp {url[7:]}: connect: '
               "connection refused")
    assert {(c["outcome"], c["message"]) for c in run.cycles} == {("Error", message)}
    # Retried after backoff until a pod has waited the maximum and nothing changed.
    assert len(run.cycles) == 18
    assert sorted({c["time"] for c in run.cycles}) == [0.0, 2.0, 5.0, 10.0, 19.0, 30.0]
    assert run.bindings == dict.fromkeys(["default/web-1", "default/web-2", "default/web-3"])
    # ignorable: true: the extender is skipped, the pods go where they would without it.
    ignored = extender_lesson(tmp_path, url, edits=[("ignorable: false", "ignorable: true")])
    text = fixture_text("extender-lesson")
    without = text[text.index("---\n"):]  # no KubeSchedulerConfiguration: the default profile
    alone = lesson("extender-lesson", text=without)
    assert ignored.bindings == alone.bindings
    assert ignored.bindings["default/web-1"] == "node-4"  # the biggest node, not approved
    skipped = ignored.first("web-1")["filter"]["node-4"][-1]
    assert (skipped["plugin"], skipped["code"], skipped["reasons"]) == (
        f"extender:{url}/scheduler", "Skip", [message])
    assert ignored.first("web-1")["totalScore"] == alone.first("web-1")["totalScore"]


# --- gpu-cluster ----------------------------------------------------------------------------------
MOST_ALLOCATED = ("  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
                  "      scoringStrategy:\n        type: MostAllocated\n")


def gpu_cluster_without_train_1_toleration() -> str:
    text = fixture_text("gpu-cluster")
    start = text.index("  name: train-1\n")
    tolerations = text.index("  tolerations:\n", start)
    selector = text.index("  nodeSelector:\n", tolerations)
    return text[:tolerations] + text[selector:]


def test_gpu_cluster_web_pods_on_cpu_nodes_training_on_gpu_nodes():
    run = lesson("gpu-cluster")
    assert len(run.bindings) == 20 and all(run.bindings.values())
    gpus = collections.Counter()
    for pod, node in run.bindings.items():
        if pod.startswith("default/web-"):
            assert node.startswith("cpu-node-")
            # The GPU nodes' taint keeps every web pod off them.
            assert rejections(run.first(pod)) == {
                f"gpu-node-{i}": ("TaintToleration", "UnschedulableAndUnresolvable",
                                  ["node(s) had untolerated taint {nvidia.com/gpu: present}"])
                for i in range(1, 7)}
        else:
            assert pod.startswith("default/train-") and node.startswith("gpu-node-")
            gpus[node] += 2
    assert sum(gpus.values()) == 16 and max(gpus.values()) <= 4
    assert [c["outcome"] for c in run.cycles] == ["Bound"] * 20
    # LeastAllocated spreads: 12 web pods on 9 CPU nodes, the first six training pods on
    # empty GPU nodes, the last two doubling up.
    web = collections.Counter(n for p, n in run.bindings.items() if "web" in p)
    assert sorted(web.values()) == [1] * 6 + [2] * 3
    train = [c["node"] for c in run.cycles[12:]]
    assert len(set(train[:6])) == 6 and set(train[6:]) <= set(train[:6])


def test_gpu_cluster_try_bin_packing_and_a_missing_toleration():
    run = lesson("gpu-cluster", config=config_yaml(MOST_ALLOCATED))
    web_nodes = {run.bindings[f"default/web-{i}"] for i in range(1, 13)}
    assert len(web_nodes) == 1  # MostAllocated packs the twelve 500m pods on one node
    assert len({n for p, n in run.bindings.items() if "train" in p}) == 4  # 2 per GPU node
    run = lesson("gpu-cluster", text=gpu_cluster_without_train_1_toleration())
    assert run.first("train-1")["message"] == (
        "0/15 nodes are available: 6 node(s) had untolerated taint {nvidia.com/gpu: present}, "
        f"9 {AFFINITY}. preemption: 0/15 nodes are available: 15 {NOT_HELPFUL}")
    assert run.bindings["default/train-1"] is None


# --- scale-500 ------------------------------------------------------------------------------------
def test_scale_500_binds_every_pending_pod_within_its_constraints():
    events = PodEvents()  # no trace: 1000 cycles of 500 nodes would be slow to record
    scheduler = load_scheduler([str(FIXTURES / "scale-500.yaml")], seed=SEED, observer=events)
    scheduler.run()
    assert len(scheduler.bindings) == 1000
    assert all(scheduler.bindings.values())
    assert scheduler.cycle_count == 1000 and scheduler.clock == 0.0
    infos = scheduler.cache.node_infos
    nodes = {ni.name: ni for ni in infos.values()}
    for pi in scheduler.pods:
        if pi.key not in scheduler.bindings:
            continue
        node = nodes[scheduler.bindings[pi.key]]
        # No toleration anywhere: never on a cordoned or dedicated=infra node.
        assert not node.unschedulable and not node.taints
        zone = (pi.spec.get("nodeSelector") or {}).get("topology.kubernetes.io/zone")
        assert zone in (None, node.labels["topology.kubernetes.io/zone"])
    # The running half was spread round-robin by the generator and overcommits a few nodes;
    # the scheduler never adds a pod where it does not fit.
    receiving = set(scheduler.bindings.values())
    for ni in infos.values():
        if ni.name in receiving:
            assert ni.requested.milli_cpu <= ni.allocatable.milli_cpu
            assert ni.requested.memory <= ni.allocatable.memory
            assert len(ni.pods) <= ni.allocatable.allowed_pod_number
    # PrioritySort: the 250 api and auth pods (high) first, the 125 batch pods (low) last.
    apps = [key.split("/")[1].split("-")[0] for _, event, key, _ in events.events
            if event == "bound"]
    assert len(apps) == 1000
    assert set(apps[:250]) == {"api", "auth"} and not {"api", "auth"} & set(apps[250:])
    assert set(apps[-125:]) == {"batch"} and "batch" not in apps[:-125]


@pytest.mark.parametrize(("top", "evaluated"), [("", 230), ("percentageOfNodesToScore: 100\n",
                                                            None)], ids=["adaptive", "all"])
def test_scale_500_finds_230_feasible_nodes_unless_told_to_score_all(top, evaluated):
    run = lesson("scale-500", max_cycles=3, config=config_yaml(top=top) if top else None)
    for cycle in run.cycles:
        # 500 nodes: the adaptive percentage is 50 - 500/125 = 46%, so 230 feasible nodes.
        if evaluated:
            assert len(feasible(cycle)) == evaluated == len(cycle["totalScore"])
            assert len(cycle["filter"]) < 500
        else:
            assert len(cycle["filter"]) == 500
    if not evaluated:
        assert len(feasible(run.cycles[0])) == 476
    # PrioritySort: the high-priority api and auth pods go first.
    assert [c["pod"].split("/")[1].split("-")[0] for c in run.cycles] == ["api", "auth", "api"]


# --- gpu-dra-lesson -------------------------------------------------------------------------------
CANNOT_ALLOCATE = "cannot allocate all claims"
TRAIN_WIDE = (f"0/5 nodes are available: 5 {CANNOT_ALLOCATE}. "
              f"preemption: 0/5 nodes are available: 5 {NOT_HELPFUL}")
WIDE_TEMPLATE = "          deviceClassName: gpu.example.com\n          count: 3\n"


def dra_detail(cycle: dict, point: str) -> list[dict]:
    (only,) = [e for e in cycle[point] if e["plugin"] == "DynamicResources"]
    return only["detail"]["claims"]


def devices_of(event: dict) -> list[tuple[str, str]]:
    return [(r["pool"], r["device"]) for r in event["allocation"]["devices"]["results"]]


def test_gpu_dra_lesson_claims_templates_sharing_and_admin_access():
    run = lesson("gpu-dra-lesson")
    assert run.bindings == {
        "default/web-1": "cpu-node-2", "default/web-2": "cpu-node-1",
        "default/web-3": "cpu-node-2", "default/train-1": "gpu-node-2",
        "default/train-2": "gpu-node-3", "default/infer-a": "gpu-node-1",
        "default/infer-b": "gpu-node-1", "gpu-monitoring/gpu-monitor": "gpu-node-3",
        "default/train-wide": None}
    web = run.first("web-1")
    assert entry("DynamicResources", "Skip") in web["preFilter"]
    assert all(e["plugin"] != "DynamicResources" for trail in web["filter"].values()
               for e in trail)
    train = run.first("train-1")
    for node in ("cpu-node-1", "cpu-node-2"):
        assert rejections(train)[node] == ("DynamicResources", "UnschedulableAndUnresolvable",
                                           [CANNOT_ALLOCATE])
    (reserved,) = dra_detail(train, "reserve")
    assert reserved["claim"].startswith("default/train-1-gpus-")
    assert devices_of(reserved) == [("gpu-node-2", "gpu-0"), ("gpu-node-2", "gpu-1")]
    (bound,) = dra_detail(train, "preBind")
    assert bound["reservedFor"] == "default/train-1"
    claim = run.scheduler.cluster.objects.resource_claims[reserved["claim"]]
    assert claim["status"]["reservedFor"] == [
        {"resource": "pods", "name": "train-1", "uid": "default/train-1"}]
    # infer-b only reserves the claim infer-a allocated, and must follow it to gpu-node-1.
    infer_b = run.first("infer-b")
    assert set(rejections(infer_b)) == {"cpu-node-1", "cpu-node-2", "gpu-node-2", "gpu-node-3"}
    assert rejections(infer_b)["gpu-node-2"][2] == ["resourceclaim not available on the node"]
    assert dra_detail(infer_b, "preBind") == [{"claim": "default/shared-a100",
                                               "reservedFor": "default/infer-b"}]
    monitor_cycle = next(c for c in run.cycles if c["pod"] == "gpu-monitoring/gpu-monitor")
    (monitor,) = dra_detail(monitor_cycle, "reserve")
    assert devices_of(monitor) == [("gpu-node-3", f"gpu-{i}") for i in range(4)]
    wide = run.first("train-wide")
    assert wide["message"] == TRAIN_WIDE
    assert wide["postFilter"][0] == entry("DynamicResources", "Unschedulable",
                                          [])


def test_gpu_dra_lesson_try_two_gpus_and_no_constraint():
    run = lesson("gpu-dra-lesson", edits=[(WIDE_TEMPLATE, WIDE_TEMPLATE.replace("3", "2"))])
    assert run.bindings["default/train-wide"] == "gpu-node-1"
    (event,) = dra_detail(run.first("train-wide"), "reserve")
    assert devices_of(event) == [("gpu-node-1", "gpu-2"), ("gpu-node-1", "gpu-3")]
    text = fixture_text("gpu-dra-lesson", [])
    start = text.index("name: three-a100-one-root")
    constraint = text[text.index("      constraints:", start):text.index("---", start)]
    run = lesson("gpu-dra-lesson", edits=[(WIDE_TEMPLATE + constraint, WIDE_TEMPLATE)])
    assert run.bindings["default/train-wide"] == "gpu-node-1"


def test_gpu_dra_lesson_try_no_admin_access_label():
    with pytest.raises(InputError, match=r"ResourceClaim gpu-monitoring/all-gpus-admin: field "
                       r"spec\.devices\.requests\[0\]\.exactly\.adminAccess: Forbidden"):
        lesson("gpu-dra-lesson", edits=[
            ('  labels:\n    resource.kubernetes.io/admin-access: "true"\n', "")])


def test_gpu_dra_lesson_try_a_broken_class_selector():
    run = lesson("gpu-dra-lesson", max_cycles=12, edits=[(
        'expression: device.driver == "gpu.example.com"',
        'expression: device.attributes["gpu.example.com"].nosuch == 1')])
    assert run.first("train-1")["message"] == (
        'running "DynamicResources" filter plugin: class gpu.example.com: selector #0: CEL '
        "runtime error: no such key: nosuch. Consider using CEL optional chaining (?), has() "
        "macro, or orValue() for optional fields")
    assert run.first("train-1")["outcome"] == "Error"
    assert {p for p, n in run.bindings.items() if n} == {f"default/web-{i}" for i in (1, 2, 3)}


# --- locally-optimal -----------------------------------------------------------------------------
def test_locally_optimal_leaves_batch_pending_behind_the_first_web_pod():
    run = lesson("locally-optimal")
    assert run.bindings == {"default/web-1": "large", "default/web-2": "small-2",
                            "default/batch": None}
    assert run.first("web-1")["totalScore"] == {"small-1": 399, "small-2": 399, "large": 449}
    assert run.first("web-2")["totalScore"] == {"small-1": 399, "small-2": 399, "large": 399}
    assert run.first("batch")["message"] == (
        f"0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are "
        f"available: 1 {NO_VICTIMS[:-1]}, 2 {NOT_HELPFUL}")


def test_locally_optimal_header_commands_show_the_global_placement_binding_all(capsys):
    simulate_command, optimize_command = header_commands(fixture_text("locally-optimal"),
                                                         "scheduler_core")
    assert simulate_command == ["simulate", "fixtures/locally-optimal.yaml", "--output", "json"]
    assert optimize_command == ["optimize", "fixtures/locally-optimal.yaml"]
    out = run_cli(capsys, ["optimize", str(FIXTURES / "locally-optimal.yaml")])
    assert out["scheduler"]["bound"] == 2
    best = out["optimal"]
    assert (best["bound"], best["status"]) == (3, "OPTIMAL")
    assert best["bindings"]["default/batch"] == "large"
    # The web pods score alike on either small node: which takes which is the solver's tie.
    assert {best["bindings"]["default/web-1"], best["bindings"]["default/web-2"]} == \
        {"small-1", "small-2"}
    (gained,) = out["gained"]
    assert gained["pod"] == "default/batch" and gained["optimalNode"] == "large"
    assert gained["blockedBy"]["pod"] == "default/web-1"
    assert gained["blockedBy"]["cycle"] == 0


BATCH_CPU = '      requests: {cpu: "4", memory: 2Gi}'


def test_locally_optimal_try_a_higher_priority_batch_goes_first():
    priority = ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
                "value: 1000\n---\n")
    text = priority + fixture_text("locally-optimal").replace(
        "  name: batch\n  labels: {app: batch}\nspec:\n",
        "  name: batch\n  labels: {app: batch}\nspec:\n  priorityClassName: high\n")
    run = lesson("locally-optimal", text=text)
    assert [c["pod"] for c in run.cycles] == ["default/batch", "default/web-1", "default/web-2"]
    assert run.bindings["default/batch"] == "large"
    assert {run.bindings["default/web-1"], run.bindings["default/web-2"]} == {"small-1",
                                                                             "small-2"}


def test_locally_optimal_try_a_smaller_batch_binds_everything(capsys):
    run = lesson("locally-optimal", edits=[(BATCH_CPU, BATCH_CPU.replace('"4"', '"2"'))])
    assert all(run.bindings.values())


# --- dra-releases-lesson ----------------------------------------------------------------------
# One cluster under v1.37 and v1.34: device taints, partitionable devices and DRA-backed extended
# resources (DRADeviceTaints, DRAPartitionableDevices, DRAExtendedResource: off in v1.34 and
# v1.35, on from v1.36; kube_features.go at v1.37).
RELEASE_PODS = ("whole", "half", "ext", "careful", "tolerant")


def dra_devices(run: Lesson) -> dict[str, list[tuple[str, str]]]:
    """pod -> (pool, device) of the claims its bound cycle allocated at Reserve."""
    out = {}
    for pod in RELEASE_PODS:
        bound = [c for c in run.of(pod) if c["outcome"] == "Bound"]
        if bound:
            out[pod] = [d for e in dra_detail(bound[0], "reserve") for d in devices_of(e)]
    return out


def test_dra_releases_lesson_under_v1_37():
    run = lesson("dra-releases-lesson")
    assert run.bindings == {"default/whole": "h100-node", "default/half": None,
                            "default/ext": "a100-node", "default/careful": None,
                            "default/tolerant": "a100-node"}
    assert dra_devices(run) == {"whole": [("h100-node", "gpu-0")],
                                "ext": [("a100-node", "gpu-1")],
                                "tolerant": [("a100-node", "gpu-0")]}
    # The halves consume the memory the whole GPU already took; gpu-0 of the A100s is tainted.
    for pod in ("half", "careful"):
        assert run.first(pod)["message"].startswith(
            f"0/2 nodes are available: 2 {CANNOT_ALLOCATE}.")
    (created,) = dra_detail(run.first("ext"), "preBind")
    assert created["claim"].startswith("default/ext-extended-resources-")
    pod = next(p for p in run.scheduler.cluster.pods if p["metadata"]["name"] == "ext")
    status = pod["status"]["extendedResourceClaimStatus"]
    assert f"default/{status['resourceClaimName']}" == created["claim"]
    assert status["requestMappings"] == [{"containerName": "infer",
                                          "resourceName": "example.com/gpu",
                                          "requestName": "container-0-request-0"}]
    assert list(run.scheduler.warnings) == []


def test_dra_releases_lesson_under_v1_34_warns_and_ignores_the_new_fields():
    run = lesson("dra-releases-lesson", release="1.34")
    assert run.bindings == {"default/whole": "h100-node", "default/half": "h100-node",
                            "default/ext": None, "default/careful": "a100-node",
                            "default/tolerant": "a100-node"}
    # Over-allocated: the half shares the H100 memory the whole GPU uses; careful takes the
    # tainted A100.
    assert dra_devices(run)["half"] == [("h100-node", "gpu-0-half-0")]
    assert dra_devices(run)["careful"] == [("a100-node", "gpu-0")]
    assert run.first("ext")["message"].startswith(
        "0/2 nodes are available: 2 Insufficient example.com/gpu.")
    fields = [line.split(": field ")[1].split(":")[0] for line in run.scheduler.warnings]
    assert fields == ["spec.extendedResourceName", "spec.devices[0].taints",
                      "spec.sharedCounters", "spec.devices[0].consumesCounters",
                      "spec.spec.devices.requests[0].exactly.tolerations"]
    assert all("feature gate is off in this run (v1.34;" in line
               for line in run.scheduler.warnings)


@pytest.mark.parametrize("release", ["1.35", "1.36"])
def test_dra_releases_lesson_the_features_arrive_in_v1_36(release):
    run = lesson("dra-releases-lesson", release=release)
    expected = lesson("dra-releases-lesson", release="1.37" if release == "1.36" else "1.34")
    assert run.bindings == expected.bindings


def test_dra_releases_lesson_try_the_taints_gate_on_v1_34():
    run = lesson("dra-releases-lesson", release="1.34", gates="DRADeviceTaints=true")
    devices = dra_devices(run)
    assert (devices["careful"], devices["tolerant"]) == ([("a100-node", "gpu-1")],
                                                        [("a100-node", "gpu-0")])
    assert not any("taints" in line or "tolerations" in line for line in run.scheduler.warnings)
