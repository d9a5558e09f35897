"""Write docs/LESSONS.md's lesson sections from the lessons' notes (fixtures/<name>.md).

    .venv/bin/python scripts/lessons_doc.py          # rewrite the sections
    .venv/bin/python scripts/lessons_doc.py --check  # exit 1 if the doc is out of date

The guide's introduction (everything up to MARKER) is kept as written; every lesson's section
follows it in the notes' `order`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playground.workshops.lesson_notes import every_lesson  # noqa: E402

DOC = ROOT / "docs" / "LESSONS.md"
MARKER = "<!-- The lesson sections below are written from fixtures/<name>.md"


def guide(current: str) -> str:
    """The doc with its lesson sections written from the notes."""
    at = current.find(MARKER)
    if at < 0:
        raise SystemExit(f"{DOC}: no line starting {MARKER!r}: cannot tell the introduction "
                         "from the lessons")
    intro_end = current.index("-->", at) + len("-->")
    sections = "\n\n".join(notes.section() for notes in every_lesson())
    return f"{current[:intro_end]}\n\n{sections}\n"


def main(argv: list[str]) -> int:
    current = DOC.read_text(encoding="utf-8")
    wanted = guide(current)
    if "--check" in argv:
        if wanted != current:
            print(f"{DOC.relative_to(ROOT)} is out of date: run scripts/lessons_doc.py",
                  file=sys.stderr)
            return 1
        return 0
    DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
