"""attention_grader.config.settings: every limit is a traitlet of the course config, set in one place,
and ``make grade`` and plain ``nbgrader autograde`` grade with the same values.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import nbformat
import pytest
from attention_grader.config.settings import (
    AnswerLimits,
    Answers,
    Batch,
    Intake,
    IntakeLimits,
    PageLimits,
    Pages,
    answer_limits,
    intake_limits,
    page_limits,
)
from attention_grader.limits import GRADE_ALIASES, limit_names, limits_table
from traitlets.config import Config

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # inside nbgrader


def test_each_caps_dataclass_field_is_a_traitlet_with_its_default_and_help():
    pairs = ((Intake, IntakeLimits), (Answers, AnswerLimits), (Pages, PageLimits))
    for configurable, dataclass in pairs:
        traits = configurable.class_traits(config=True)
        assert set(traits) == {f.name for f in fields(dataclass)}, configurable.__name__
        assert configurable().limits() == dataclass()  # the dataclass default, not a copy
        for name, trait in traits.items():
            assert len(trait.help) > 20, f"{configurable.__name__}.{name} says what it does"


def test_the_config_reaches_the_dataclasses_the_code_takes():
    c = Config()
    c.Intake.max_cells = 7
    c.Intake.data_suffixes = {".csv"}
    c.Answers.max_depth = 3
    assert intake_limits(c).max_cells == 7 and intake_limits(c).data_suffixes == frozenset({".csv"})
    assert answer_limits(c).max_depth == 3 and answer_limits(None) == AnswerLimits()


def test_the_limits_that_were_constants_are_read_from_the_course_file(tmp_path):
    """What a teacher writes in the course's ``nbgrader_config.py`` is what the readers get."""
    from attention_grader.config.config_door import load_config

    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.Pages.max_checked_html = 1000\n"
        "c.Pages.max_problems = 4\n"
        "c.Pages.max_maths_chars = 99\n"
        "c.Answers.max_handle_ops = 7\n"
        "c.Answers.max_output_chars = 300\n"
        "c.Batch.worker_grace = 12.5\n"
        "c.Batch.max_crashes = 1\n"
    )
    config = load_config(tmp_path)
    assert page_limits(config) == PageLimits(1000, 4, 99)
    answers = answer_limits(config)
    assert (answers.max_handle_ops, answers.max_output_chars) == (7, 300)
    batch = Batch(config=config)
    assert (batch.worker_grace, batch.max_crashes) == (12.5, 1)
    assert page_limits(None) == PageLimits() and Batch().max_crashes == 3


def test_the_course_config_shows_every_limit_with_its_value():
    text = (REPO / "nbgrader_config.py").read_text()
    missing = [f"c.{s}.{n}" for s, n in limit_names() if f"c.{s}.{n} =" not in text]
    assert not missing, f"nbgrader_config.py does not show {missing}"


def test_the_teachers_guide_lists_every_limit_as_the_traitlets_say():
    """docs/teachers.md carries the table `python -m attention_grader.limits` prints."""
    table = limits_table()
    assert len(table.splitlines()) == len(limit_names()) + 2
    assert table in (REPO / "docs" / "teachers.md").read_text(), (
        "docs/teachers.md's limits table is out of date: paste `python -m "
        "attention_grader.limits` under 'Every limit'"
    )


def test_configure_is_one_call_and_the_order_of_the_course_values_does_not_matter():
    from attention_grader.pipeline import configure

    before = Config()
    before.Execute.timeout = 9
    before.Intake.max_cells = 5
    configure(before)
    after = Config()
    configure(after)
    after.Execute.timeout = 9
    after.Intake.max_cells = 5
    assert before == after
    # one writer per list: the exporter and the steps are set once, whole
    assert after.GenerateFeedback.exporter_class.__name__ == "FeedbackPageExporter"
    assert after.Autograde.sanitize_preprocessors[1].__name__ == "IntakeGuard"


