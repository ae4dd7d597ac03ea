"""``nbgrader validate`` of a source notebook runs the release check (attention_grader.term.validate_check).

A test cell that passes on its own solution in the teacher's kernel but would lose its points
when graded the way students are (here: ``inspect.getsource`` of the student's function) is
listed by ``nbgrader validate`` with the cause, under the course's config; plain nbgrader's
config validates the same notebook without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.ordinary.questions import (
    COURSE_CONFIG,
    PLAIN_CONFIG,
    QUESTIONS,
    source_notebook,
)
from tests.support.graded_classes import finish_steps, start_steps
from tests.support.grading_course import notebook_course

NOTEBOOK = "source/checked/checked.ipynb"


def _course(tmp: Path, name: str, config: str) -> Path:
    chosen = [q for q in QUESTIONS if q.name in ("add", "total")]
    return notebook_course(tmp / name, "checked", source_notebook(chosen), config, refuse=True)


@pytest.mark.slow
def test_validating_a_source_notebook_names_the_cell_the_release_check_refuses(tmp_path):
    procs = [
        start_steps(_course(tmp_path, name, config), "validate", NOTEBOOK)
        for name, config in (("course", COURSE_CONFIG), ("plain", PLAIN_CONFIG))
    ]
    course, plain = (finish_steps(p)[NOTEBOOK] for p in procs)
    assert plain == {}, plain  # the solution passes every test in its own kernel
    failed = course.get("failed", [])
    assert len(failed) == 1, course  # test_add grades as in plain nbgrader: not listed
    assert "inspect.getsource(total)" in failed[0]["source"]
    assert "release check refuses" in failed[0]["raw_error"]
    assert "`total` with inspect" in failed[0]["raw_error"]
