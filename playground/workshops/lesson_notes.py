"""Each lesson's text as data, beside its fixture: fixtures/<name>.md.

A YAML front matter between `---` lines, then the notes in Markdown:

    ---
    order: 1                      # its place in the trainer's guide (docs/LESSONS.md)
    title: Filter plugins, ...    # the heading's text after "<name>: "
    spoilers: "**What to look at" # the line from which on attendees do not see the notes
    questions:                    # optional: the default question text per extension point
      Filter: Which nodes survive Filter?
    ---
    **What it teaches.** ...

Plain Python (no Django): the workshop pages read it while the app runs and
scripts/lessons_doc.py writes docs/LESSONS.md's lesson sections from it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FRONT_MATTER = re.compile(r"\A---\n(?P<head>.*?)\n---\n\n?(?P<body>.*)\Z", re.DOTALL)
QUESTION_POINTS = ("Filter", "Score", "PostFilter")
KIND_NAMES = {int: "an integer", str: "a text", dict: "a mapping"}


class NotesError(ValueError):
    """A lesson's notes file that cannot be read, naming the file and the field."""


@dataclass(frozen=True)
class Notes:
    name: str
    order: int
    title: str
    body: str
    spoilers: str = ""
    questions: dict[str, str] = field(default_factory=dict)

    def section(self) -> str:
        """The lesson's section of the trainer's guide, heading included."""
        return f"## {self.order}. {self.name}: {self.title}\n\n{self.body}".rstrip()

    def attendee_section(self) -> str:
        """The section up to the line where it starts telling what each cycle does."""
        text = self.section()
        if not self.spoilers:
            return text
        at = re.search(rf"^{re.escape(self.spoilers)}", text, re.MULTILINE)
        return text[:at.start()].rstrip() if at else text


def _field(head: dict, key: str, kind, path: Path, *, required: bool = True):
    value = head.get(key)
    if value is None and not required:
        return kind()
    if not isinstance(value, kind) or isinstance(value, bool):
        raise NotesError(f"{path.name}: {key}: must be {KIND_NAMES[kind]}")
    return value


def parse(path: Path, text: str) -> Notes:
    match = FRONT_MATTER.match(text)
    if not match:
        raise NotesError(f"{path.name}: must start with a front matter between '---' lines")
    try:
        head = yaml.safe_load(match.group("head")) or {}
    except yaml.YAMLError as exc:
        raise NotesError(f"{path.name}: front matter: {exc}") from exc
    if not isinstance(head, dict):
        raise NotesError(f"{path.name}: front matter: must be a mapping")
    unknown = sorted(set(head) - {"order", "title", "spoilers", "questions"})
    if unknown:
        raise NotesError(f"{path.name}: {unknown[0]}: unknown field")
    questions = _field(head, "questions", dict, path, required=False)
    for point, prompt in questions.items():
        if point not in QUESTION_POINTS:
            raise NotesError(f"{path.name}: questions.{point}: must be one of "
                             f"{', '.join(QUESTION_POINTS)}")
        if not isinstance(prompt, str) or not prompt.strip() or len(prompt) > 300:
            raise NotesError(f"{path.name}: questions.{point}: must be a text of 1 to 300 "
                             "characters")
    return Notes(name=path.stem, order=_field(head, "order", int, path),
                 title=_field(head, "title", str, path), body=match.group("body").rstrip(),
                 spoilers=_field(head, "spoilers", str, path, required=False),
                 questions=dict(questions))


@functools.cache
def _read(path: Path, mtime: float) -> Notes:
    return parse(path, path.read_text(encoding="utf-8"))


def notes(name: str, directory: Path = FIXTURES) -> Notes | None:
    """The notes of lesson `name` (its fixture's stem), None if it has none."""
    path = directory / f"{name}.md"
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    return _read(path, mtime)


def every_lesson(directory: Path = FIXTURES) -> list[Notes]:
    """Every lesson with notes, in the guide's order."""
    found = [notes(path.stem, directory) for path in sorted(directory.glob("*.md"))]
    return sorted(found, key=lambda n: (n.order, n.name))
