"""Each lesson's text is data beside its fixture (fixtures/<name>.md): every one loads, the
guide is written from them, and the workshop pages and questions read them."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from playground.clusters.models import Cluster
from playground.workshops import lesson_notes
from playground.workshops.lessons import lesson_question, lesson_text
from playground.workshops.services import PROMPTS
from tests.workshops.conftest import url

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


def test_every_lesson_fixture_has_notes_that_load_in_one_order():
    lessons = lesson_notes.every_lesson()
    assert {n.name for n in lessons} == {p.stem for p in FIXTURES.glob("*.yaml")}
    assert [n.order for n in lessons] == list(range(1, len(lessons) + 1))
    for notes in lessons:
        assert notes.title and notes.body, notes.name
        if notes.spoilers:
            # Attendees get the notes up to the spoilers, never past them.
            assert notes.attendee_section() != notes.section(), notes.name
            assert notes.spoilers not in notes.attendee_section(), notes.name
    # Its notes tell no cycle's outcome in a section of their own: attendees see them whole.
    assert [n.name for n in lessons if not n.spoilers] == ["dra-releases-lesson"]


def _words(text: str) -> set[str]:
    """Names as a fixture spells them: node-a1, team-a, nvidia.com/gpu, maxSkew, urgent."""
    return set(re.findall(r"[A-Za-z][\w./-]*\w", text))


def _strings(node) -> list[str]:
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in [str(k), *_strings(v)]]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return [node] if isinstance(node, str) else []


def _fixture_names(name: str) -> set[str]:
    """The words of a fixture's objects (names, labels, fields, plugins), its comments aside."""
    documents = yaml.safe_load_all((FIXTURES / f"{name}.yaml").read_text(encoding="utf-8"))
    return {word for document in documents for s in _strings(document) for word in _words(s)}


def test_every_lesson_asks_questions_of_its_own():
    """Each lesson's question texts load and are about that lesson: none is a default prompt
    or another lesson's text, and each names something of its own fixture's objects (a node,
    a pod, a label, a field, a plugin) that at most half of the fixtures have."""
    lessons = lesson_notes.every_lesson()
    names = {n.name: _fixture_names(n.name) for n in lessons}
    fixtures_with = Counter(word for words in names.values() for word in words)
    asked_by = {}
    for notes in lessons:
        assert notes.questions, f"{notes.name} has no question texts"
        own = {w for w in names[notes.name] if fixtures_with[w] <= len(names) / 2}
        for point, text in notes.questions.items():
            assert text not in PROMPTS.values(), (notes.name, point)
            assert asked_by.setdefault(text, notes.name) == notes.name, (notes.name, point)
            assert _words(text) & own, (notes.name, point, text)


def test_the_trainers_guide_is_written_from_the_notes():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "lessons_doc.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["storage-lesson", "storage-lesson (copy) 2"])
def test_the_pages_show_the_notes_with_or_without_spoilers(alice, name):
    cluster = Cluster.objects.create(owner=alice, name=name)
    trainer = lesson_text(cluster, spoilers=True)
    attendee = lesson_text(cluster, spoilers=False)
    assert trainer.startswith("## 3. storage-lesson: how volumes steer pods\n\n**What it")
    assert "**What to look at" in trainer and "**What to look at" not in attendee
    assert trainer.startswith(attendee)


@pytest.mark.django_db
def test_a_cluster_of_no_lesson_shows_its_description(alice):
    cluster = Cluster.objects.create(owner=alice, name="mine", description="my own cluster")
    assert lesson_text(cluster, spoilers=False) == "my own cluster"
    assert lesson_question(cluster, "Filter") == ""


def test_a_lessons_question_texts_are_the_default_prompts(room, workshop, presented):
    asked = room["trainer"].post(url(workshop, "questions/"), {"point": "Filter"},
                                 format="json")
    assert asked.status_code == 201
    assert asked.json()["prompt"] == ("Which of node-a, node-b, node-c, gpu-1 and node-d get "
                                      "past TaintToleration, NodeUnschedulable and "
                                      "NodeAffinity?")


@pytest.mark.parametrize("text, message", [
    ("no front matter", "taints.md: must start with a front matter between '---' lines"),
    ("---\ntitle: t\n---\nbody", "taints.md: order: must be an integer"),
    ("---\norder: 1\ntitle: t\ncolour: red\n---\nbody", "taints.md: colour: unknown field"),
    ("---\norder: 1\ntitle: t\nquestions:\n  Bind: Where?\n---\nbody",
     "taints.md: questions.Bind: must be one of Filter, Score, PostFilter"),
    ("---\norder: 1\ntitle: t\nquestions:\n  Score: ''\n---\nbody",
     "taints.md: questions.Score: must be a text of 1 to 300 characters"),
])
def test_a_broken_notes_file_is_refused_naming_the_file_and_the_field(text, message):
    with pytest.raises(lesson_notes.NotesError) as refused:
        lesson_notes.parse(Path("fixtures/taints.md"), text)
    assert str(refused.value) == message
