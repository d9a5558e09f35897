"""/api/runs/{id}/cycles/ and /api/runs/{id}/cycles/{index}/: summaries and full traces."""

import pytest

from playground.runs.models import CycleRecord


def test_it_lists_cycle_summaries_in_order(api, finished_run):
    response = api.get(f"/api/runs/{finished_run.pk}/cycles/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 7
    first = body["results"][0]
    assert first == {"index": 0, "time": 0.0, "pod": "default/web-ssd", "outcome": "Bound",
                     "node": "node-a", "message": ""}
    assert [c["index"] for c in body["results"]] == list(range(7))


def test_it_filters_by_pod_outcome_and_node(api, finished_run):
    url = f"/api/runs/{finished_run.pk}/cycles/"
    nowhere = api.get(url + "?pod=default/nowhere").json()["results"]
    assert [c["outcome"] for c in nowhere] == ["Unschedulable", "Unschedulable"]
    assert nowhere[0]["message"].startswith("0/5 nodes are available")
    bound = api.get(url + "?outcome=Bound").json()
    assert bound["count"] == 5
    assert [c["pod"] for c in api.get(url + "?node=gpu-1").json()["results"]] == [
        "default/trainer"]
    assert api.get(url + "?outcome=Nope").json()["count"] == 0


def test_it_paginates(api, finished_run):
    page = api.get(f"/api/runs/{finished_run.pk}/cycles/?page_size=3&page=3").json()
    assert [c["index"] for c in page["results"]] == [6]


def test_it_returns_a_cycles_full_trace(api, finished_run):
    response = api.get(f"/api/runs/{finished_run.pk}/cycles/2/")
    assert response.status_code == 200
    trace = response.json()
    assert trace == CycleRecord.objects.get(run=finished_run, index=2).trace
    assert trace["pod"] == "default/nowhere"
    assert set(trace["filter"]) == {"node-a", "node-b", "node-c", "gpu-1", "node-d"}
    assert {"preFilter", "filter", "postFilter", "score", "totalScore", "reserve",
            "permit", "bind"} <= set(trace)
    # The contract's queue points (issue 26): the stored trace keeps them too.
    assert trace["queueSort"]["plugin"] == "PrioritySort"
    assert isinstance(trace["queueSort"]["before"], list)
    assert [e["plugin"] for e in trace["preEnqueue"]][:1] == ["SchedulingGates"]


def test_a_missing_index_is_404(api, finished_run):
    assert api.get(f"/api/runs/{finished_run.pk}/cycles/99/").status_code == 404


@pytest.mark.parametrize("path", ["cycles/", "cycles/0/"])
def test_it_rejects_other_users_run(bob_api, finished_run, path):
    assert bob_api.get(f"/api/runs/{finished_run.pk}/{path}").status_code == 404


@pytest.mark.parametrize("path", ["cycles/", "cycles/0/"])
def test_it_rejects_anonymous_users(anon, finished_run, path):
    assert anon.get(f"/api/runs/{finished_run.pk}/{path}").status_code in (401, 403)
