"""NominatedNodeNameForExpectation (beta, on from v1.35): at the start of the binding cycle the
scheduler runs the PreBind plugins' PreBindPreFlight; when one of them will work for the pod,
or the pod waits on Permit, the pod's status.nominatedNodeName names its node until it is bound
(the binding API clears it) or fails (clearNominatedNode). PreBind plugins whose preflight
said Skip are not called. pkg/scheduler/schedule_one.go (bindingCycle),
framework/runtime/framework.go (RunPreBindPreFlights, RunPreBindPlugins); the cases are
test/integration/scheduler/plugins/plugins_test.go
TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit, each with the gate on and off."""
import pytest

from scheduler_core.features import feature_gates
from scheduler_core.framework.status import Code, Status
from scheduler_core.testing import make_node, make_pod
from scheduler_core.testing.fakes import fake, run

NODES = [make_node("n1")]
GATE = {True: feature_gates("1.37"), False: feature_gates("1.34")}


def prebind_that_works(log):
    return fake("WorkingPreBind", log, pre_bind_pre_flight=None,
                pre_bind=Status(Code.ERROR, "pre-bind cancelled"))


def pod_of(sched):
    return next(p for p in sched.pods if p.key == "default/p")


CASES = [
    pytest.param(lambda log: [prebind_that_works(log)], True,
                 id="NominatedNodeName is put if PreBindPlugin will run"),
    pytest.param(lambda log: [fake("Waits", log, permit=(Status(Code.WAIT), 30))], True,
                 id="NominatedNodeName is put if PermitPlugin will run at WaitOnPermit"),
    pytest.param(lambda log: [fake("Allows", log, permit=(None, 0))], False,
                 id="NominatedNodeName is not put if PermitPlugin won't run at WaitOnPermit"),
    pytest.param(lambda log: [], False,
                 id="NominatedNodeName is not put if PermitPlugin nor PreBindPlugin will run"),
]


@pytest.mark.parametrize("gate", [True, False], ids=["gate on", "gate off"])
@pytest.mark.parametrize("plugins, expect", CASES)
def test_nominated_node_name_is_set_before_prebind_and_wait_on_permit(plugins, expect, gate):
    sched, cycles = run(plugins([]), NODES, [make_pod("p")], max_cycles=1, features=GATE[gate])
    assert cycles[0].get("nominatedNodeName") == ("n1" if expect and gate else None)


def test_a_pod_waiting_on_permit_shows_its_nominated_node_while_it_waits():
    sched, _ = run([fake("Waits", permit=(Status(Code.WAIT), 30))], NODES, [make_pod("p")],
                   max_cycles=1)
    (waiting,) = sched.waiting.values()
    assert waiting.pod.nominated_node_name == "n1"


def test_a_failed_binding_clears_the_nomination_it_made():
    sched, cycles = run([prebind_that_works([])], NODES, [make_pod("p")], max_cycles=1)
    assert cycles[0]["outcome"] == "Error" and cycles[0]["nominatedNodeName"] == "n1"
    assert pod_of(sched).nominated_node_name == ""


def test_the_binding_api_clears_the_nomination_of_a_bound_pod():
    ok = fake("WorkingPreBind", pre_bind_pre_flight=None, pre_bind=None)
    sched, cycles = run([ok], NODES, [make_pod("p")], max_cycles=1)
    assert (cycles[0]["outcome"], cycles[0]["nominatedNodeName"]) == ("Bound", "n1")
    assert pod_of(sched).nominated_node_name == ""


@pytest.mark.parametrize("gate, called", [(True, ["Works"]), (False, ["Skips", "Works"])],
                         ids=["gate on: the skipping plugin is left out",
                              "gate off: every PreBind plugin runs"])
def test_prebind_plugins_whose_preflight_skips_are_not_called(gate, called):
    log = []
    skips = fake("Skips", log, pre_bind_pre_flight=Status.skip(), pre_bind=None)
    works = fake("Works", log, pre_bind_pre_flight=None, pre_bind=None)
    _, cycles = run([skips, works], NODES, [make_pod("p")], max_cycles=1,
                    features=GATE[gate])
    assert [e["plugin"] for e in cycles[0]["preBind"]] == called
    assert [c[0] for c in log if c[1] == "pre_bind"] == called


def test_every_preflight_skipping_puts_no_nomination():
    skips = fake("Skips", pre_bind_pre_flight=Status.skip(), pre_bind=None)
    _, cycles = run([skips], NODES, [make_pod("p")], max_cycles=1)
    assert "nominatedNodeName" not in cycles[0] and cycles[0]["preBind"] == []


@pytest.mark.parametrize("result, message", [
    (Status(Code.ERROR, "boom"), 'running PreBindPreFlight "Bad": boom'),
    (Status.unschedulable("no"), 'PreBindPreFlight Bad returned "Unschedulable", which is '
                                 "unsupported. It is supposed to return Success, Skip, or "
                                 "Error status"),
], ids=["an error fails the binding", "a rejection is unsupported and fails it too"])
def test_a_preflight_that_fails_fails_the_binding_cycle(result, message):
    bad = fake("Bad", pre_bind_pre_flight=result, pre_bind=None)
    sched, cycles = run([bad], NODES, [make_pod("p")], max_cycles=1)
    assert (cycles[0]["outcome"], cycles[0]["message"]) == ("Error", message)
    assert cycles[0]["preBind"] == [] and sched.bindings["default/p"] is None


@pytest.mark.parametrize("gate, want", [(True, {"nominatedNode": "n1"}), (False, {})],
                         ids=["gate on: the waiting pod's nominatedNodeName", "gate off: none"])
def test_the_queue_state_shows_the_waiting_pods_nomination(gate, want):
    from scheduler_core.session import queue_state
    sched, _ = run([fake("Waits", permit=(Status(Code.WAIT), 30))], NODES, [make_pod("p")],
                   max_cycles=1, features=GATE[gate])
    (entry,) = queue_state(sched)["waitingOnPermit"]
    assert {k: v for k, v in entry.items() if k == "nominatedNode"} == want