def test_grade_limit_flags_are_aliases_of_course_config_values(tmp_path, monkeypatch):
    """`--cell-timeout` writes c.Execute.timeout (nbgrader's alias idea), nothing parallel."""
    from attention_grader import cli

    from tests.support.grading_course import FIXTURE, make_course

    course = make_course(tmp_path)
    seen = {}

    def fake_grade(course, assignment, options, students=None):
        seen["config"] = course.config
        raise ValueError("stop here")

    monkeypatch.setattr(cli, "grade", fake_grade)
    monkeypatch.setattr(cli, "_announce_protections", lambda course: None)
    argv = ["--course", str(course.root), "grade", FIXTURE, "--cell-timeout", "7",
            "--notebook-timeout", "70", "--no-progress"]  # fmt: skip
    assert cli.main(argv) == 2
    assert seen["config"].Execute.timeout == 7
    assert seen["config"].GradingExecute.notebook_timeout == 70
    assert set(GRADE_ALIASES) == {"cell_timeout", "notebook_timeout"}


SLEEP = "\nimport time\ntime.sleep(20)"
#: The limits a teacher sets in a temporary course's nbgrader_config.py, below their defaults.
COURSE_LIMITS = """
c.Execute.timeout = 2
c.Intake.max_data_file_bytes = 50
c.Answers.max_reply_chars = 4
"""


def _what_grading_did(course, assignment: str, student: str) -> dict:
    path = course.root / "autograded" / student / assignment / f"{assignment}.ipynb"
    meta = nbformat.read(path, as_version=4).metadata["attention_grader"]
    return {
        "cell_timeout": meta["cell_timeout"],
        "kinds": sorted({kind for kind, _ in meta.get("flags", [])}),
        "intake": [detail for kind, detail in meta.get("flags", []) if "data file" in detail],
    }


@pytest.mark.slow
def test_make_grade_and_nbgrader_autograde_obey_the_course_config(tmp_path):
    """A limit set in the course's nbgrader_config.py reaches the worker of `make grade`
    (python -m attention_grader grade) and plain `nbgrader autograde` alike.
    """
    from attention_grader.config.course import load_course
    from attention_grader.steps.release import release

    from tests.support.grading_course import (
        CORRECT,
        FIXTURE,
        answer,
        make_course,
        place_submission,
        released_notebook,
    )

    course = make_course(tmp_path)
    release(course, FIXTURE)  # (the release check would refuse under these limits: it obeys them)
    cfg = course.root / "nbgrader_config.py"
    cfg.write_text(cfg.read_text() + COURSE_LIMITS)
    course = load_course(course.root, exchange=course.exchange)
    work = answer(
        released_notebook(course, FIXTURE), {**CORRECT, "q2_answer": CORRECT["q2_answer"] + SLEEP}
    )
    for student in ("via_make", "via_nbgrader"):
        folder = place_submission(course, FIXTURE, student, copy.deepcopy(work))
        (folder.parent / "data.csv").write_text("x\n" * 100)  # 200 bytes: over the course's 50

    argv = ["-m", "attention_grader", "--course", str(course.root), "grade", FIXTURE,
            "--student", "via_make", "--no-progress"]  # fmt: skip
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    nbgrader = Path(sys.executable).with_name("nbgrader")
    done = subprocess.run(
        [str(nbgrader), "autograde", FIXTURE, "--student", "via_nbgrader"],
        cwd=course.root, capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr

    by_make = _what_grading_did(course, FIXTURE, "via_make")
    by_nbgrader = _what_grading_did(course, FIXTURE, "via_nbgrader")
    assert by_make == by_nbgrader, (by_make, by_nbgrader)
    assert by_make["cell_timeout"] == 2  # c.Execute.timeout, not nbgrader's 30
    assert "cell_timeout" in by_make["kinds"]  # q2's sleep hit it
    assert "unreadable_answer" in by_make["kinds"]  # c.Answers.max_reply_chars = 4
    assert "data file of 200 bytes (limit 50)" in " ".join(by_make["intake"])  # c.Intake
    for student in ("via_make", "via_nbgrader"):
        assert not (course.root / "submitted" / student / FIXTURE / "data.csv").exists()
