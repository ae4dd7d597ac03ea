"""Lesson 00's welcome counts what the course has (issue 29's walk-through: it said "five
short lessons and three assignments" beside a table of six lessons and four assignments).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def test_the_welcome_counts_the_lessons_and_the_assignments():
    nb = nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4)
    welcome = nb.cells[0].source
    found = re.search(r"in (\w+) short lessons and (\w+) assignments", welcome)
    assert found, welcome[:400]
    lessons = [p for p in (ROOT / "notebooks").glob("0*.ipynb") if not p.name.startswith("00")]
    graded = [p for p in (ROOT / "source").iterdir() if p.is_dir()
              and not p.name.startswith("inventory")]  # fmt: skip
    assert WORDS[found[1]] == len(lessons), found[0]
    assert WORDS[found[2]] == len(graded), found[0]
