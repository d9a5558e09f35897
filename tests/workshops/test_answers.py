"""The reveal of every question kind, on every cycle of every lesson, names what the trace says
decided it (playground.workshops.answers against the engine's contract trace).

Each lesson is run through the engine as the playground runs it (tests.test_lessons.lesson:
seed 1, the out-of-tree plugins); the extender lesson against the sample extender on a free
port. The checks read the trace independently of the code under test: at Filter the nodes
whose last Filter verdict is Success and a plugin that rejected one of the others; at Score
the bound node and a Score plugin that gave it the most weighted points over the runner-up;
at PostFilter the victims and the plugin whose status ended PostFilter (Success, when it
nominated a node).
"""

from __future__ import annotations

import pytest

from playground.workshops.answers import correct_answer
from tests.test_lessons import (
    LESSON_FIXTURES,
    extender_lesson,
    fixture_text,
    header_sample_rules,
    lesson,
    sample_extender,  # noqa: F401 (a fixture)
)

TIMELINE_LESSONS = {"node-failure-lesson", "scaleup-spread-lesson"}
LESSONS = sorted(LESSON_FIXTURES | TIMELINE_LESSONS)


@pytest.fixture
def cycles_of(tmp_path, sample_extender):  # noqa: F811 (the fixture imported above)
    def run(name: str) -> list[dict]:
        if name == "extender-lesson":
            server = sample_extender(**header_sample_rules(fixture_text(name)))
            return extender_lesson(tmp_path, server.url).cycles
        return lesson(name).cycles
    return run


def rejected_by(trace: dict) -> dict[str, str]:
    """node -> the plugin whose Filter verdict on it was not Success."""
    return {node: trail[-1]["plugin"] for node, trail in (trace.get("filter") or {}).items()
            if trail and trail[-1]["code"] != "Success"}


def check_filter(trace: dict) -> None:
    answer = correct_answer("Filter", trace)
    rejected = rejected_by(trace)
    survivors = sorted(set(trace.get("filter") or {}) - set(rejected))
    assert answer["answer"] == survivors
    if rejected:
        assert answer["plugin"] in set(rejected.values())
        assert f": {answer['plugin']}: " in answer["reason"]
    else:
        assert answer["plugin"] == ""


def check_score(trace: dict) -> None:
    answer = correct_answer("Score", trace)
    winner, totals = trace.get("node"), trace.get("totalScore") or {}
    assert answer["answer"] == ([winner] if winner else [])
    if winner is None or len(totals) < 2:
        assert answer["plugin"] == ""
        return
    # The runner-up: the best other total, the first by name among equals.
    runner_up = min((n for n in totals if n != winner), key=lambda n: (-totals[n], n))
    gaps = {p: s.get(winner, {}).get("weighted", 0) - s.get(runner_up, {}).get("weighted", 0)
            for p, s in trace["score"].items()}
    assert gaps[answer["plugin"]] == max(gaps.values())
    assert answer["reason"].startswith(f"{winner} {totals[winner]} against ")


def check_post_filter(trace: dict) -> None:
    answer = correct_answer("PostFilter", trace)
    calls = trace.get("postFilter") or []
    preemption = trace.get("preemption") or {}
    assert answer["answer"] == sorted(preemption.get("victims") or [])
    if not calls:
        assert answer["plugin"] == ""
        return
    successes = [c["plugin"] for c in calls if c["code"] == "Success"]
    if preemption.get("nominatedNode"):
        assert successes and answer["plugin"] == successes[0]
        assert answer["reason"].startswith(f"{successes[0]} nominated "
                                           f"{preemption['nominatedNode']}")
    elif not successes:
        assert answer["plugin"] == calls[-1]["plugin"]


@pytest.mark.parametrize("name", LESSONS)
def test_every_reveal_names_the_plugin_the_trace_says_decided(name, cycles_of):
    cycles = cycles_of(name)
    assert cycles
    for trace in cycles:
        check_filter(trace)
        check_score(trace)
        check_post_filter(trace)


def test_the_preemption_reveal_names_default_preemption_not_the_first_post_filter_call():
    first = lesson("preemption-lesson").cycles[0]
    assert [c["plugin"] for c in first["postFilter"]] == ["DynamicResources",
                                                          "DefaultPreemption"]
    assert correct_answer("PostFilter", first) == {
        "answer": ["default/batch-1", "default/batch-2"], "plugin": "DefaultPreemption",
        "reason": "DefaultPreemption nominated node-1 and evicts default/batch-1, "
                  "default/batch-2"}


def test_a_post_filter_that_all_plugins_refused_names_the_last_one_and_its_reasons():
    trace = {"postFilter": [
        {"plugin": "DynamicResources", "code": "Unschedulable", "reasons": ["no claims"]},
        {"plugin": "DefaultPreemption", "code": "Unschedulable",
         "reasons": ["0/3 nodes are available: 3 No preemption victims found."]}]}
    assert correct_answer("PostFilter", trace) == {
        "answer": [], "plugin": "DefaultPreemption",
        "reason": "0/3 nodes are available: 3 No preemption victims found."}
