"""/ws/workshops/<code>/: who gets in, following the presenter, concealment until reveal."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.runs.executor import group_name
from playground.runs.models import Run
from playground.workshops import roll_call, services
from playground.workshops.models import Attendee
from tests.helpers import finish_run, make_user
from tests.runs.test_consumer_runs import Socket, headers
from tests.workshops.conftest import joined

pytestmark = pytest.mark.django_db(transaction=True)


class WorkshopSocket(Socket):
    def __init__(self, code, hdrs):
        super().__init__(0, hdrs)
        self.ws = WebsocketCommunicator(application, f"/ws/workshops/{code}/", headers=hdrs)


def user_of(client):
    return Attendee.objects.get(pk=client.attendee_id).user


@pytest.fixture
def room(workshop):
    """The lesson presented (its run at cycle 0) and two attendees."""
    services.workshop_present(workshop=workshop, lesson=workshop.lessons.get())
    workshop.refresh_from_db()
    return workshop, user_of(joined(workshop, "Ana")), user_of(joined(workshop, "Ben"))


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_it_refuses_people_outside_the_workshop(room, who):
    workshop = room[0]
    hdrs = headers(make_user("outsider") if who == "outsider" else None)

    async def scenario():
        return await WorkshopSocket(workshop.code, hdrs).connect()

    assert async_to_sync(scenario)() == (False, 4403)


def test_it_refuses_an_attendee_of_another_workshop(room, trainer_user):
    workshop = room[0]
    other = services.workshop_create(trainer=trainer_user, title="Other",
                                     clusters=[workshop.lessons.get().cluster])
    stranger = user_of(joined(other, "Cleo"))
    hdrs = headers(stranger)

    async def scenario():
        return await WorkshopSocket(workshop.code, hdrs).connect()

    assert async_to_sync(scenario)() == (False, 4403)


def test_an_attendee_follows_the_trainers_steps_read_only(room, trainer_user):
    workshop, ana, _ = room
    run = workshop.current_lesson.presenter_run
    h_ana, h_trainer = headers(ana), headers(trainer_user)

    async def scenario():
        follower = WorkshopSocket(workshop.code, h_ana)
        assert (await follower.connect())[0]
        snap = await follower.snapshot()
        driver = Socket(run.pk, h_trainer)
        assert (await driver.connect())[0]
        await driver.snapshot()
        await driver.send({"action": "step", "cycles": 2})
        batch = await follower.until(lambda f: f["type"] == "batch" and any(
            e.get("kind") == "progress" and e["cycles"] == 2 for e in f["events"]))
        await follower.send({"action": "step"})
        refused = await follower.until(lambda f: f["type"] == "error")
        await driver.close()
        await follower.close()
        return snap, batch, refused

    snap, batch, refused = async_to_sync(scenario)()
    assert snap["run"]["id"] == run.pk and snap["run"]["canControl"] is False
    cycles = [e for e in batch["events"] if e["kind"] == "cycle"]
    assert [c["index"] for c in cycles] == [0, 1] and cycles[0]["outcome"] == "Bound"
    assert (refused["action"], refused["code"]) == ("step", "forbidden")
    run.refresh_from_db()
    assert run.cycle_count == 2


def test_an_asked_cycle_is_hidden_from_attendees_until_the_reveal(room, trainer_user):
    workshop, ana, ben = room
    run = workshop.current_lesson.presenter_run
    h_ana, h_trainer = headers(ana), headers(trainer_user)
    ana_attendee = ana.attendance

    async def scenario():
        follower = WorkshopSocket(workshop.code, h_ana)
        trainer = WorkshopSocket(workshop.code, h_trainer)
        assert (await follower.connect())[0] and (await trainer.connect())[0]
        await follower.snapshot()
        await trainer.snapshot()
        question = await database_sync_to_async(services.question_ask)(
            workshop=workshop, point="Score")
        asked = await follower.until(lambda f: f["type"] == "workshop")
        driver = Socket(run.pk, h_trainer)
        assert (await driver.connect())[0]
        await driver.snapshot()
        await driver.send({"action": "step", "cycles": 1})
        batch = await follower.until(lambda f: f["type"] == "batch" and any(
            e.get("kind") == "cycle" for e in f["events"]))
        trainer_batch = await trainer.until(lambda f: f["type"] == "batch" and any(
            e.get("kind") == "cycle" for e in f["events"]))
        await follower.send({"action": "cycle_detail", "index": 0})
        detail = await follower.until(lambda f: f["type"] == "cycle_detail")
        await database_sync_to_async(services.prediction_submit)(
            question=question, attendee=ana_attendee, answer=["node-a"])
        tally = await trainer.until(lambda f: f["type"] == "workshop"
                                    and f["event"]["kind"] == "tally")
        await database_sync_to_async(services.question_reveal)(question=question)
        revealed = await follower.until(lambda f: f["type"] == "workshop"
                                        and f["event"]["kind"] == "revealed")
        after = await follower.snapshot()
        for sock in (driver, trainer, follower):
            await sock.close()
        return asked, batch, trainer_batch, detail, tally, revealed, after, follower.frames

    asked, batch, trainer_batch, detail, tally, revealed, after, frames = \
        async_to_sync(scenario)()
    assert asked["event"]["question"]["cycle_index"] == 0
    assert "answer" not in asked["event"]["question"]
    cycle = next(e for e in batch["events"] if e["kind"] == "cycle")
    assert cycle["hidden"] is True and "outcome" not in cycle and "topScores" not in cycle
    progress = [e for e in batch["events"] if e.get("kind") == "progress"]
    assert progress and all("podsBound" not in e for e in progress)
    assert not any(e.get("kind") in ("pod", "queue") for e in batch["events"])
    # The trainer sees everything.
    assert next(e for e in trainer_batch["events"] if e["kind"] == "cycle")["outcome"]
    # At Score, Filter's verdicts show; scores and the outcome do not.
    assert "filter" in detail["cycle"] and "score" not in detail["cycle"]
    assert "outcome" not in detail["cycle"] and detail["cycle"]["hiddenFrom"] == "Score"
    # No frame before the reveal carried the outcome of cycle 0.
    before = frames[:frames.index(revealed)]
    assert not any(f["type"] == "batch" and any(e.get("outcome") for e in f["events"])
                   for f in before)
    assert tally["event"]["count"] == 1
    assert revealed["event"]["mine"] == {"answer": ["node-a"], "correct": True}
    assert revealed["event"]["question"]["answer"]["answer"] == ["node-a"]
    assert after["cycles"][0]["outcome"] == "Bound" and after["run"]["pods_bound"] == 1


def test_a_gap_refilled_while_a_question_is_open_hides_the_asked_cycle(room):
    """A socket that missed messages gets the stored cycles again: concealed, as the live ones."""
    workshop, ana, _ = room
    run = workshop.current_lesson.presenter_run
    finish_run(run)
    Run.objects.filter(pk=run.pk).update(cycle_count=0)  # the room is at cycle 0
    h_ana = headers(ana)

    async def scenario():
        follower = WorkshopSocket(workshop.code, h_ana)
        assert (await follower.connect())[0]
        await follower.snapshot()
        await database_sync_to_async(services.question_ask)(workshop=workshop, point="Score",
                                                            cycle_index=2)
        asked = await follower.until(lambda f: f["type"] == "workshop"
                                     and f["event"]["kind"] == "asked")
        index = asked["event"]["question"]["cycle_index"]
        await get_channel_layer().group_send(group_name(run.pk), {
            "type": "run.events", "run": run.pk, "from": index + 1, "to": index + 3,
            "events": []})
        refill = await follower.until(lambda f: f["type"] == "batch" and any(
            e.get("kind") == "refill" for e in f["events"]))
        await follower.close()
        return index, refill

    index, refill = async_to_sync(scenario)()
    cycles = [e for e in refill["events"] if e["kind"] == "cycle"]
    assert [e["index"] for e in cycles] == list(range(index + 3))
    assert all(e["outcome"] and not e.get("hidden") for e in cycles[:index])
    assert all(e["hidden"] and "outcome" not in e and "node" not in e for e in cycles[index:])


def test_a_sandbox_reset_notice_reaches_only_its_attendee(room):
    workshop, ana, ben = room
    h_ana, h_ben = headers(ana), headers(ben)
    sandbox = ana.attendance.sandboxes.get()

    async def scenario():
        a, b = WorkshopSocket(workshop.code, h_ana), WorkshopSocket(workshop.code, h_ben)
        assert (await a.connect())[0] and (await b.connect())[0]
        await a.snapshot()
        await b.snapshot()
        await database_sync_to_async(services.sandbox_reset)(sandbox=sandbox)
        notice = await a.until(lambda f: f["type"] == "workshop")
        await database_sync_to_async(services.workshop_close)(workshop=workshop)
        first_for_ben = await b.until(lambda f: f["type"] == "workshop")
        await a.close()
        await b.close()
        return notice, first_for_ben

    notice, first_for_ben = async_to_sync(scenario)()
    assert notice["event"] == {"kind": "sandbox_reset", "sandbox": sandbox.pk, "lesson": 0}
    assert first_for_ben["event"]["kind"] == "closed"


def test_it_rejects_other_attendees_sandbox_run(room):
    workshop, ana, ben = room
    sandbox = ana.attendance.sandboxes.get()
    run = services.sandbox_detach(sandbox=sandbox, cycles=0)
    h_ana, h_ben = headers(ana), headers(ben)

    async def scenario():
        own = await Socket(run.pk, h_ana).connect()
        other = await Socket(run.pk, h_ben).connect()
        return own[0], other

    own, other = async_to_sync(scenario)()
    assert own is True and other == (False, 4403)


def test_viewers_of_a_reset_run_see_a_notice(room, trainer_user):
    workshop, ana, _ = room
    run = workshop.current_lesson.presenter_run
    h_ana, h_trainer = headers(ana), headers(trainer_user)

    async def scenario():
        follower = WorkshopSocket(workshop.code, h_ana)
        watcher, driver = Socket(run.pk, h_trainer), Socket(run.pk, h_trainer)
        for sock in (follower, watcher, driver):
            assert (await sock.connect())[0]
            await sock.snapshot()
        await driver.send({"action": "step", "cycles": 2})
        await driver.until(lambda f: f["type"] == "ack")
        await follower.until(lambda f: f["type"] == "batch")
        await driver.send({"action": "reset"})
        notices = [await s.until(lambda f: f["type"] == "notice") for s in (watcher, follower)]
        after = await follower.snapshot()
        for sock in (follower, watcher, driver):
            await sock.close()
        return notices, after

    notices, after = async_to_sync(scenario)()
    assert notices[0]["message"] == "This run was reset to the start."
    assert notices[1]["message"] == "the presenter reset the run"
    assert after["run"]["cycle_count"] == 0


def test_an_attendee_removed_from_the_workshop_is_closed_out(room, monkeypatch):
    # Membership is rechecked in the background every few seconds; here every 50 ms.
    monkeypatch.setattr(roll_call, "MEMBERSHIP_RECHECK", 0.05)
    workshop, ana, _ = room
    h_ana = headers(ana)

    async def scenario():
        sock = WorkshopSocket(workshop.code, h_ana)
        assert (await sock.connect())[0]
        await sock.snapshot()
        await database_sync_to_async(Attendee.objects.filter(user=ana).delete)()
        # No event needed: the background check alone closes the stream.
        return await sock.ws.receive_output(timeout=10)

    closed = async_to_sync(scenario)()
    assert closed["type"] == "websocket.close" and closed["code"] == 4403
